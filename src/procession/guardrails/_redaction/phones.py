"""Phone numbers: candidates found in one regular-expression pass, judged by how they are written.

A candidate is a run of digit groups joined by the separators people and generators put in
phone numbers (spaces, ``- . / ( )``, and the line breaks, tabs, table bars, commas and
space runs of a number split over lines or cells), perhaps led by ``+``. A run is cut into
the numbers it holds (two in a row, a digit or a date right after) and each is judged:

- with a ``+`` or ``00`` country code, by ``phonenumbers``' metadata (the national number
  fits one of the country's number patterns, with or without its national prefix); a
  ``+<country code>`` with 8 to 15 digits that no pattern fits is still a phone number when
  it ends where the run or a clear break ends;
- without one, by its shape: 8 to 15 digits (12 written compactly) grouped the way phone
  numbers are grouped, not a date, a version, an IPv4 address or a thousands-separated
  amount, and not right after a word naming another kind of number (``tracking``, ``ISSN``,
  ``order`` ...). Nearly every 8-10 digit string is a valid national number of some region,
  so "valid somewhere" says nothing; with ``phone_regions`` given, the number must also be
  valid in one of those regions (``phonenumbers.is_valid_number``); seven digits only
  when grouped as local numbers are (``555 0123``, ``283 01 66``);
- right after a word naming a phone number (:mod:`procession.guardrails._redaction.phone_words`),
  any writing of seven digits or more.

Verdicts are cached per piece a run is cut to: a stream re-reading a growing run batch
after batch, or a conversation repeating its numbers, judges each number once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from procession.guardrails._redaction.phone_cuts import cut_points
from procession.guardrails._redaction.phone_words import phone_label_before, phone_label_start

__all__ = [
    "DEFAULT_PHONE_REGIONS",
    "label_start",
    "NUMBER_LABELS",
    "PHONE_PATTERN",
    "PHONE_PREFIX",
    "PhoneValidator",
    "number_label_start",
    "clear_phone_cache",
    "find_phones",
    "phone_validator",
]

DEFAULT_PHONE_REGIONS: tuple[str, ...] = (
    "US", "GB", "CN", "TW", "HK", "JP", "KR", "SG", "IN", "DE", "FR", "ES", "IT", "BR", "AU",
)  # fmt: skip
"""A list of regions to pass as ``phone_regions`` for the former behaviour: national numbers
(no ``+``) must then be valid in one of them. By default every region counts."""

_SEP = r"[ \t\n|.\-/,()]"
_LEAD = r"[+(0-9](?<![0-9A-Za-z+][+(0-9])(?<![0-9][.\-/,][+(0-9])(?<![A-Za-z][\-_/#.][+(0-9])"
PHONE_PATTERN = rf"{_LEAD}(?:(?<=[+(])[0-9]|(?<=[0-9]))(?:{_SEP}{{1,7}}[0-9]|[0-9]){{6,}}"
"""A run of at least seven digits in groups, perhaps led by ``+`` or ``(``: one search over
the text finds every candidate (it starts with a class: ``re`` skips to it in C)."""

PHONE_PREFIX = r"(?<![0-9A-Za-z])[+(0-9][0-9 \t\n|.\-/,()+]{0,80}(?:x[0-9]{0,5})?\Z"
"""What more text could still turn into a phone number: held back by a stream."""

NUMBER_LABELS: frozenset[str] = frozenset(
    [
        "tracking",
        "track",
        "trackingnumber",
        "sendung",
        "sendungsnummer",
        "paketnummer",
        "suivi",
        "colis",
        "envio",
        "envío",
        "seguimiento",
        "rastreo",
        "spedizione",
        "awb",
        "waybill",
        "parcel",
        "shipment",
        "consignment",
        "fedex",
        "ups",
        "usps",
        "dhl",
        "gls",
        "dpd",
        "tnt",
        "postnl",
        "bpost",
        "colissimo",
        "order",
        "ordine",
        "commande",
        "pedido",
        "bestellung",
        "bestellnummer",
        "auftrag",
        "auftragsnummer",
        "invoice",
        "inv",
        "rechnung",
        "rechnungsnummer",
        "facture",
        "factura",
        "fattura",
        "receipt",
        "ref",
        "reference",
        "referenz",
        "référence",
        "referencia",
        "riferimento",
        "ticket",
        "case",
        "issn",
        "isbn",
        "ean",
        "upc",
        "gtin",
        "asin",
        "sku",
        "imei",
        "imsi",
        "iccid",
        "meid",
        "serial",
        "seriennummer",
        "sn",
        "s/n",
        "lot",
        "batch",
        "part",
        "p/n",
        "pn",
        "model",
        "version",
        "ver",
        "build",
        "release",
        "port",
        "pid",
        "uid",
        "account",
        "acct",
        "kontonummer",
        "customer",
        "kunde",
        "kundennummer",
        "contract",
        "vertrag",
        "policy",
        "claim",
        "booking",
        "buchungsnummer",
        "confirmation",
        "pnr",
        "transaction",
        "txn",
        "payment",
        "zahlung",
        "zip",
        "postcode",
        "postal",
        "plz",
        "cep",
        "timestamp",
        "epoch",
        "ts",
        "pp",
        "page",
        "pages",
        "seite",
        "seiten",
        "row",
        "art",
        "artikel",
        "artikelnummer",
        "article",
        "item",
        "pmid",
        "pmc",
        "doi",
        "arxiv",
        "patent",
    ]
)
"""Words naming another kind of number: a number right after one is not a phone number."""

_CJK_LABELS = (
    "订单", "訂單", "单号", "單號", "运单", "運單", "快递", "快遞", "物流", "追踪", "追蹤", "发票",
    "發票", "编号", "編號", "序列号", "序號", "批号", "批號", "邮编", "郵遞區號", "注文", "伝票",
    "追跡", "問い合わせ番号", "製造番号", "シリアル", "型番", "郵便番号", "주문", "송장", "운송장",
    "일련번호", "우편번호", "주문번호", "송장번호", "注文番号", "伝票番号", "追跡番号", "〒",
)  # fmt: skip

_LABEL_TAIL = " \t:#.\uff1a\u2116\uff03"
_FILLER_WORDS = frozenset(
    ("number", "numbers", "no", "nos", "nr", "num", "nummer", "numero", "número", "code", "id")
)
_CJK_ENDS = (
    tuple(_CJK_LABELS)
    + tuple(label + "号" for label in _CJK_LABELS)
    + tuple(label + "號" for label in _CJK_LABELS)
)


def label_start(text: str, start: int, offset: int = 0) -> int:
    """``start`` moved back over a label of another kind of number right before it, or over
    a word naming a phone number, so that a stream holds the label with its number and the
    phone detector reads both."""
    return min(number_label_start(text, start, offset), phone_label_start(text, start, offset))


def number_label_start(text: str, start: int, offset: int = 0) -> int:
    """Where a label of another kind of number (``tracking number: ``, ``Art.-Nr.``,
    ``订单号``) right before ``start`` starts (``start``: none). Word look-ups, not a search
    of the label list at every position."""
    low = max(offset, start - 32)
    tail = text[low:start].rstrip(_LABEL_TAIL)
    if not tail:
        return start
    if not tail[-1].isascii():
        longest = max((len(end) for end in _CJK_ENDS if tail.endswith(end)), default=0)
        return low + len(tail) - longest if longest else start
    at = _word_start(tail, len(tail))
    word = tail[at:].lower()
    if word in NUMBER_LABELS:
        return low + at
    if word not in _FILLER_WORDS:
        return start  # most text: the word before is no label (one set look-up)
    before = tail[:at].rstrip(" \t:#.-")
    if len(before) == at:
        return start
    first = _word_start(before, len(before))
    return low + first if before[first:].lower() in NUMBER_LABELS else start


def _word_start(text: str, end: int) -> int:
    at = end
    while at > 0 and (text[at - 1].isalpha() or text[at - 1] == "/"):
        at -= 1
    return at


_WORD = re.compile(r"[A-Za-z\u00c0-\u024f/]+")
_GROUPS = re.compile(r"[0-9]+")
_REGROUP = re.compile(r"[\t\n|,]| {3,}")
_STRONG = re.compile(r" {2,}|/ | /|\s\(|\+")
_HARD = re.compile(r"[,.](?: (?!\|)|\n|\t)|\n\s*\n|[,.]{2}")
_CHUNK = re.compile(r"\s*[\t\n|,]\s*| {3,}")
_NON_DIGITS = re.compile(r"[^0-9]+")
_ADVANCE = re.compile(r" {2,}|/ | /|\s\(|\+|[\t\n|,]")
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
_CURRENCY = "$€£¥₹#"
_BREAK = re.compile(r"[,.](?: |\n|\t|[,.])|[\t\n|,]| {3,}")
"""Any character ``_HARD`` or ``_REGROUP`` could find: without one, a run is judged whole."""
_NOT_DIGITS = "".join(chr(c) for c in range(128) if not chr(c).isdigit()) + "\u00b7\u30fb"


def clear_phone_cache() -> None:
    """Forget cached verdicts (for benchmarks that replay the same numbers)."""
    _judged.cache_clear()
    _valid_international.cache_clear()
    _valid_in_regions.cache_clear()


@dataclass(frozen=True, slots=True)
class PhoneValidator:
    """The length of the phone number a run starts with (0: none), called as a validator.

    ``regions``: national numbers (no ``+``/``00``) must also be valid in one of them;
    ``None`` judges them by their shape alone, whatever their region.
    """

    regions: tuple[str, ...] | None = None

    def __call__(self, text: str) -> int:
        """The phone number ``text`` starts with, judged by its writing alone."""
        return _first_phone(text, self.regions, False)

    def labelled(self, text: str) -> int:
        """The same, right after a word naming a phone number: seven digits are enough and
        any grouping counts (see :mod:`procession.guardrails._redaction.phone_words`)."""
        return _first_phone(text, self.regions, True)


def phone_validator(regions: Sequence[str] | None = None) -> Callable[[str], int]:
    """A validator: the length of the phone number a run starts with (0: none).

    ``regions``: national numbers (no ``+``/``00``) must also be valid in one of them;
    ``None`` (the default) judges them by their shape alone, whatever their region.
    """
    return PhoneValidator(tuple(regions) if regions is not None else None)


def _glued_end(text: str, start: int, end: int) -> int:
    """Where a run glued to a word ends once its last group is dropped (``... 092 3x``),
    or ``start`` when nothing is left."""
    run = text[start:end]
    cut = max(run.rfind(" "), run.rfind("\t"))
    return start + len(run[:cut].rstrip(" \t")) if cut > 0 else start


def find_phones(
    text: str,
    pos: int,
    limit: int,
    first: re.Match[str] | None,
    compiled: re.Pattern[str],
    validate: Callable[[str], int],
) -> list[tuple[int, int]]:
    """Spans of phone numbers starting in ``[pos, limit)`` of ``text`` (the matching copy)."""
    out: list[tuple[int, int]] = []
    match = first if first is not None else compiled.search(text, pos)
    while match is not None and match.start() < limit:
        start, found = match.span()
        end = _glued_end(text, start, found) if _glued(text, found) else found
        if end > start and _context_allows(text, start, end):
            _spans_in_run(text, start, end, validate, out)
        match = compiled.search(text, found)
    return out


def _spans_in_run(
    text: str, start: int, end: int, validate: Callable[[str], int], out: list[tuple[int, int]]
) -> None:
    """The numbers one run holds: each found from the start or after a clear break."""
    run = text[start:end]
    at = 0
    while at < len(run):
        length = validate(run[at:] if at else run)
        if not length and not at and isinstance(validate, PhoneValidator):
            # what its writing leaves out, a phone word before makes a phone number
            length = validate.labelled(run) if phone_label_before(text, start) else 0
        if length:
            out.append((start + at, start + at + length))
            nxt = _GROUPS.search(run, at + length)
            if nxt is None:
                return
            at = nxt.start() - (1 if run[nxt.start() - 1] in "+(" else 0)
            continue
        brk = _ADVANCE.search(run, at + 1)
        if brk is None:
            return
        at = brk.end() - (1 if run[brk.end() - 1] in "+(" else 0)
        if not run[at : at + 1].strip():
            at = brk.end()


def _glued(text: str, end: int) -> bool:
    """Whether a letter follows the run (``...4227-a8bf``, ``3x``): part of a word. An
    extension ``x`` and one to five digits (``801-554-6898x6631``) is none (decision 0327)."""
    after = text[end : end + 2]
    if after[:1].isascii() and after[:1].isalpha():
        return after[:1] != "x" or _EXTENSION.match(text, end) is None
    return bool(after) and after[0] in "-/." and after[1:2].isascii() and after[1:2].isalpha()


_EXTENSION = re.compile(r"x[0-9]{1,5}(?![0-9A-Za-z])")


def _context_allows(text: str, start: int, end: int) -> bool:
    """Not an amount, not code's ``= <number>``, not right after a label of another number."""
    after = text[end : end + 1]
    if (after and after in "%€$") or (start and text[start - 1] in _CURRENCY):
        return False
    if text[start] == "+":
        return True  # a country code: a phone number, whatever the words before
    if number_label_start(text, start) < start:
        return False
    if not text[max(0, start - 24) : start].rstrip(" ").endswith("="):
        return True
    # code's ``timeout = 1000000000``: a number assigned without a country code, unless the
    # name says phone (``phone=``)
    words = _WORD.findall(text, max(0, start - 24), start)
    return bool(words) and words[-1].lower().startswith(("phone", "tel", "mobil", "fax"))


def _first_phone(run: str, regions: tuple[str, ...] | None, labelled: bool) -> int:
    """The length of the phone number ``run`` starts with (0: none).

    The run is first cut to the number it can hold (at a hard break, at a line, cell or
    list break unless the number is split over them); the verdict on that piece is cached,
    so a stream that re-reads a growing run batch after batch judges each number once."""
    if _BREAK.search(run) is None:
        return _judged(run, regions, False, labelled)  # most runs: one number, no break in it
    hard = _HARD.search(run)
    if hard is not None:
        run = run[: hard.start()]
    regroup = _REGROUP.search(run)
    if regroup is not None:
        if _regrouped([c for c in _CHUNK.split(run) if c], run):
            return _judged(run, regions, True, labelled)
        run = run[: regroup.start()].rstrip(" ")
    return _judged(run, regions, False, labelled)


@lru_cache(maxsize=16384)
def _judged(run: str, regions: tuple[str, ...] | None, regrouped: bool, labelled: bool) -> int:
    return _judge(run, (regions, labelled), regrouped=regrouped)


_Regions = tuple[tuple[str, ...] | None, bool]
"""The regions national numbers must be valid in, and whether a phone word came before."""


def _judge(run: str, regions: _Regions, *, regrouped: bool, national: bool = False) -> int:
    """The phone number ``run`` starts with, its separators already classified."""
    digits = _GROUPS.findall(run)
    if not digits:
        return 0
    international = not national and (
        run.startswith("+") or (run.startswith("00") and len(digits[0]) > 2)
    )
    last_end = len(run.rstrip(_NOT_DIGITS))
    # the whole run first: most candidates are one number, judged without their group spans
    if _accept(run[:last_end], digits, international, regions, regrouped=regrouped):
        return last_end if regrouped else _closing(run, last_end)
    if not international and _dated_groups(digits):
        return 0  # 20261202 143000: a date and time, no number cut from it either
    groups = [m.span() for m in _GROUPS.finditer(run)]
    if regrouped:
        return _fallback(run, groups, digits) if international else 0
    cuts = None if international else cut_points(run, groups, _STRONG)  # one pass: 0292
    for j in range(len(groups) - 1, 0, -1):
        if cuts is not None and not cuts[j]:
            continue
        part_end = groups[j - 1][1]
        if _accept(run[:part_end], digits[:j], international, regions, regrouped=False):
            return _closing(run, part_end)
    found = _fallback(run, groups, digits) if international else 0
    if not found and international and run.startswith("00"):
        return _judge(run, regions, regrouped=regrouped, national=True)  # 02-2644-7470
    return found


def _fallback(run: str, groups: list[tuple[int, int]], digits: list[str]) -> int:
    """A country code and a plausible length: the longest such number the run starts with."""
    for j in range(len(groups), 0, -1):
        number = "".join(digits[:j])
        if number.startswith("00"):
            number = number[2:]
        if 8 <= len(number) <= 15 and _has_country_code(number):
            return _closing(run, groups[j - 1][1])
    return 0


def _closing(run: str, end: int) -> int:
    return end + 1 if run[end : end + 1] == ")" else end


def _accept(
    part: str,
    digits: list[str],
    international: bool,
    judged: _Regions,
    *,
    regrouped: bool,
) -> bool:
    number = "".join(digits)
    if international:
        national = number[2:] if number.startswith("00") else number
        if not 7 <= len(national) <= 15:
            return False
        return _valid_international(national)
    regions, labelled = judged
    if not 7 <= len(number) <= 15:
        return False
    if labelled:  # after "phone number:": any grouping, not a date
        shaped = len(set(number)) > 2 and not _date_like(digits, _separators(part, digits))
    elif len(number) == 7:
        shaped = not regrouped and _seven_shape(part, digits)
    else:
        shaped = regrouped or _national_shape(part, digits) or _country_in_parentheses(part)
    return shaped and (regions is None or _valid_in_regions(part, regions))


def _separators(part: str, digits: list[str]) -> list[str]:
    return [m.group() for m in _NON_DIGITS.finditer(part.lstrip("+("))][: len(digits) - 1]


def _seven_shape(part: str, digits: list[str]) -> bool:
    """Seven digits written as local numbers are: ``555 0123``, ``283 01 66``, ``913-90-99``;
    not ``123-4567``, which is as often a Japanese postal code."""
    sizes = [len(d) for d in digits]
    if sizes not in ([3, 4], [3, 2, 2]) or not part[:1].isdigit():
        return False
    seps = _separators(part, digits)
    if sizes == [3, 4] and seps[0] != " ":
        return False
    return seps[0] in (" ", "-") and len(set(seps)) == 1


def _country_in_parentheses(part: str) -> bool:
    """A country code written in parentheses without ``+``: ``(351) 911860913``."""
    close = part.find(")")
    if not part.startswith("(") or not 2 <= close <= 4:
        return False
    number = _NON_DIGITS.sub("", part)
    return len(number) >= 10 and _valid_international(number)


def _national_shape(part: str, digits: list[str]) -> bool:
    """Whether a number without a country code is written the way phone numbers are."""
    count = len(digits)
    if count == 1:
        number = digits[0]
        if len(number) == 10 and number[0] == "1":
            return False  # a Unix time in seconds (2001-2033); no NANP number starts with 1
        return len(number) <= 12 and len(set(number)) > 2
    seps = _separators(part, digits)
    sizes = [len(d) for d in digits]
    if count >= 3 and len(set(seps)) == 1 and set(sizes[:-1]) == {4} and sizes[-1] < 4:
        return True  # 8613-1234-5580-4: regrouped in fours, a shorter tail
    if min(sizes[1:]) < 2 or max(sizes) > (10 if _trunk_then_long(digits) else 8):
        return False
    if any("." in s for s in seps):
        if count < 3 or min(sizes) < 2:
            return False
        if sizes[0] <= 3 and set(sizes[1:]) == {3} and set(seps) == {"."}:
            return False  # 123.456.789 Euro: an amount with dots for thousands
        if count == 4 and all(len(d) <= 3 and int(d) <= 255 for d in digits):
            return False  # an IPv4 address
    if _date_like(digits, seps):
        return False
    if sizes in ([3, 2, 4], [5, 4]) and all(s == "-" for s in seps):
        return False  # an SSN's shape, a ZIP+4 code
    return not (count == 2 and sizes[0] == 4 and _YEAR.fullmatch(digits[0]))


def _trunk_then_long(digits: list[str]) -> bool:
    """A trunk prefix and area code, then the rest in one long group: ``01 234567890``."""
    return len(digits) == 2 and digits[0][0] == "0" and 2 <= len(digits[0]) <= 5


def _regrouped(chunks: list[str], separators: str) -> bool:
    """A number split into equal chunks over lines, cells, tabs, commas or space runs."""
    if len(chunks) < 2:
        return False
    size = len(chunks[1]) if len(chunks) > 2 else len(chunks[0])
    if not 3 <= size <= 6 or len(chunks[0]) > size or any(len(c) != size for c in chunks[1:-1]):
        return False  # the first chunk may be shorter: "+44 | 7700 | ..."
    if len(chunks[-1]) > size:
        return False
    if (
        all(c.isdigit() and len(c) == 3 for c in chunks)
        # 077,122,195: no amount is written with a leading zero
        and (("," in separators and chunks[0][0] != "0") or all(c.endswith("0") for c in chunks))
    ):
        return False  # 123,456,789: thousands; 100 | 200 | 300: a column of amounts
    return sum(1 for c in chunks if _YEAR.fullmatch(c)) < 2


def _date_like(digits: list[str], seps: list[str]) -> bool:
    if _dated_groups(digits):
        return True
    for i in range(len(digits) - 2):
        a, b, c = digits[i : i + 3]
        if seps[i] != seps[i + 1]:
            continue
        if len(a) == 4 and _YEAR.fullmatch(a) and len(b) <= 2 and len(c) <= 2:
            return True
        if len(c) == 4 and _YEAR.fullmatch(c) and len(a) <= 2 and len(b) <= 2:
            return True
    return False


def _month_day(group: str) -> bool:
    """``MMDD``: a month 01-12 and a day 01-31."""
    return "01" <= group[:2] <= "12" and "01" <= group[2:] <= "31"


def _clock(group: str) -> bool:
    """``HHMM`` or ``HHMMSS``: an hour 00-23, minutes (and seconds) 00-59."""
    return group[:2] <= "23" and all(group[i : i + 2] <= "59" for i in range(2, len(group), 2))


def _dated_groups(digits: list[str]) -> bool:
    """A date and time written in digit groups: a year then ``MMDD`` (``2026 1202 1430``),
    or ``YYYYMMDD`` then ``HHMM`` or ``HHMMSS`` (``20261202 143000``); decision 0391."""
    first = digits[0]
    if len(first) == 4 and len(digits) >= 2 and _YEAR.fullmatch(first):
        return len(digits[1]) == 4 and _month_day(digits[1])
    if len(first) == 8 and len(digits) >= 2 and _YEAR.fullmatch(first[:4]):
        return _month_day(first[4:]) and len(digits[1]) in (4, 6) and _clock(digits[1])
    return False


# -- phonenumbers' metadata -------------------------------------------------------------------

_TYPES = (
    "fixed_line", "mobile", "toll_free", "premium_rate", "shared_cost", "personal_number",
    "voip", "pager", "uan", "voicemail",
)  # fmt: skip


def _region_valid(region: str) -> str | None:
    """A region's valid national numbers (every number type), its national prefix allowed
    before them, as one pattern's source (``None``: no metadata)."""
    from phonenumbers import PhoneMetadata

    meta: Any = (
        PhoneMetadata.metadata_for_region(region)
        if not region.isdigit()
        else PhoneMetadata.metadata_for_nongeo_region(int(region))
    )
    if meta is None:
        return None
    patterns = [
        desc.national_number_pattern
        for desc in (getattr(meta, name, None) for name in _TYPES)
        if desc is not None and desc.national_number_pattern
    ]
    if not patterns:
        return None
    prefix = f"(?:{re.escape(meta.national_prefix)})?" if meta.national_prefix else ""
    return prefix + "(?:" + "|".join(f"(?:{p})" for p in patterns) + ")"


@cache
def _country_shape(code: int) -> re.Pattern[str] | None:
    """Every valid national number of the regions sharing country code ``code``, perhaps led
    by their national prefix (``+44 (0)20 ...``) and followed by one or two glued digits: one
    pattern, so a number is judged with one match, not one per region and number type."""
    from phonenumbers import COUNTRY_CODE_TO_REGION_CODE

    sources = [
        source
        for region in COUNTRY_CODE_TO_REGION_CODE.get(code, ())
        if (source := _region_valid(region if region != "001" else str(code))) is not None
    ]
    if not sources:
        return None
    return re.compile("(?=[0-9]{4})(?:" + "|".join(sources) + ")[0-9]{0,2}")


def _has_country_code(number: str) -> bool:
    from phonenumbers import COUNTRY_CODE_TO_REGION_CODE

    return any(int(number[:size]) in COUNTRY_CODE_TO_REGION_CODE for size in (1, 2, 3))


@lru_cache(maxsize=8192)
def _valid_international(number: str) -> bool:
    """``+<number>`` fits a number pattern of its country (or does with 1-2 digits less:
    a digit written right after it)."""
    for size in (1, 2, 3):
        shape = _country_shape(int(number[:size]))
        if shape is not None and shape.fullmatch(number, size) is not None:
            return True
    return False


@lru_cache(maxsize=4096)
def _valid_in_regions(part: str, regions: tuple[str, ...]) -> bool:
    import phonenumbers

    for region in regions:
        try:
            if phonenumbers.is_valid_number(phonenumbers.parse(part, region)):
                return True
        except Exception:  # not a number of this region
            continue
    return False
