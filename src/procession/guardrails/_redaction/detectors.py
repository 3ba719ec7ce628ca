"""Offline detectors of secrets and personal data, shared by every redacting processor.

A :class:`Detector` is a regular expression for a complete match, a regular expression for
anything that could still *become* a match when more text arrives (its ``prefix``: what a
stream must hold back), and an optional validator (a checksum from ``python-stdnum``, a phone
number check from ``phonenumbers``) that keeps ordinary numbers from being redacted.

Detection never relies on ``\\b``: Python treats CJK characters as word characters, so
``卡號4111111111111111`` has no word boundary before the card number. Every pattern states
its own ASCII boundaries instead, and runs on a *matching copy* of the text in which
full-width forms, other scripts' digits, exotic spaces (NBSP, ideographic space), dashes
(en-dash, minus) and zero-width characters are mapped, one character for one, to their ASCII
counterparts; offsets in the copy are offsets in the original, so redaction covers the
original characters.

:data:`DETECTORS` holds the built-in detectors by type name (``credit-card``, ``email``,
``api-key`` ...); :data:`OFFLINE_TYPES` lists them.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from procession.guardrails._redaction import (
    id_checks,
    id_labels,
    national_ids,
    phones,
    provider_keys,
)
from procession.guardrails._redaction.ip_rules import OID_CONTEXT, VERSION_CONTEXT, ipv4_value
from procession.guardrails._redaction.phones import DEFAULT_PHONE_REGIONS, phone_validator
from procession.guardrails._redaction.url_secrets import (
    SECRET_URL_PATTERN,
    SECRET_URL_SKETCH,
    secret_url_value,
)

__all__ = [
    "DEFAULT_PHONE_REGIONS",
    "clear_validation_cache",
    "count_digits",
    "DIGITS6",
    "DETECTORS",
    "FAMILIES",
    "MATCHING_TABLE",
    "OFFLINE_TYPES",
    "Detection",
    "Detector",
    "detectors_for",
    "matching_text",
    "phone_validator",
    "IdRunDetector",
    "PhoneDetector",
]

DIGITS6 = r"[0-9](?:[ .\-()/]{0,2}[0-9]){5}"
"""Six digits, perhaps separated: the default trigger of a number-shaped detector."""

FAMILIES: Mapping[str, str] = {
    "literal": "",
    "punctuation": "",
    "digit": r"[0-9](?<![0-9][0-9])",
    "capital": r"[A-Z](?<![A-Za-z0-9][A-Z])",
}
"""The head of each family's combined pass. A pass is ``head(?:sketch|sketch|...)``: one
search tells that no member can match, which is what most text shows, instead of one
search per member. With a head, every member's match starts with what the head matches
(a digit not preceded by a digit...) and its sketch follows; without one (``literal``,
``punctuation``), a sketch is something every match contains, led by a literal character
that is rare in prose (``@``, ``_``...), so that ``re`` skips through the text in C (it does
when every alternative starts with a literal). Punctuation common in text with numbers has
its own family, so that it does not make the rare literals' pass succeed."""

Validator = Callable[[str], int]
"""Given a candidate's matching text, the length of its valid prefix (0: not valid)."""


@dataclass(frozen=True, slots=True)
class Detection:
    """One detection: its type, its span in the scanned text, and the text it covers."""

    type: str
    start: int
    end: int
    value: str


@dataclass(frozen=True, slots=True)
class Detector:
    """One detectable shape.

    Attributes:
        type: The type it reports (``credit-card``); several detectors may share a type.
        pattern: A complete match, on the matching copy of the text.
        prefix: Matches (up to the end of the text) anything that more text could turn into a
            match, including a complete match that more text could still extend. A superset
            is safe (it only holds text back longer); it must never miss a real prefix.
        validate: Length of the valid prefix of a candidate (0 when it is not valid).
        continuation: What may follow a candidate that outgrew the hold window; that text is
            redacted with it.
        placeholder: The placeholder text, such as ``[CREDIT_CARD]``.
    """

    type: str
    pattern: str
    prefix: str
    validate: Validator | None = None
    continuation: str = r"[!-~]*"
    placeholder: str = ""
    trigger: str = DIGITS6
    """A cheap pattern every match contains (a digit, ``@``...): detectors whose trigger is
    absent from the text are not run. A plain literal is looked for with ``in``; ``""``
    means no trigger (``min_digits`` may still rule the detector out). A trigger that starts
    with a literal or a character class is cheap: ``re`` skips to it in C."""
    min_digits: int = 0
    """How many ASCII digits every (valid) match holds: a text with fewer is not searched."""
    family: str = ""
    """A key of :data:`FAMILIES`: detectors of one family are first looked for together, in
    one pass (``""``: searched on their own)."""
    sketch: str = ""
    """This detector's part of its family's pass: a pattern matching (a superset of) what
    follows the family's head in every match (for the ``literal`` family, a pattern every
    match contains, led by a literal character)."""
    resume: str = ""
    """Where a match was valid only in part (two cards in a row), what may start the next
    match right after the valid part, separators first (``""``: the search goes on)."""
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)
    resumed: re.Pattern[str] | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern))
        object.__setattr__(self, "resumed", re.compile(self.resume) if self.resume else None)
        if not self.placeholder:
            object.__setattr__(self, "placeholder", f"[{self.type.upper().replace('-', '_')}]")

    def find(
        self,
        text: str,
        pos: int = 0,
        endpos: int | None = None,
        first: re.Match[str] | None = None,
    ) -> list[Detection]:
        """Validated matches in ``text`` (the matching copy) starting in ``[pos, endpos)``.

        ``first``, when given, is ``compiled.search(text, pos)``, already found by the caller.
        """
        limit = len(text) if endpos is None else endpos
        compiled = self.compiled
        if first is None:
            first = compiled.search(text, pos)
        if first is None or first.start() >= limit:
            return []
        out: list[Detection] = []
        validate = self.validate
        match: re.Match[str] | None = first
        while match is not None:  # `finditer` from `first`, without matching it again
            start, end = match.span()
            if start >= limit:
                break
            if validate is None:
                out.append(Detection(self.type, start, end, text[start:end]))
            else:
                length = validate(match.group())
                if length > 0:
                    out.append(Detection(self.type, start, start + length, match.group()[:length]))
                    if self.resumed is not None:  # a card right after a card
                        gap = _RESUME_GAP.match(text, start + length)
                        after = gap.end() if gap is not None else start + length
                        follow = self.resumed.match(text, after, limit)
                        if follow is not None:  # what follows the valid part, searched again
                            match = follow
                            continue
            match = compiled.search(text, end if end > start else end + 1)
        return out


_RESUME_GAP = re.compile(r"[ \t|\n.\-/_,]{0,8}")


# -- the matching copy ------------------------------------------------------------------------

_DIGIT_ZEROS = (
    0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80,
    0x1A90, 0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50,
    0xABF0, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
    0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
)  # fmt: skip
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"  # noqa: E501
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63"
# Zero-width characters hidden inside a secret become a dash: every shape that can hold one
# (keys, cards, e-mail local parts) accepts a dash there, so "4111\u200b1111..." still matches.
_INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"


def _matching_table() -> dict[int, str]:
    # Full-width letters, digits and the symbols secrets are made of; full-width punctuation
    # (colon, comma, brackets ...) stays, since in CJK text it separates, as a space does.
    table: dict[int, str] = {c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}
    for keep in "!\"#$%&'()*,:;<=>?[\\]^`{|}~":
        del table[ord(keep) + 0xFEE0]
    for zero in _DIGIT_ZEROS:
        for value in range(10):
            char = chr(zero + value)
            if unicodedata.category(char) == "Nd" and unicodedata.digit(char, -1) == value:
                table[zero + value] = str(value)
    table.update({ord(c): " " for c in _SPACES})
    table.update({ord(c): "-" for c in _DASHES})
    table.update({ord(c): "-" for c in _INVISIBLE})
    table[0x2024] = "."  # one-dot leader
    for dot in "\u00b7\u30fb\uff65":  # middle dots separate groups, as a space does
        table[ord(dot)] = " "
    return table


MATCHING_TABLE: dict[int, str] = _matching_table()
"""``str.translate`` table for the matching copy: one character for one (offsets stay)."""

# Most non-ASCII text (CJK, accented letters) holds none of the mapped characters, and one
# C-level scan for them is many times cheaper than ``str.translate`` over the whole text. The
# class holds the mapped BMP characters and every astral one (a superset is safe): with only
# BMP members ``re`` compiles it to a bitmap.
_MAPPED = re.compile(
    "["
    + "".join(re.escape(chr(code)) for code in sorted(MATCHING_TABLE) if code < 0x10000)
    + "\U00010000-\U0010ffff]"
)


_ESCAPED = re.compile(r"\\[nrt]")
"""A JSON or string-literal escape (``\\n``, ``\\t``, ``\\r``): two spaces in the matching
copy, so that the ``n`` of ``\\nsk-...`` does not pass for a word character before a key, and
a PEM body with escaped line breaks stays one body."""


def matching_text(text: str) -> str:
    """The copy of ``text`` detectors run on (same length, same offsets)."""
    if "\\" in text:
        text = _ESCAPED.sub("  ", text)
    if text.isascii() or _MAPPED.search(text) is None:
        return text
    return text.translate(MATCHING_TABLE)


# -- validators -------------------------------------------------------------------------------

_SEPARATORS = re.compile(r"[ .\-()/]+")


def _compact(text: str) -> str:
    return _SEPARATORS.sub("", text)


def _groups_prefixes(text: str) -> Iterator[int]:
    """Lengths of ``text`` cut after each separator-delimited group, longest first."""
    yield len(text)
    for match in reversed(list(_SEPARATORS.finditer(text))):
        if match.start() > 0:
            yield match.start()


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


_CARD_GROUPS = re.compile(r"[0-9]+")
_CARD_CUTS = re.compile(r"[^0-9]+")

# (issuer prefix, lengths): Visa, Mastercard, American Express, Discover, JCB, Diners Club,
# UnionPay, Maestro, Mir, RuPay, Troy... A Luhn-valid number of another prefix or length (an
# IMEI's 15 digits led by a 4, a reference) is not a card.
_ISSUERS: tuple[tuple[tuple[str, ...], frozenset[int]], ...] = (
    (("4",), frozenset((13, 16, 19))),
    (("34", "37"), frozenset((15,))),
    (("51", "52", "53", "54", "55"), frozenset((16,))),
    (tuple(str(n) for n in range(2221, 2721)), frozenset((16,))),
    (("2200", "2201", "2202", "2203", "2204"), frozenset((16, 17, 18, 19))),
    (("6011", "644", "645", "646", "647", "648", "649", "65"), frozenset((16, 17, 18, 19))),
    (("62", "81"), frozenset((16, 17, 18, 19))),
    (tuple(str(n) for n in range(3528, 3590)), frozenset((16, 17, 18, 19))),
    (("300", "301", "302", "303", "304", "305", "36", "38", "39"), frozenset(range(14, 20))),
    (("6",), frozenset(range(13, 20))),
    (("50", "56", "57", "58", "60", "63", "67", "69"), frozenset(range(12, 20))),  # Maestro
    (("35",), frozenset((16, 17, 18, 19))),  # JCB as generators write it
    (("9792",), frozenset((16,))),
    (("1800", "2131"), frozenset((15,))),  # JCB's older ranges
    (("5018", "5020", "5038", "5893", "6304", "6759", "6761", "6762", "6763", "6390", "0604"),
     frozenset(range(12, 20))),  # Maestro, down to 12 digits (0604: generators issue it)
)  # fmt: skip
_ISSUER_LENGTHS: dict[str, frozenset[int]] = {}
for _prefixes, _lengths in _ISSUERS:
    for _prefix in _prefixes:
        _ISSUER_LENGTHS[_prefix] = _ISSUER_LENGTHS.get(_prefix, frozenset()) | _lengths
del _prefixes, _lengths, _prefix


def _issued(digits: str) -> bool:
    """Whether ``digits`` have a card issuer's prefix and one of its lengths."""
    size = len(digits)
    for cut in (4, 3, 2, 1):
        lengths = _ISSUER_LENGTHS.get(digits[:cut])
        if lengths is not None and size in lengths:
            return True
    return False


def _card_ok(text: str) -> bool:
    found = _CARD_GROUPS.findall(text)
    digits = "".join(found)
    if not 12 <= len(digits) <= 19 or not _issued(digits) or not _luhn_ok(digits):
        return False
    groups = [len(g) for g in found[:-1]]
    # "4 1 1 1 ..." is not a card; the last group may be short (4-4-4-1, 4-4-4-2); groups of
    # two digits ("45 39 14 ...") are how cards are read out
    if groups and max(len(g) for g in found) > 6:  # 266-4888488-4571451: an order number
        return False
    return not groups or min(groups) >= 3 or set(groups) == {2}


def _card(text: str) -> int:
    """The longest prefix of ``text``, cut after a group, that is a card (0: none)."""
    if text[0] not in "1234569" and not text.startswith("0604"):  # the issuer digits
        return 0
    if _card_ok(text):
        return len(text)
    for cut in reversed(list(_CARD_CUTS.finditer(text))):
        if count_digits(text[: cut.start()]) < 12:
            break
        if _card_ok(text[: cut.start()]):
            return cut.start()
    if text.isdigit() and _card_ok(text[:-1]):  # a digit right after it ("...72521" + "1")
        return len(text) - 1
    return 0


def _bitcoin(text: str) -> int:
    from stdnum import bitcoin

    return len(text) if bitcoin.is_valid(text) or _bech32m_ok(text) else 0


_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_BECH32_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _bech32m_ok(text: str) -> bool:
    """A segwit v1+ (taproot) address: BIP 350's bech32m checksum, which ``stdnum`` lacks."""
    lower = text.lower()
    if lower != text and text.upper() != text:
        return False
    hrp, _, data = lower.rpartition("1")
    if hrp not in ("bc", "tb") or len(data) < 8 or any(c not in _BECH32 for c in data):
        return False
    values = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    values += [_BECH32.index(c) for c in data]
    check = 1
    for value in values:
        top = check >> 25
        check = (check & 0x1FFFFFF) << 5 ^ value
        for bit, generator in enumerate(_BECH32_GENERATOR):
            if (top >> bit) & 1:
                check ^= generator
    return check == 0x2BC830A3 and _BECH32.index(data[0]) >= 1


def _stdnum(module_name: str) -> Validator:
    modules: list[object] = []

    def validate(text: str) -> int:
        if not modules:
            import importlib

            modules.append(importlib.import_module(f"stdnum.{module_name}"))
        module: Any = modules[0]
        try:
            return len(text) if module.is_valid(_compact(text)) else 0
        except Exception:  # a validator's own error means "not this shape"
            return 0

    return validate


def _hkid(text: str) -> int:
    compact = _compact(text).upper()
    letters = compact[:-7]
    body, check = compact[-7:-1], compact[-1]
    if len(letters) == 1:
        letters = " " + letters
    values = [36 if c == " " else ord(c) - 55 for c in letters]
    total = values[0] * 9 + values[1] * 8 + sum(int(d) * (7 - i) for i, d in enumerate(body))
    expected = (11 - total % 11) % 11
    return len(text) if check == ("A" if expected == 10 else str(expected)) else 0


_TW_LETTERS = "ABCDEFGHJKLMNPQRSTUVXYWZIO"


def _twid(text: str) -> int:
    code = _TW_LETTERS.find(text[0].upper()) + 10
    if code < 10:
        return 0
    digits = [code // 10, code % 10, *(int(d) for d in text[1:])]
    weights = (1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1)
    return len(text) if sum(d * w for d, w in zip(digits, weights, strict=True)) % 10 == 0 else 0


def _ip(text: str) -> int:
    if "::" not in text and text.count(":") != 7:  # rejected below in any case; cheaper here
        return 0
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return 0
    if address.version == 6 and (
        ("::" not in text and text.count(":") != 7) or sum(c not in ":" for c in text) < 3
    ):
        return 0
    return len(text)


def count_digits(text: str) -> int:
    """How many ASCII digits ``text`` holds (one C pass: in UTF-8 no other character has
    such a byte)."""
    data = text.encode("utf-8", "surrogatepass")
    return len(data) - len(data.translate(None, b"0123456789"))


def clear_validation_cache() -> None:
    """Forget cached phone-number verdicts (for benchmarks that replay the same numbers)."""
    phones.clear_phone_cache()


# -- the built-in detectors -------------------------------------------------------------------


def literal_prefix(word: str) -> str:
    """A regex matching every non-empty prefix of ``word`` (``abc`` -> ``a(?:b(?:c)?)?``)."""
    out = ""
    for char in reversed(word):
        out = re.escape(char) + (f"(?:{out})?" if out else "")
    return out


_NO_DIGIT_BEFORE = r"(?<![0-9])(?<![0-9][ .\-])(?<![0-9]  )"
_CARD_SEP = r"(?:[ \t|\n]{1,8}|[.\-/_,]| - )"
"""What may separate a card's groups: runs of spaces, tabs, line breaks or table bars (a
card split over lines or cells), one of ``. - / _ ,``, or `` - ``."""


def _lead(first: str, *before: str) -> str:
    """One character of class ``first`` not preceded by any of ``before``, class first.

    ``(?<!X)F`` and ``F(?<!XF)`` match the same text, but only a pattern that starts with a
    character class lets ``re`` skip, in C, every position that cannot start a match; one
    that starts with a lookbehind is tried at every position.
    """
    return first + "".join(f"(?<!{b}{first})" for b in before)


_DIGIT_LEAD = _lead("[0-9]", "[0-9]", r"[0-9][ .\-]", "[0-9]  ")
"""A digit not preceded by a digit, perhaps with one separator (or two spaces) between."""
_TOKEN = r"A-Za-z0-9_\-"
_KEY_START = r"(?<![A-Za-z0-9\-])(?<![A-Za-z0-9_\-]_)"
"""No key starts inside a word; an underscore may precede it only as markdown emphasis
(``_sk_live_..._``)."""
_URL_CHARS = r"[!#-&(-;=?-Z_a-z~]"  # printable ASCII but space " ' < > [ \ ] ^ ` { | }

_KEY_SHAPES = (
    r"sk-(?:proj-|ant-(?:api[0-9]{2}-)?|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    r"(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{40,}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"xapp-[A-Za-z0-9\-]{10,}",
    r"AIza[A-Za-z0-9_\-]{35,}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"npm_[A-Za-z0-9]{36,}",
    r"hf_[A-Za-z0-9]{30,}",
    r"whsec_[A-Za-z0-9]{24,}",
    r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",
)
_KEY_PREFIXES = (
    "sk-", "sk_live_", "sk_test_", "pk_live_", "pk_test_", "rk_live_", "rk_test_",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxa-", "xoxb-", "xoxp-", "xoxo-",
    "xoxs-", "xoxr-", "xapp-", "AIza", "glpat-", "npm_", "hf_", "whsec_", "SG.",
)  # fmt: skip
_ASSIGNED = (
    r"api[_\-]?key|apikey|api[_\-]?secret|secret[_\-]?key|access[_\-]?token|auth[_\-]?token"
    r"|client[_\-]?secret|aws_secret_access_key|secret[_\-]?access[_\-]?key|password|passwd"
)
_ASSIGNED_BY_LETTER = (
    r"(?<=a)(?:pi[_\-]?key|pikey|pi[_\-]?secret|ccess[_\-]?token|uth[_\-]?token"
    r"|ws_secret_access_key)|(?<=s)ecret[_\-]?(?:access[_\-]?)?key|(?<=c)lient[_\-]?secret"
    r"|(?<=p)(?:assword|asswd)"
)
"""``_ASSIGNED`` without the first letter (which must precede it), in the same order."""
_VALUE = r"[A-Za-z0-9_\-./+=~!@#$%^&*]"
_ASSIGNED_WORDS = (
    "api_key", "api-key", "apikey", "api_secret", "api-secret", "secret_key", "secret-key",
    "access_token", "access-token", "auth_token", "auth-token", "client_secret",
    "client-secret", "aws_secret_access_key", "secretaccesskey", "secret_access_key",
    "secret-access-key", "password", "passwd",
)  # fmt: skip


_MORE_KEYS = (
    r"SK[0-9a-fA-F]{32}",  # Twilio API key
    r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",  # Shopify
    r"key-[0-9a-zA-Z]{32}",  # Mailgun
    r"do[por]_v1_[a-f0-9]{64}",  # DigitalOcean
    r"gsk_[A-Za-z0-9]{40,}",  # Groq
    r"dapi[0-9a-f]{32}(?:-[0-9]+)?",  # Databricks
    r"[0-9]{8,10}:AA[0-9A-Za-z_\-]{32,33}",  # Telegram bot token
    r"(?:xai|pplx|r8|sk-or-v1|lin_api|pat)[_\-][A-Za-z0-9_\-]{30,}",  # xAI, Perplexity...
    r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,}",  # PyPI upload token
)
"""Key formats beyond :data:`_KEY_SHAPES`, searched in a pass of their own."""
_MORE_KEYS_PREFIX = (
    _KEY_START + r"(?:p(?:y(?:p(?:i(?:-[A-Za-z0-9_\-]*)?)?)?)?|S(?:K[0-9a-fA-F]{0,32})?"
    r"|s(?:h(?:p(?:[acps][atsa]?_?[a-fA-F0-9]{0,32})?)?)?"
    r"|k(?:e(?:y(?:-[0-9a-zA-Z]{0,32})?)?)?|d(?:o(?:[por](?:_(?:v(?:1(?:_[a-f0-9]{0,64})?)?)?)?)?)?"
    r"|g(?:s(?:k(?:_[A-Za-z0-9]*)?)?)?|d(?:a(?:p(?:i[0-9a-f]{0,32}(?:-[0-9]*)?)?)?)?"
    r"|[0-9]{1,10}(?::(?:A(?:A[0-9A-Za-z_\-]{0,33})?)?)?"
    r"|(?:x(?:a(?:i)?)?|p(?:p(?:l(?:x)?)?|a(?:t)?)?|r(?:8)?|l(?:i(?:n(?:_(?:a(?:p(?:i)?)?)?)?)?)?"
    r"|s(?:k(?:-(?:o(?:r(?:-(?:v(?:1)?)?)?)?)?)?)?)(?:[_\-][A-Za-z0-9_\-]*)?)\Z"
)
_KEY_TRIGGER = r"k[\-_]|gh[pousr]_|_pat_|xox[abposr]-|xapp-|AIza|glpat-|npm_|hf_|whsec_|SG\."


_CLOSE = r"(?:\\?[\"'`]|\]|\*{1,2})"
"""What may close a keyword before its ``:`` or ``=``: a quote, a backtick, ``]``, bold."""
_ASSIGNMENT = re.compile(r"[:=][ \t]{0,3}\\?[\"'`]?")
_PLACEHOLDER = re.compile(
    r"(?i)(?:[A-Z_]*(?:YOUR|HERE|EXAMPLE|PLACEHOLDER|CHANGE_?ME|REPLACE|XXXX|\*\*\*)[A-Z_]*"
    r"|(?:process\.env|os\.environ|os\.getenv|env|config|settings|self|this)(?:\.[A-Za-z_.]+)?"
    r"|\$.*|<.*|\{.*)"
)
"""A value that names a secret instead of holding one: ``YOUR_ACCESS_TOKEN_HERE``,
``process.env.OPENAI_API_KEY``, ``$API_KEY``, ``<token>``, ``{{token}}``."""


def _assigned_value(text: str) -> int:
    """``api_key = <value>``: valid unless the value is a placeholder or a reference."""
    found = _ASSIGNMENT.search(text)
    value = text[found.end() :] if found else text
    if _PLACEHOLDER.fullmatch(value) or (value.isupper() and "_" in value):
        return 0
    return len(text)


_SLUG = re.compile(r"[a-z]+(?:-[a-z0-9]{1,15}){2,}")
"""``sk-hynix-reports-record...``: a URL slug, not a key (keys mix cases)."""


def _bearer(text: str) -> int:
    """``Bearer <token>``: valid unless the token is a placeholder (``YOUR_TOKEN_HERE``)."""
    value = text.split(None, 1)[-1]
    if _PLACEHOLDER.fullmatch(value) or (value.isupper() and "_" in value):
        return 0
    return len(text)


_USERINFO = re.compile(r"//([^:/@]*):([^@]*)@")


def _userinfo(text: str) -> int:
    """``scheme://user:password@``: valid unless the password is the user name or a
    placeholder (``postgres:postgres@``, ``user:password@`` in documentation)."""
    found = _USERINFO.search(text)
    if found is None:
        return 0
    user, password = found.groups()
    if password == user or _PLACEHOLDER.fullmatch(password) or password.lower() in _DOC_WORDS:
        return 0
    return len(text)


_DOC_WORDS = frozenset(("password", "pass", "passwd", "secret", "changeme", "pwd", "xxx"))


def _key(text: str) -> int:
    if text.startswith("sk-") and _SLUG.fullmatch(text, 3):
        return 0
    return len(text)


def _any_prefix(words: Sequence[str]) -> str:
    return "|".join(literal_prefix(w) for w in words)


def _built_in() -> dict[str, tuple[Detector, ...]]:
    """Every built-in detector type, by name."""
    return {**_personal(), **_secrets(), **_network(), "national-id": _national_ids()}


@dataclass(frozen=True, slots=True)
class PhoneDetector(Detector):
    """The phone-number detector: a run of digit groups, cut into the numbers it holds and
    judged with the text around it (see :mod:`procession.guardrails._redaction.phones`)."""

    def find(
        self,
        text: str,
        pos: int = 0,
        endpos: int | None = None,
        first: re.Match[str] | None = None,
    ) -> list[Detection]:
        """Phone numbers in ``text`` (the matching copy) starting in ``[pos, endpos)``."""
        limit = len(text) if endpos is None else endpos
        validate = self.validate if self.validate is not None else phones.phone_validator()
        spans = phones.find_phones(text, pos, limit, first, self.compiled, validate)
        return [Detection(self.type, a, b, text[a:b]) for a, b in spans if a < limit]


@dataclass(frozen=True, slots=True)
class IdRunDetector(Detector):
    """The detector of national ids written in digits alone: a run that passes an id's check
    (``validate``), or any run of an id's length right after an identity label such as
    ``Aadhaar``, ``個人番号`` or ``ID number`` (:mod:`procession.guardrails._redaction.id_labels`,
    decision 0297); never a run right after a label of another kind of number (``P/N``,
    ``ISBN``, ``tracking``: :func:`~procession.guardrails._redaction.phones.label_start`)."""

    after_label: Validator = national_ids.labelled_id_length
    """The validator of a run right after an identity label (or in a list of ids)."""
    other_labels: bool = True
    """Whether a run right after a label of another kind of number is skipped."""

    def find(
        self,
        text: str,
        pos: int = 0,
        endpos: int | None = None,
        first: re.Match[str] | None = None,
    ) -> list[Detection]:
        """Ids in ``text`` (the matching copy) starting in ``[pos, endpos)``."""
        limit = len(text) if endpos is None else endpos
        compiled, validate, resumed = self.compiled, self.validate, self.resumed
        match = compiled.search(text, pos) if first is None else first
        out: list[Detection] = []
        listed = -1  # where the last id ended: a list of ids may go on there
        while match is not None and match.start() < limit:
            start, run = match.start(), match.group()
            if self.other_labels and phones.label_start(text, start) < start:  # P/N, ISBN
                match = compiled.search(text, match.end())
                continue
            length = validate(run) if validate is not None else len(run)
            named = listed >= 0 and _ID_LIST_GAP.fullmatch(text, listed, start) is not None
            if not length:
                named = named or id_labels.labelled(text, start)
                length = self.after_label(run) if named else 0
                if not length:
                    match = compiled.search(text, match.end())
                    continue
            out.append(Detection(self.type, start, start + length, run[:length]))
            listed = start + length  # an id, by its check or its label, may open a list
            follow = None
            if resumed is not None:  # a second id right after the first
                gap = _RESUME_GAP.match(text, start + length)
                follow = resumed.match(text, gap.end() if gap else start + length, limit)
            match = follow if follow is not None else compiled.search(text, match.end())
        return out


_ID_LIST_GAP = re.compile(r"[ \t,;/|\u00b7\u30fb\u3001\uff0c]{1,4}")
"""What stands between two ids of one list after one label (``Aadhaar: 2345..., 3456...``)."""


def _personal() -> dict[str, tuple[Detector, ...]]:
    card = Detector(
        "credit-card",
        # led by the issuer digit `_card` wants: no start inside a match the lookbehinds
        # let through, so a number led by another digit is skipped as a rejected match was
        _lead("[0-69]", "[0-9]", r"[0-9][ .\-]", "[0-9]  ")
        + rf"(?<!0(?!604))(?=[0-9 .\-/_,\t|\n]{{11}})(?:{_CARD_SEP}?[0-9]){{11,20}}(?![0-9])",
        _NO_DIGIT_BEFORE + r"[0-9][0-9 .\-/_,\t|\n]{0,150}\Z",
        _card,
        trigger="",
        min_digits=12,
        resume=rf"(?:[1-69]|0(?=604))(?:{_CARD_SEP}?[0-9]){{11,20}}(?![0-9])",
    )
    local = r"[A-Za-z0-9._%+\-\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]"
    domain = (
        r"@(?:[A-Za-z0-9\-\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff"
        r"\uac00-\ud7af]{1,63}\.){1,30}(?:xn--[A-Za-z0-9\-]{1,59}|[A-Za-z]{2,24}"
        r"|[\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af]{2,12})"
        r"(?![A-Za-z0-9\-])(?!\.[A-Za-z0-9])"
    )
    domain_prefix = (
        r"(?:@[A-Za-z0-9.\-\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\u4e00-\u9fff"
        r"\uac00-\ud7af]{0,253})?\Z"
    )
    email = Detector(
        "email",
        # IDN domains (münchen.de, почта.рф), punycode TLDs (xn--p1ai), accented local parts
        _lead(local, local) + local + "{0,63}" + domain,
        f"(?<!{local}){local}{{1,64}}" + domain_prefix,
        continuation=r"[A-Za-z0-9._%+\-@\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff]*",
        trigger="@",
        family="literal",
        sketch="@",
    )
    quoted = Detector(
        "email",
        r'"[^"\\\n]{1,62}"' + domain,
        r'"[^"\\\n]{0,62}(?:"' + domain_prefix[:-2] + r")?\Z",
        continuation=r"[^\s]*",
        trigger='"@',
    )
    ssn = IdRunDetector(
        "ssn",
        national_ids.ID_RUN_PATTERN,
        f"{id_labels.LABEL_PREFIX}|{national_ids.ID_RUN_PREFIX}",
        national_ids.ssn_length,
        trigger="",
        min_digits=9,
        resume=national_ids.ID_RUN_RESUME,
        after_label=national_ids.labelled_ssn_length,
        other_labels=False,
    )
    phone = PhoneDetector(
        "phone",
        phones.PHONE_PATTERN,
        phones.PHONE_PREFIX,
        phones.phone_validator(),
        trigger="",
        min_digits=7,
    )
    return {
        "credit-card": (card,),
        "email": (email, quoted),
        "ssn": (ssn,),
        "phone": (phone,),
    }


def _secrets() -> dict[str, tuple[Detector, ...]]:
    keys = Detector(
        "api-key",
        f"{_KEY_START}(?:{'|'.join(_KEY_SHAPES)})",
        f"{_KEY_START}(?:(?:{_any_prefix(_KEY_PREFIXES)})|"
        rf"(?:{'|'.join(re.escape(p) for p in _KEY_PREFIXES)})[A-Za-z0-9_\-.]*)\Z",
        _key,
        continuation=r"[A-Za-z0-9_\-.]*",
        placeholder="[API_KEY]",
        # a literal of every shape, each led by a literal character: `re` skips to those
        trigger=_KEY_TRIGGER,
        family="literal",
        sketch=r"_(?<=k_)|_(?<=gh[pousr]_)|_pat_|_(?<=npm_)|_(?<=hf_)|_(?<=whsec_)"
        r"|-(?<=k-)|-(?<=xox[abposr]-)|-(?<=xapp-)|-(?<=glpat-)|AIza|\.(?<=SG\.)",
    )
    more = Detector(
        "api-key",
        f"{_KEY_START}(?:{'|'.join(_MORE_KEYS)})(?![A-Za-z0-9\\-])",
        _MORE_KEYS_PREFIX,
        continuation=r"[A-Za-z0-9_\-]*",
        placeholder="[API_KEY]",
        trigger=r"SK[0-9a-fA-F]|shp[acps]|key-|_v1_|gsk_|dapi|:AA|xai-|pplx-|r8_|sk-or|lin_api|pat_"
        r"|pypi-",
    )
    documented = _documented_keys()
    userinfo = Detector(
        "api-key",
        _lead("[A-Za-z]", "[A-Za-z0-9+.\\-]")
        + r"[A-Za-z0-9+.\-]{1,15}://[^\s:/@'\"<>]{0,64}:[^\s@/'\"<>]{1,128}@",
        # a scheme starts where a match may (not inside a word): a long run of letters and
        # digits is not tried at every position
        _lead("[A-Za-z]", "[A-Za-z0-9+.\\-]")
        + r"[A-Za-z0-9+.\-]{0,15}(?::(?:/(?:/[^\s/@'\"<>]{0,200})?)?)?\Z",
        _userinfo,
        continuation=r"[^\s@/'\"<>]*@?",
        placeholder="[API_KEY]",
        trigger="://",
    )
    assigned = Detector(
        "api-key",
        # (?i:(?<![A-Za-z0-9_])(?:_ASSIGNED)...), led by the first letters of the words (and
        # U+017F, which (?i) matches as "s")
        "[AaSs\u017fCcPp]"
        rf"(?i:(?<![A-Za-z0-9].)(?:{_ASSIGNED_BY_LETTER}){_CLOSE}?[ \t]{{0,3}}[:=][ \t]{{0,3}}"
        r"\\?[\"'`]?)"
        r"[A-Za-z0-9_\-./+=~!@#$%^&*]{8,}",
        rf"(?i:(?<![A-Za-z0-9])(?:{_any_prefix(_ASSIGNED_WORDS)}"
        rf"|(?:{_ASSIGNED}){_CLOSE}?[ \t]{{0,3}}(?:[:=][ \t]{{0,3}}\\?[\"'`]?{_VALUE}*)?))\Z",
        _assigned_value,
        continuation=r"[A-Za-z0-9_\-./+=~!@#$%^&*]*",
        placeholder="[API_KEY]",
        trigger="[:=]",
        family="punctuation",
        sketch=":|=",
    )
    aws = Detector(
        "aws-key",
        _lead("A", "[A-Za-z0-9]")
        + r"(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        r"(?<![A-Za-z0-9])(?:A(?:[KSGIRN](?:[A-Z](?:[A-Z][A-Z0-9]{0,16})?)?)?)\Z",
        trigger="A[KSGIRN]",
        family="capital",
        sketch="[KSGIRN][IPDOV]A",
    )
    bearer = Detector(
        "bearer-token",
        _lead("[Bb]", "[A-Za-z0-9]") + r"earer[ \t]{1,8}[A-Za-z0-9_\-.=~+/:]{16,}",
        rf"(?<![A-Za-z0-9])(?:{_any_prefix(['Bearer', 'bearer'])}"
        r"|[Bb]earer[ \t]{1,8}[A-Za-z0-9_\-.=~+/:]*)\Z",
        _bearer,
        continuation=r"[A-Za-z0-9_\-.=~+/:]*",
        trigger="earer",
        family="literal",
        sketch="Bearer|bearer",
    )
    jwt = Detector(
        "jwt",
        _lead("e", r"[A-Za-z0-9\-]", r"[A-Za-z0-9_\-]_")
        + r"yJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        r"(?<![A-Za-z0-9\-])(?<![A-Za-z0-9_\-]_)(?:e(?:y(?:J[A-Za-z0-9_\-.]*)?)?)\Z",
        continuation=r"[A-Za-z0-9_\-.]*",
        trigger="eyJ",
        family="literal",
        sketch="J(?<=eyJ)",
    )
    return {
        "api-key": (keys, more, *documented, assigned, userinfo),
        "aws-key": (aws,),
        "bearer-token": (bearer,),
        "jwt": (jwt,),
        "private-key": (_private_key(),),
    }


def _private_key() -> Detector:
    """PEM and PGP private key blocks, headers such as ``Proc-Type:`` included."""
    return Detector(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[A-Z][A-Za-z\-]{1,20}: [^\n]{0,200}?(?:\n|  |\Z)|[A-Za-z0-9+/=]+|\s+)*",
        rf"(?:{literal_prefix('-----BEGIN ')}|-----BEGIN (?:[A-Z0-9]+ ){{0,3}}"
        rf"(?:[A-Z0-9]*|(?:{literal_prefix('PRIVATE KEY BLOCK-----')})"
        r"|PRIVATE KEY(?: BLOCK)?-----[A-Za-z0-9+/=\s:,\-]*))\Z",
        continuation=r"[A-Za-z0-9+/=\s:,]*",
        trigger="-----BEGIN",
        family="literal",
        sketch="-----BEGIN",
    )


def _documented_keys() -> tuple[Detector, ...]:
    """The provider formats of :mod:`provider_keys` (decision 0290), in the family passes."""
    pk = provider_keys
    shapes = (
        (pk.LOWER_PATTERN, pk.LOWER_PREFIX, "literal", pk.LOWER_SKETCH, pk.LOWER_SKETCH),
        (pk.CAPITAL_PATTERN, pk.CAPITAL_PREFIX, "capital", pk.CAPITAL_SKETCH, pk.CAPITAL_TRIGGER),
        (pk.MAILCHIMP_PATTERN, pk.MAILCHIMP_PREFIX, "literal", *[pk.MAILCHIMP_SKETCH] * 2),
        (pk.DISCORD_PATTERN, pk.DISCORD_PREFIX, "literal", *[pk.DISCORD_SKETCH] * 2),
    )
    # each member's own sketch is its trigger: a family hit of another member (``k_``) does
    # not run these searches
    return tuple(
        Detector(
            "api-key",
            pattern,
            prefix,
            pk.key_value,
            continuation=r"[A-Za-z0-9_\-+/=]*",
            placeholder="[API_KEY]",
            trigger=trigger,
            family=family,
            sketch=sketch,
        )
        for pattern, prefix, family, sketch, trigger in shapes
    )


def _network() -> dict[str, tuple[Detector, ...]]:
    url = Detector(
        "url",
        _lead("[HhFfWw]", "[A-Za-z0-9]")
        + rf"(?i:(?<=h)ttps?://|(?<=f)tp://|(?<=w)ww\.){_URL_CHARS}*[A-Za-z0-9/#=_\-~&%+]",
        rf"(?<![A-Za-z0-9])(?i:{_any_prefix(['https://', 'ftp://', 'www.'])}"
        rf"|(?:https?://|ftp://|www\.){_URL_CHARS}*)\Z",
        continuation=f"{_URL_CHARS}*",
        trigger=r"[:Ww](?:(?<=:)//|(?<=[Ww])[Ww][Ww]\.)",
        family="literal",
        sketch=r"://|\.(?<=[Ww][Ww][Ww]\.)",
    )
    secret_url = Detector(
        "secret-url",
        SECRET_URL_PATTERN,
        url.prefix,
        secret_url_value,
        continuation=url.continuation,
        trigger=url.trigger,
        family="literal",
        sketch=SECRET_URL_SKETCH,
    )
    ipv4_octet = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    ipv4 = Detector(
        "ip-address",
        # a version's word is part of the match (then rejected): a stream holds it back
        rf"{VERSION_CONTEXT}(?<![0-9A-Za-z.])(?<!release )(?<!Release ){OID_CONTEXT}"
        rf"(?:{ipv4_octet}\.){{3}}{ipv4_octet}(?![0-9])(?!\.[0-9])",
        # a fourth dot is held too: a digit after it makes the quad part of a longer number
        rf"{VERSION_CONTEXT}(?<![0-9A-Za-z.])[0-9]{{1,3}}(?:\.[0-9]{{0,3}}){{0,4}}\Z",
        ipv4_value,
        trigger=r"\.(?<=[0-9]\.)[0-9]{1,3}\.[0-9]",
        min_digits=4,
        family="punctuation",
        sketch=r"\.(?<=[0-9]\.)[0-9]{1,3}\.[0-9]",
    )
    ipv6 = Detector(
        "ip-address",
        r"(?<![0-9A-Za-z:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Za-z:])",
        r"(?<![0-9A-Za-z:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){0,7}\Z",
        _ip,
        trigger="::|:.*:",
        family="punctuation",
        sketch=":.*:",
    )
    uuid = Detector(
        "uuid",
        _lead("[0-9A-Fa-f]", r"[0-9A-Za-z\-]")
        + r"[0-9A-Fa-f]{7}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"
        r"(?![0-9A-Za-z\-])",
        r"(?<![0-9A-Za-z\-])[0-9A-Fa-f][0-9A-Fa-f\-]{0,35}\Z",
        trigger="-(?<=[0-9A-Fa-f]{8}-)",
        family="punctuation",
        sketch="-(?<=[0-9A-Fa-f]{8}-)",
    )
    return {
        "url": (url,),
        "secret-url": (secret_url,),
        "ip-address": (ipv4, ipv6),
        "uuid": (uuid,),
        "crypto-wallet": _wallets(),
        "iban": _ibans(),
    }


def _wallets() -> tuple[Detector, ...]:
    """Ethereum addresses, Bitcoin base58 and bech32/bech32m addresses (checksums checked)."""
    return (
        Detector(
            "crypto-wallet",
            _lead("0", "[A-Za-z0-9]") + r"x[0-9a-fA-F]{40}(?![0-9A-Za-z])",
            r"(?<![A-Za-z0-9])0(?:x[0-9a-fA-F]{0,40})?\Z",
            trigger="0x",
            family="literal",
            sketch="x(?<=0x)",
        ),
        Detector(
            "crypto-wallet",
            _lead("[13]", "[A-Za-z0-9]") + r"[1-9A-HJ-NP-Za-km-z]{25,34}(?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])[13][1-9A-HJ-NP-Za-km-z]{0,34}\Z",
            _bitcoin,
            trigger="",
            family="digit",
            sketch="[1-9A-HJ-NP-Za-km-z]{25}",
        ),
        Detector(
            "crypto-wallet",
            _lead("b", "[A-Za-z0-9]") + r"c1[02-9ac-hj-np-z]{11,71}(?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])b(?:c(?:1[02-9ac-hj-np-z]{0,71})?)?\Z",
            _bitcoin,
            trigger="bc1",
            family="literal",
            sketch="bc1",
        ),
    )


def _ibans() -> tuple[Detector, ...]:
    """IBANs by their mod-97 check digits, in capitals or in lower case."""
    iban = Detector(
        "iban",
        national_ids.IBAN_PATTERN,
        national_ids.IBAN_PREFIX,
        national_ids.iban_length,
        trigger="",
        min_digits=2,  # the check digits: a BBAN may be letters (GI69 VEBI GXVU LWJM MEDE F9P)
        family="capital",
        sketch=national_ids.IBAN_SKETCH,
        resume=national_ids.IBAN_RESUME,
    )
    lower_iban = replace(
        iban,
        pattern=national_ids.LOWER_IBAN_PATTERN,
        trigger=national_ids.LOWER_IBAN_TRIGGER,
        family="",
        sketch="",
    )
    return (iban, lower_iban)


def _id(
    pattern: str,
    prefix: str,
    validate: Validator,
    digits: int,
    sketch: tuple[str, str] = ("", ""),
    trigger: str = "",
) -> Detector:
    """A national-id shape (``sketch``: its family and its part of the family's pass)."""
    family, part = sketch
    return Detector(
        "national-id",
        pattern,
        prefix,
        validate,
        placeholder="[NATIONAL_ID]",
        trigger=trigger,
        min_digits=digits,  # how many digits the shape holds
        family=family,
        sketch=part,
    )


_ID_DIGITS_PREFIX = r"(?<![0-9A-Za-z])[0-9][0-9 .\-]{0,17}[A-Za-z]?\Z"
_ID_LETTERS_PREFIX = (
    r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,6}[0-9A-Za-z()]{0,11}"
    r"|[A-Za-z]{2} ?(?:[0-9]{1,2} ?){0,3}[A-Za-z]?|[A-Za-z]{2} [0-9]{3,6} ?[A-Za-z]?)\Z"
)


def _national_ids() -> tuple[Detector, ...]:
    return (*_digit_ids(), *_letter_ids())


def _digit_ids() -> tuple[Detector, ...]:
    run = IdRunDetector(
        "national-id",
        national_ids.ID_RUN_PATTERN,
        # an identity label is held with the words after it: a number may follow
        f"{id_labels.LABEL_PREFIX}|{national_ids.ID_RUN_PREFIX}",
        national_ids.national_id_length,
        placeholder="[NATIONAL_ID]",
        trigger="",
        min_digits=9,
        resume=national_ids.ID_RUN_RESUME,
    )
    return (
        run,  # every id written in digits alone (national_ids.py)
        _id(
            _lead("[1-9]", "[0-9A-Za-z]") + r"[0-9]{16}[Xx](?![0-9A-Za-z])",
            _ID_DIGITS_PREFIX,
            _stdnum("cn.ric"),
            17,
            ("digit", "[0-9]{16}[Xx]"),
        ),
        _id(
            _lead("[0-9]", "[A-Za-z0-9]") + r"[0-9]{7}-?[A-Za-z](?![A-Za-z0-9])",
            _ID_DIGITS_PREFIX,
            _stdnum("es.dni"),
            8,
            ("digit", "[0-9]{7}-?[A-Za-z]"),
        ),
        _id(  # a Singapore UEN of a business (8 digits) or a local company (9 digits)
            _lead("[0-9]", "[A-Za-z0-9]") + r"[0-9]{7,8}[A-Z](?![A-Za-z0-9])",
            _ID_DIGITS_PREFIX,
            _stdnum("sg.uen"),
            8,
            ("digit", "[0-9]{7,8}[A-Z]"),
        ),
        _id(
            _lead("[A-Za-z]", "[A-Za-z0-9]")
            + r"[A-Za-z]{5}[0-9]{2}[A-Za-z][0-9]{2}[A-Za-z][0-9]{3}[A-Za-z](?![A-Za-z0-9])",
            _ID_LETTERS_PREFIX,
            _stdnum("it.codicefiscale"),
            7,
            # the digits after the six letters start a digit run: the digit family's head
            ("digit", "[0-9][A-Za-z][0-9]{2}[A-Za-z][0-9]{3}"),
            trigger="[0-9]{2}[A-Za-z][0-9]{2}[A-Za-z][0-9]{3}",
        ),
    )


def _lettered_ids() -> tuple[Detector, ...]:
    """Ids of digits and letters with a check character: Finnish HETU, Mexican CURP, Spanish
    NIE (either case) and Singapore UEN of the ``T``/``S``/``R`` form (decision 0297)."""
    return (
        _id(
            _lead("[0-9]", "[A-Za-z0-9]") + r"[0-9]{5}[\-+A-FYXWVU][0-9]{3}[0-9A-Y](?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])[0-9]{1,6}(?:[\-+A-FYXWVU][0-9]{0,3}[0-9A-Y]?)?\Z",
            _hetu,
            9,
            trigger=r"[0-9]{6}[\-+A-FYXWVU][0-9]{3}",
        ),
        _id(
            _lead("[A-Z]", "[A-Za-z0-9]")
            + r"[A-Z]{3}[0-9]{6}[HMX][A-Z]{5}[0-9A-Z][0-9](?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])[A-Z]{1,4}[0-9A-Z]{0,14}\Z",
            _stdnum("mx.curp"),
            7,
            trigger=r"[0-9]{6}[HMX][A-Z]{5}",
        ),
        _id(
            _lead("[XYZxyz]", "[A-Za-z0-9]") + r"-?[0-9]{7}-?[A-Za-z](?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])[XYZxyz](?:-?[0-9]{0,7}(?:-?[A-Za-z]?)?)?\Z",
            _one_case(_stdnum("es.nie")),
            7,
            trigger=r"[XYZxyz]-?[0-9]{7}-?[A-Za-z]",
        ),
        _id(
            _lead("[RST]", "[A-Za-z0-9]") + r"[0-9]{2}[A-Z]{2}[0-9]{4}[A-Z](?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])[RST](?:[0-9]{0,2}|[0-9]{2}[A-Z]{1,2}[0-9]{0,4}[A-Z]?)\Z",
            _stdnum("sg.uen"),
            6,
            trigger=r"[0-9]{2}[A-Z]{2}[0-9]{4}[A-Z]",
        ),
    )


def _hetu(text: str) -> int:
    """A Finnish HETU (its century sign, ``-`` included, is part of it: no compaction)."""
    from stdnum.fi import hetu

    return len(text) if hetu.is_valid(text) else 0


def _one_case(validate: Validator) -> Validator:
    """``validate`` for values whose letters are all capitals or all small letters."""

    def one_case(text: str) -> int:
        letters = "".join(c for c in text if c.isalpha())
        return validate(text) if letters.isupper() or letters.islower() else 0

    return one_case


def _letter_ids() -> tuple[Detector, ...]:
    letter = _lead("[A-Z]", "[A-Za-z0-9]")
    return (
        *_lettered_ids(),
        _id(
            letter + r"[A-Z]?[0-9]{6}\([0-9A]\)",
            _ID_LETTERS_PREFIX,
            _hkid,
            6,
            ("capital", r"[0-9]{6}\(|[A-Z][0-9]{6}\("),
        ),
        _id(
            letter + r"[12][0-9]{8}(?![A-Za-z0-9])",
            _ID_LETTERS_PREFIX,
            _twid,
            9,
            ("capital", "[12][0-9]{8}"),
        ),
        _id(
            national_ids.NINO_PATTERN,
            f"{_ID_LETTERS_PREFIX}|{national_ids.NINO_PREFIX}",
            national_ids.nino_length,
            6,
            ("capital", national_ids.NINO_SKETCH),
        ),
        _id(
            id_checks.CEDULA_PATTERN,
            r"(?<![A-Za-z0-9])[VE](?:-[0-9.]{0,10})?\Z",
            id_checks.cedula_length,
            7,
            ("capital", id_checks.CEDULA_SKETCH),
        ),
        _id(
            national_ids.LOWER_NINO_PATTERN,
            f"{_ID_LETTERS_PREFIX}|{national_ids.NINO_PREFIX}",
            national_ids.nino_length,
            6,
            trigger=national_ids.LOWER_NINO_TRIGGER,
        ),
    )


DETECTORS: Mapping[str, tuple[Detector, ...]] = _built_in()
"""The built-in detectors by type name."""

OFFLINE_TYPES: tuple[str, ...] = tuple(DETECTORS)
"""Every type the built-in detectors find without a model."""


@lru_cache(maxsize=64)
def detectors_for(
    types: tuple[str, ...], phone_regions: tuple[str, ...] | None = None
) -> tuple[Detector, ...]:
    """The built-in detectors of ``types`` (phone numbers checked against ``phone_regions``)."""
    out: list[Detector] = []
    for name in types:
        for detector in DETECTORS[name]:
            if name == "phone" and phone_regions is not None:
                detector = replace(detector, validate=phone_validator(phone_regions))
            out.append(detector)
    return tuple(out)
