"""Rules for US Social Security numbers, national identity numbers and IBANs.

:mod:`~procession.guardrails._redaction.detectors` builds its ``ssn``, ``national-id`` and
``iban`` detectors from the patterns and validators here (decision 0255).

A *digit run* is what people write an identity number as: digits in groups, the groups apart
by a space, ``. - / _ ,``, a tab, a run of up to three spaces, `` - ``, or split over lines or
table cells (``123 | 45-6 | 789``). Line breaks and cell bars join the groups they separate;
the other separators keep them apart. A run is never read inside a word, a longer number, a
``#`` reference or a ``+`` phone number.

Which runs are identity numbers:

* A national id is a run whose digits pass the check of a national identity number of that
  length, as ``python-stdnum`` validates it: a check digit (Aadhaar's Verhoeff, My Number,
  CPF, PESEL, BSN, SIN, RRN...) and, for most, a valid date of birth. Formats of ten digits
  and more with one check digit (Aadhaar, My Number...) are read only when written in groups
  of at most four digits, or split over lines or cells: written as one token, tracking
  numbers and timestamps of that length pass them too often.
* A US SSN has no check digit: a run is one when its digits are nine, grouped ``3-2-4``,
  ``3-3-3`` or not at all, and the Social Security Administration could have issued them
  (area not ``000``, ``666`` or ``9xx``, group not ``00``, serial not ``0000``; round numbers
  fail these rules). The dashed ``3-2-4`` shape is read with a ``9xx`` area too: that is how
  ITINs and SSN-shaped ids of other countries are written.
* A date (``2024-05-06 12``), a version or dotted quad (``1.2.3.4``), a price with both
  ``,`` and ``.`` and a grouped thousands number (``1,234,567,890``) are never ids.

Two values in a row (``063346964  769-99-7833``) are told apart where the separator changes,
or after an ungrouped run: the first is cut there, and the next is searched right after it.

An IBAN is two letters, two check digits and 10 to 30 letters or digits, perhaps grouped by
spaces or dashes, whose ISO 7064 mod-97 check holds; written in lower case it must also name
a country of the IBAN registry. The country's own length and layout are not required: an
IBAN generator or a bank's export may differ, the check digits do not.
"""

from __future__ import annotations

import importlib
import re
from functools import lru_cache
from typing import Any, NamedTuple

from procession.guardrails._redaction.id_checks import (
    bare_thai_pin,
    dz_nin,
    grouped_like_thai_pin,
    shaped_id,
)

__all__ = [
    "IBAN_PATTERN",
    "IBAN_PREFIX",
    "IBAN_RESUME",
    "IBAN_SKETCH",
    "LOWER_IBAN_PATTERN",
    "LOWER_IBAN_TRIGGER",
    "ID_RUN_PATTERN",
    "ID_RUN_PREFIX",
    "ID_RUN_RESUME",
    "LOWER_NINO_PATTERN",
    "LOWER_NINO_TRIGGER",
    "NINO_PATTERN",
    "NINO_PREFIX",
    "NINO_SKETCH",
    "iban_length",
    "labelled_id_length",
    "labelled_ssn_length",
    "national_id_length",
    "nino_length",
    "ssn_length",
]

_SEP = r"[ \t.\-/_,|\n]{1,5}"
"""What may stand between two groups of a digit run (the validator says which are read)."""
_UNITS = rf"(?:{_SEP}[0-9]|[0-9])"

_RUN = (
    # a bare token of nine digits or more is a run of its own: what follows it is another
    rf"(?:[0-9]{{8,40}}(?![.\-/_]?[0-9A-Za-z])|{_UNITS}{{8,40}}(?![0-9A-Za-z]))"
)
ID_RUN_PATTERN = (
    # a digit not inside a word, a longer number (but after a bare token), a `#` reference or
    # a `+` phone number
    r"[0-9](?<![A-Za-z0-9+#][0-9])(?<![A-Za-z0-9][_./\-][0-9])"
    rf"(?:(?<![0-9][ ,][0-9])|(?<=[0-9]{{9}}[ ,][0-9])){_RUN}"
)
"""A digit run of at least nine digits (the validators cut it to the value)."""
ID_RUN_RESUME = f"[0-9]{_RUN}"
"""A run right after a value cut from a longer run (two values in a row)."""
ID_RUN_PREFIX = r"(?<![A-Za-z0-9+#])[0-9][0-9 \t.\-/_,|\n]{0,160}\Z"
"""Anything at the end of a stream that more text could turn into a run."""

_TOKENS = re.compile(r"[0-9]+|[^0-9]+")
_STRUCTURE = re.compile(r"[ \t]*[|\n]+[ \t]*")
_SPACE = re.compile(r"[ \t,]")


class _Group(NamedTuple):
    digits: str
    end: int
    """Where the group ends in the run's text."""
    sep: str
    """The separator after it, cell bars and line breaks removed ("" joins the next group)."""
    raw: str
    """The separator after it as written."""


def _groups(text: str) -> list[_Group]:
    """The run's groups: digits, where each ends, and the separator after it."""
    tokens = _TOKENS.findall(text)
    out: list[_Group] = []
    position = 0
    for index in range(0, len(tokens), 2):
        digits = tokens[index]
        position += len(digits)
        raw = tokens[index + 1] if index + 1 < len(tokens) else ""
        sep = _STRUCTURE.sub("", raw).strip(" ") if _STRUCTURE.search(raw) else raw
        out.append(_Group(digits, position, sep, raw))
        position += len(raw)
    return out


class _Cut(NamedTuple):
    length: int
    """Its length in the run's text."""
    digits: str
    sizes: list[str]
    """Its digit groups, joined over cell bars and line breaks."""
    seps: list[str]
    whole: bool
    """Whether it is the whole run."""
    small: bool
    """Whether it is written in groups of at most four digits (or split over lines, cells)."""


@lru_cache(maxsize=1024)
def _cuts(text: str) -> tuple[_Cut, ...]:
    """Candidate values of a run, longest first (cached: the SSN and the national-id
    detectors read the same runs). One pass over the groups: each cut's merged groups,
    separators and widest group grow with it."""
    groups = _groups(text)
    out: list[_Cut] = []
    sizes: list[str] = []
    seps: list[str] = []
    own: set[str] = set()  # the separators inside the value so far
    widest = 0
    small = True
    for count, group in enumerate(groups, 1):
        if count == 1 or not groups[count - 2].sep:
            sizes[-1:] = [sizes[-1] + group.digits] if sizes else [group.digits]
        else:
            seps.append(groups[count - 2].sep)
            sizes.append(group.digits)
        if count > 1:
            own.add(groups[count - 2].raw)
        widest = max(widest, len(group.digits))
        small = small and len(group.digits) <= 4
        whole = count == len(groups)
        if whole or _ends(group.raw, count, own, widest, groups[count]):
            thai = count == 5 and grouped_like_thai_pin([len(g.digits) for g in groups[:5]])
            out.append(
                _Cut(group.end, "".join(sizes), list(sizes), list(seps), whole,
                     (count > 1 and small) or thai)
            )  # fmt: skip
    out.reverse()
    return tuple(out)


def _ends(gap: str, count: int, own: set[str], widest: int, nxt: _Group) -> bool:
    """Whether a value of ``count`` groups may end at ``gap`` before ``nxt``: an ungrouped
    value followed by a space or a comma, a separator unlike the value's own, or a group of
    one or two digits or one longer than the value's (``7267 6212 6263 674888860610``,
    ``9493 0597 0118 2 times``)."""
    if count == 1:
        return bool(_SPACE.search(gap)) or bool(_STRUCTURE.search(gap))
    if gap not in own:
        return True
    return len(nxt.digits) <= 2 or len(nxt.digits) > widest


_DATE = re.compile(
    r"(?:19|20)[0-9]{2}([\-./])[01]?[0-9]\1[0-3]?[0-9]|[0-3]?[0-9]([\-./])[01]?[0-9]\2(?:19|20)[0-9]{2}"
)


def _ordinary(text: str, sizes: list[str], seps: list[str]) -> bool:
    """A date, a version or dotted quad, a price or a grouped thousands number."""
    if _DATE.match(text):
        return True
    kinds = set(seps)
    if any("," in sep for sep in seps) and any("." in sep for sep in seps):
        return True  # 1.234.567,89 and 68.8700, 11.5226
    if kinds == {"."} and len(sizes) >= 4 and max(len(s) for s in sizes) <= 3:
        return True
    if len(sizes) > 2 and any(len(s) == 1 for s in sizes[1:-1]):
        return True  # 18.1.45.8143, 1 2 3 4 5 ...
    # Thousands groups: with "," "." or "'" any such number is an amount (123,456,789 bytes);
    # with spaces only from ten digits, as a nine-digit id is often written 3-3-3 with spaces.
    return (
        len(kinds) == 1
        and kinds <= {",", ".", " ", "'"}
        and len(sizes) >= 3
        and 1 <= len(sizes[0]) <= 3
        and all(len(s) == 3 for s in sizes[1:])
        and sum(len(s) for s in sizes) >= (10 if kinds == {" "} else 7)
    )


# -- US SSN -----------------------------------------------------------------------------------


def _ssn_ok(digits: str, dashed: bool) -> bool:
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    if area in ("000", "666") or group == "00" or serial == "0000":
        return False
    if area[0] == "9" and not dashed:
        return False
    return digits not in ("078051120", "457555462", "219099999")


@lru_cache(maxsize=4096)
def ssn_length(text: str) -> int:
    """The length of the US SSN a digit run starts with (0: none)."""
    return _ssn_length(text, labelled=False)


@lru_cache(maxsize=1024)
def labelled_ssn_length(text: str) -> int:
    """The same for a run right after an identity label (``SSN``, ``social security``,
    ``社会保障番号``): three groups of three split by commas are then an SSN, not an amount
    (decision 0297)."""
    return _ssn_length(text, labelled=True)


def _ssn_length(text: str, labelled: bool) -> int:
    for length, digits, sizes, seps, whole, _ in _cuts(text):
        if not 9 <= len(digits) <= 10:
            continue
        shape = [len(s) for s in sizes]
        if shape == [3, 2, 5] and whole and _ssn_ok(digits[:9], seps == ["-", "-"]):
            return length  # 600-23-18261: a digit right after it
        if shape not in ([9], [3, 2, 4], [3, 3, 3]):
            continue
        if shape == [3, 3, 3] and any("," in sep for sep in seps) and not labelled:
            continue  # 123,456,789 bytes: an amount, not an SSN regrouped
        if _ssn_ok(digits, shape == [3, 2, 4] and seps == ["-", "-"]):
            return length
    return 0


# -- national ids -----------------------------------------------------------------------------

_BY_LENGTH: dict[int, tuple[str, ...]] = {
    9: ("nl.bsn", "ca.sin", "il.idnr"),
    10: ("bg.egn", "se.personnummer"),
    11: (
        "pl.pesel", "br.cpf", "no.fodselsnummer", "tr.tckimlik", "ee.ik", "lt.asmens",
        "be.nn", "gr.amka", "de.idnr", "ar.cuit",
    ),
    12: ("se.personnummer", "ru.inn"),
    13: ("kr.rrn", "za.idnr", "ro.cnp", "si.emso", "ch.ssn"),
    15: ("fr.nir",),
    18: ("cn.ric", "dz.nin"),
}  # fmt: skip
"""The ``python-stdnum`` modules of national identity numbers, by their count of digits:
a date of birth and a check digit, or two check digits."""
_GROUPED_ONLY: dict[int, tuple[str, ...]] = {
    9: ("cl.rut",),
    10: ("cz.rc", "gb.nhs"),
    12: ("in_.aadhaar", "jp.in_"),
    13: ("th.pin",),
}
"""Formats with one check digit, read only when written in groups of at most four digits
(or split over lines or cells): as one token, or as ``20226988-5568``, one number in ten of
that length would pass, and tracking and order numbers are written so."""

_MODULES: dict[str, Any] = {}
_LOCAL = {"dz.nin": dz_nin}
"""Checks of formats ``python-stdnum`` has no module for (``id_checks``)."""


def _module(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        module = _MODULES[name] = importlib.import_module(f"stdnum.{name}")
    return module


@lru_cache(maxsize=4096)
def _national(digits: str, small: bool) -> bool:
    """Whether ``digits`` pass the check of a national identity number of their length
    (``small``: written in groups of at most four digits)."""
    names = _BY_LENGTH.get(len(digits), ())
    if small:
        names += _GROUPED_ONLY.get(len(digits), ())
    for name in names:
        local = _LOCAL.get(name)
        if local is not None:
            if local(digits):
                return True
            continue
        try:
            if _module(name).is_valid(digits):
                return True
        except Exception:  # a validator's own error means "not this format"
            continue
    return False


@lru_cache(maxsize=4096)
def national_id_length(text: str) -> int:
    """The length of the national identity number a digit run starts with (0: none)."""
    for length, digits, sizes, seps, _, small in _cuts(text):
        if shaped_id(sizes, seps):
            return length  # 7064-2734428-3: a Philippine UMID
        if len(digits) not in _LENGTHS or _ordinary(text[:length], sizes, seps):
            continue
        if _national(digits, small) or (len(sizes) == 1 and bare_thai_pin(digits)):
            return length
    return 0


_LENGTHS = frozenset(_BY_LENGTH) | frozenset(_GROUPED_ONLY)

LABELLED_DIGITS = (9, 20)
"""How many digits an identity number right after an identity label may have."""


@lru_cache(maxsize=4096)
def labelled_id_length(text: str) -> int:
    """The length of the identity number a digit run right after an identity label starts
    with (0: none): its longest value of 9 to 20 digits that is no date, version, price or
    grouped thousands (decision 0297). No check is asked for: the label says what it is, and
    many national ids have no check digit (Algeria, Bangladesh, Ukraine, the Philippines)."""
    low, high = LABELLED_DIGITS
    for length, digits, sizes, seps, _, _ in _cuts(text):
        if low <= len(digits) <= high and not _ordinary(text[:length], sizes, seps):
            return length
    return 0


# -- UK National Insurance numbers ------------------------------------------------------------

_NINO_GAP = r"(?:[ \t\n]{1,3}|[ ]?[\-./_,|][ ]?)"
"""What may stand between a NINO's groups: spaces, tabs or a line break (a run of up to
three), or one dash, dot, slash, underscore, comma or table bar with a space on either side
(middle dots are spaces in the matching copy)."""
_NINO_DIGITS = (
    rf"(?:{_NINO_GAP}?[0-9]{{2}}{_NINO_GAP}?[0-9]{{2}}{_NINO_GAP}?[0-9]{{2}}{_NINO_GAP}?"
    rf"|{_NINO_GAP}[0-9]{{3}}{_NINO_GAP}[0-9]{{3}}{_NINO_GAP})"
)
_NINO_PAIRS = rf"(?: [0-9]{{2}}){{3}}(?![A-Za-z0-9])(?!{_NINO_GAP}[0-9])"
"""The six digits in spaced pairs with no suffix letter (``AB 12 34 56``): the way the
number is printed, which no part number is (decision 0390)."""
NINO_PATTERN = (
    r"[A-Z](?<![A-Za-z0-9][A-Z])"
    rf"(?:(?:[A-Z]{_NINO_DIGITS}[A-D]|(?<=Z)Z{_NINO_DIGITS}[A-Z])(?![A-Za-z0-9])"
    rf"|[A-Z]{_NINO_PAIRS})"
)
"""Two letters, six digits (compact, in pairs or in threes, the groups apart by a space,
tab, line break, dash, dot, slash or table bar) and a letter A-D; after ``ZZ`` any letter;
in spaced pairs, no letter (decisions 0327, 0390)."""
NINO_SKETCH = rf"[A-Z]{_NINO_GAP}?[0-9]{{2}}"
"""What follows a NINO's first letter: the capital family's combined pass."""
NINO_PREFIX = (
    rf"(?<![A-Za-z0-9])[A-Za-z]{{1,2}}(?:{_NINO_GAP}?[0-9]{{1,3}}){{0,3}}"
    rf"(?:{_NINO_GAP}[0-9]{{0,3}})?{_NINO_GAP}?[A-Za-z]?[ \-.|]?\Z"
)
"""Anything at the end of a stream that more text could turn into a NINO."""
LOWER_NINO_PATTERN = (
    r"[a-z](?<![A-Za-z0-9][a-z])"
    rf"(?:[a-z]{_NINO_DIGITS}[a-d]|(?<=z)z{_NINO_DIGITS}[a-z])(?![A-Za-z0-9])"
)
"""The same in lower case (a suffix letter always: ``ab 12 34 56`` may be prose)."""
LOWER_NINO_TRIGGER = (
    r"[0-9]{2}(?<=[a-z]{2}[0-9]{2})|[0-9]{2}(?<=[a-z]{2}[ \t\n\-./_,|][0-9]{2})"
    r"|[0-9]{2}(?<=[a-z]{2}[ \t\n][ \t\n\-./_,|][0-9]{2})"
    r"|[0-9]{2}(?<=[a-z]{2}[ \t\n]{2}[ \t\n\-./_,|][0-9]{2})"
    r"|[0-9]{2}(?<=[a-z]{2}[\-./_,|] [0-9]{2})"
)
"""Two digits after two small letters and perhaps a gap (led by a digit class: ``re`` skips
to digits)."""
_NINO_BAD_PREFIX = frozenset(("BG", "GB", "NK", "KN", "TN", "NT"))
"""Prefixes HMRC never allocates. ``ZZ`` is not allocated either, but it is the prefix of
the dummy numbers forms, payroll test data and Faker write (``ZZ 12 34 56 T``): a value
written so is redacted (decision 0327)."""


def nino_length(text: str) -> int:
    """The length of ``text`` if it is a UK National Insurance number in one case (0: no):
    HMRC's prefix rules (no ``D F I Q U V``, no ``O`` second, no unallocated pair), a
    suffix ``A``-``D`` (any letter after ``ZZ``), or none when the digits are in pairs."""
    suffix = text[-1] if text[-1].isalpha() else ""
    letters = text[:2] + suffix
    if not (letters.isupper() or letters.islower()):
        return 0
    prefix = text[:2].upper()
    if prefix == "ZZ":
        return len(text)
    if prefix[0] in "DFIQUV" or prefix[1] in "DFIOQUV" or prefix in _NINO_BAD_PREFIX:
        return 0
    return len(text) if not suffix or suffix.upper() in "ABCD" else 0


# -- IBAN -------------------------------------------------------------------------------------

IBAN_PATTERN = r"[A-Z](?<![A-Za-z0-9][A-Z])[A-Z][0-9]{2}(?:[ \-]?[A-Za-z0-9]){10,30}(?![A-Za-z0-9])"
"""A candidate IBAN: two letters, two check digits, 10 to 30 more (spaces, dashes)."""
IBAN_SKETCH = r"[A-Z][0-9]{2}(?:[ \-]?[A-Za-z0-9]){10}"
"""What follows the first capital of every IBAN: the capital family's combined pass."""
LOWER_IBAN_PATTERN = (
    r"[a-z](?<![A-Za-z0-9][a-z])[a-z][0-9]{2}(?:[ \-]?[a-z0-9]){10,30}(?![A-Za-z0-9])"
)
"""An IBAN in lower case."""
LOWER_IBAN_TRIGGER = r"[0-9]{2}(?<=[a-z]{2}[0-9]{2})"
"""Two digits after two small letters (led by a digit class: ``re`` skips to digits)."""
IBAN_RESUME = r"[A-Za-z]{2}[0-9]{2}(?:[ \-]?[A-Za-z0-9]){10,30}(?![A-Za-z0-9])"
"""An IBAN right after another (two in a row)."""
IBAN_PREFIX = (
    r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,2}|[A-Za-z]{2}[0-9]{1,2}"
    r"|[A-Za-z]{2}[0-9]{2}[A-Za-z0-9 \-]{0,44})\Z"
)
"""Anything at the end of a stream that more text could turn into an IBAN."""
_IBAN_SEPARATORS = re.compile(r"[ \-]+")


def _mod97(compact: str) -> bool:
    """ISO 7064 MOD 97-10 over an upper-case IBAN (check digits 02 to 98)."""
    if not "02" <= compact[2:4] <= "98":
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


@lru_cache(maxsize=256)
def _registered(country: str) -> bool:
    """Whether ``country`` is in ``python-stdnum``'s IBAN registry."""
    from stdnum import numdb

    return bool(numdb.get("iban").info(country)[0][1])


def _iban_ok(candidate: str) -> bool:
    compact = _IBAN_SEPARATORS.sub("", candidate)
    if not 13 <= len(compact) <= 34 or not compact.isalnum() or not compact.isascii():
        return False
    letters = "".join(c for c in compact if c.isalpha())
    if letters.islower():  # a hex string is no IBAN of a country outside the registry
        if letters.strip("abcdef") == "" and not _registered(compact[:2].upper()):
            return False
    elif not letters.isupper():
        return False  # mixed case: a word, not an IBAN
    return _mod97(compact.upper())


@lru_cache(maxsize=1024)
def iban_length(text: str) -> int:
    """The length of the IBAN ``text`` starts with, cut after a group (0: none): the longest
    cut with its country's registered layout, else the longest with valid check digits."""
    from stdnum import iban

    cuts = [len(text)] + [
        cut.start() for cut in reversed(list(_IBAN_SEPARATORS.finditer(text))) if cut.start()
    ]
    valid = [length for length in cuts if length >= 13 and _iban_ok(text[:length])]
    if len(valid) > 1:  # CR76 2354 ... 27 CR76: the check digits hold for both
        for length in valid:
            if iban.is_valid(text[:length].upper()):
                return length
    return valid[0] if valid else 0
