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
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "DEFAULT_PHONE_REGIONS",
    "clear_validation_cache",
    "DIGITS6",
    "DETECTORS",
    "MATCHING_TABLE",
    "OFFLINE_TYPES",
    "Detection",
    "Detector",
    "detectors_for",
    "matching_text",
    "phone_validator",
]

DIGITS6 = r"[0-9](?:[ .\-()/]{0,2}[0-9]){5}"
"""Six digits, perhaps separated: the trigger of most number-shaped detectors."""

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
    absent from the text are not run."""
    min_digits: int = 0
    """How many ASCII digits every match holds: a text with fewer is not searched."""
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern))
        if not self.placeholder:
            object.__setattr__(self, "placeholder", f"[{self.type.upper().replace('-', '_')}]")

    def find(self, text: str, pos: int = 0, endpos: int | None = None) -> list[Detection]:
        """Validated matches in ``text`` (the matching copy) starting in ``[pos, endpos)``."""
        limit = len(text) if endpos is None else endpos
        compiled = self.compiled
        first = compiled.search(text, pos)
        if first is None or first.start() >= limit:
            return []
        out: list[Detection] = []
        validate = self.validate
        for match in compiled.finditer(text, first.start()):
            start = match.start()
            if start >= limit:
                break
            end = match.end()
            if validate is not None:
                length = validate(match.group())
                if length <= 0:
                    continue
                end = start + length
            out.append(Detection(self.type, start, end, text[start:end]))
        return out


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
    return table


MATCHING_TABLE: dict[int, str] = _matching_table()
"""``str.translate`` table for the matching copy: one character for one (offsets stay)."""


def matching_text(text: str) -> str:
    """The copy of ``text`` detectors run on (same length, same offsets)."""
    return text if text.isascii() else text.translate(MATCHING_TABLE)


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


_CARD_SEPARATORS = re.compile(r"  |[ .\-]")


def _card(text: str) -> int:
    digits = _compact(text)
    if not 13 <= len(digits) <= 19 or digits[0] not in "23456" or not _luhn_ok(digits):
        return 0
    groups = _CARD_SEPARATORS.split(text)
    if len(groups) > 1 and min(len(g) for g in groups) < 3:  # "4 1 1 1 ..." is not a card
        return 0
    return len(text)


def _ssn(text: str) -> int:
    from stdnum.us import ssn

    digits = _compact(text)
    return len(text) if ssn.is_valid(f"{digits[:3]}-{digits[3:5]}-{digits[5:]}") else 0


def _iban(text: str) -> int:
    from stdnum import iban

    for length in _groups_prefixes(text):
        candidate = text[:length].upper()
        if len(_compact(candidate)) >= 15 and iban.is_valid(candidate):
            return length
    return 0


def _bitcoin(text: str) -> int:
    from stdnum import bitcoin

    return len(text) if bitcoin.is_valid(text) else 0


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
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return 0
    if address.version == 6 and (
        ("::" not in text and text.count(":") != 7) or sum(c not in ":" for c in text) < 3
    ):
        return 0
    return len(text)


DEFAULT_PHONE_REGIONS: tuple[str, ...] = (
    "US", "GB", "CN", "TW", "HK", "JP", "KR", "SG", "IN", "DE", "FR", "ES", "IT", "BR", "AU",
)  # fmt: skip
"""Regions a phone number without a ``+`` country code is checked against."""

_DATE_LIKE = re.compile(
    r"(?:19|20)[0-9]{2}[ .\-/][0-9]{1,2}[ .\-/][0-9]{1,2}"
    r"|[0-9]{1,2}[ .\-/][0-9]{1,2}[ .\-/](?:19|20)[0-9]{2}"
)
_GROUPS = re.compile(r"[0-9]+")
_DASHED = re.compile(r"[\-()]")
_DOTTED = re.compile(r"\(?[0-9]{3}\)?\.[0-9]{3}\.[0-9]{4}")


def _phone_shape(candidate: str, international: bool) -> bool:
    """Whether ``candidate`` is written the way phone numbers are written."""
    if _DATE_LIKE.search(candidate):
        return False
    if "." in candidate and not _DOTTED.fullmatch(candidate):
        return False
    groups = [len(g) for g in _GROUPS.findall(candidate)]
    if international:  # +81 3-1234-5678: a one-digit area code after the country code
        return len(groups) <= 2 or min(groups[2:]) >= 2
    if len(groups) > 3 and groups[0] == 1 and candidate[0] == "1":  # 1-800-917-4108
        groups = groups[1:]
    if len(groups) < 2 or min(groups) < 2 or max(groups) > 4 or sum(groups) < 8:
        return False
    if groups == [3, 2, 4]:  # 536-90-4399 is written as an SSN
        return False
    if groups[-1] < 3 and len(groups) < 4:  # 1341-3013-42 is a reference, 91 728 54 56 not
        return False
    return not (groups[0] == 4 and candidate[:2] in ("19", "20") and len(groups) == 2)


def phone_validator(regions: Sequence[str] = DEFAULT_PHONE_REGIONS) -> Validator:
    """A validator for phone candidates, checking numbers without ``+`` against ``regions``.

    Numbers must be written the way people write phone numbers: with a ``+``/``00`` country
    code, or in groups of two to four digits separated by spaces, dashes or parentheses (dots
    only as ``415.555.0100``); a bare run of digits is an order number or an id far more
    often than a phone number. Dates are rejected. A number followed by an unrelated number
    (``415-555-0100 24``) is cut back only when its own separators are not plain spaces.
    """
    region_list = tuple(regions)

    def validate(text: str) -> int:
        import phonenumbers

        for length in _groups_prefixes(text):
            candidate = text[:length]
            if length < len(text) and (
                text[length] != " "
                or not (candidate.startswith(("+", "00")) or _DASHED.search(candidate))
            ):
                continue  # "9400 2953 7744 0640" is not a phone number and a tail
            digits = _compact(candidate).lstrip("+")
            if not 7 <= len(digits) <= 15:
                continue
            international = candidate.startswith(("+", "00"))
            if not _phone_shape(candidate, international):
                continue
            if _valid_phone(phonenumbers, candidate, international, region_list):
                return length
        return 0

    return validate


@lru_cache(maxsize=4096)
def _valid_phone(
    phonenumbers: object, candidate: str, international: bool, regions: tuple[str, ...]
) -> bool:
    """Whether ``candidate`` is a valid number (cached: a conversation repeats its numbers)."""
    parse = phonenumbers.parse  # type: ignore[attr-defined]
    is_valid = phonenumbers.is_valid_number  # type: ignore[attr-defined]
    if international:
        text = "+" + candidate[2:] if candidate.startswith("00") else candidate
        try:
            return bool(is_valid(parse(text, None)))
        except Exception:
            return False
    for region in regions:
        try:
            if is_valid(parse(candidate, region)):
                return True
        except Exception:
            continue
    return False


def clear_validation_cache() -> None:
    """Forget cached phone-number verdicts (for benchmarks that replay the same numbers)."""
    _valid_phone.cache_clear()


# -- the built-in detectors -------------------------------------------------------------------


def literal_prefix(word: str) -> str:
    """A regex matching every non-empty prefix of ``word`` (``abc`` -> ``a(?:b(?:c)?)?``)."""
    out = ""
    for char in reversed(word):
        out = re.escape(char) + (f"(?:{out})?" if out else "")
    return out


_NO_DIGIT_BEFORE = r"(?<![0-9])(?<![0-9][ .\-])(?<![0-9]  )"
_TOKEN = r"A-Za-z0-9_\-"
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
    r"|client[_\-]?secret|aws_secret_access_key|password|passwd"
)
_VALUE = r"[A-Za-z0-9_\-./+=~!@#$%^&*]"
_ASSIGNED_WORDS = (
    "api_key", "api-key", "apikey", "api_secret", "api-secret", "secret_key", "secret-key",
    "access_token", "access-token", "auth_token", "auth-token", "client_secret",
    "client-secret", "aws_secret_access_key", "password", "passwd",
)  # fmt: skip


def _any_prefix(words: Sequence[str]) -> str:
    return "|".join(literal_prefix(w) for w in words)


def _built_in() -> dict[str, tuple[Detector, ...]]:
    """Every built-in detector type, by name."""
    return {**_personal(), **_secrets(), **_network(), "national-id": _national_ids()}


def _personal() -> dict[str, tuple[Detector, ...]]:
    card = Detector(
        "credit-card",
        _NO_DIGIT_BEFORE + r"[0-9](?:(?:  |[ .\-])?[0-9]){12,18}(?![0-9])(?!(?:  |[ .\-])[0-9])",
        _NO_DIGIT_BEFORE + r"[0-9][0-9 .\-]{0,55}\Z",
        _card,
        min_digits=13,
    )
    email = Detector(
        "email",
        r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@(?:[A-Za-z0-9\-]{1,63}\.){1,30}"
        r"[A-Za-z]{2,24}(?![A-Za-z0-9\-])(?!\.[A-Za-z0-9])",
        r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}(?:@[A-Za-z0-9.\-]{0,253})?\Z",
        continuation=r"[A-Za-z0-9._%+\-@]*",
        trigger="@",
    )
    ssn = Detector(
        "ssn",
        _NO_DIGIT_BEFORE + r"[0-9]{3}(?:-[0-9]{2}-| [0-9]{2} |\.[0-9]{2}\.)[0-9]{4}"
        r"(?![0-9])(?![ .\-][0-9])",
        _NO_DIGIT_BEFORE + r"[0-9]{1,3}(?:[ .\-](?:[0-9]{1,2}(?:[ .\-][0-9]{0,4})?)?)?\Z",
        _ssn,
        min_digits=9,
    )
    phone = Detector(
        "phone",
        r"(?<![0-9A-Za-z+])(?<![0-9][ .\-])(?:\+|00)?\(?[0-9][0-9 .\-()]{5,22}[0-9]\)?"
        r"(?![0-9])",
        r"(?<![0-9A-Za-z+])(?<![0-9][ .\-])[+(0-9][0-9 .\-()]{0,26}\Z",
        phone_validator(),
        min_digits=7,
    )
    return {"credit-card": (card,), "email": (email,), "ssn": (ssn,), "phone": (phone,)}


def _secrets() -> dict[str, tuple[Detector, ...]]:
    keys = Detector(
        "api-key",
        f"(?<![{_TOKEN}])(?:{'|'.join(_KEY_SHAPES)})",
        f"(?<![{_TOKEN}])(?:(?:{_any_prefix(_KEY_PREFIXES)})|"
        rf"(?:{'|'.join(re.escape(p) for p in _KEY_PREFIXES)})[A-Za-z0-9_\-.]*)\Z",
        continuation=r"[A-Za-z0-9_\-.]*",
        placeholder="[API_KEY]",
        trigger=r"[\-_.]|AIza",
    )
    assigned = Detector(
        "api-key",
        rf"(?i:(?<![A-Za-z0-9_])(?:{_ASSIGNED})[\"']?[ \t]{{0,3}}[:=][ \t]{{0,3}}[\"']?)"
        r"[A-Za-z0-9_\-./+=~!@#$%^&*]{8,}",
        rf"(?i:(?<![A-Za-z0-9_])(?:{_any_prefix(_ASSIGNED_WORDS)}"
        rf"|(?:{_ASSIGNED})[\"']?[ \t]{{0,3}}(?:[:=][ \t]{{0,3}}[\"']?{_VALUE}*)?))\Z",
        continuation=r"[A-Za-z0-9_\-./+=~!@#$%^&*]*",
        placeholder="[API_KEY]",
        trigger="[:=]",
    )
    aws = Detector(
        "aws-key",
        r"(?<![A-Za-z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}(?![A-Za-z0-9])",
        r"(?<![A-Za-z0-9])(?:A(?:[KSGIRN](?:[A-Z](?:[A-Z][A-Z0-9]{0,16})?)?)?)\Z",
        trigger="A[KSGIRN]",
    )
    bearer = Detector(
        "bearer-token",
        r"(?<![A-Za-z0-9])[Bb]earer[ \t]{1,8}[A-Za-z0-9_\-.=~+/]{16,}",
        rf"(?<![A-Za-z0-9])(?:{_any_prefix(['Bearer', 'bearer'])}"
        r"|[Bb]earer[ \t]{1,8}[A-Za-z0-9_\-.=~+/]*)\Z",
        continuation=r"[A-Za-z0-9_\-.=~+/]*",
        trigger="earer",
    )
    jwt = Detector(
        "jwt",
        r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        r"(?<![A-Za-z0-9_\-])(?:e(?:y(?:J[A-Za-z0-9_\-.]*)?)?)\Z",
        continuation=r"[A-Za-z0-9_\-.]*",
        trigger="eyJ",
    )
    private_key = Detector(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY-----[A-Za-z0-9+/=\s]*",
        rf"(?:{literal_prefix('-----BEGIN ')}|-----BEGIN (?:[A-Z0-9]+ ){{0,3}}"
        rf"(?:[A-Z0-9]*|(?:{literal_prefix('PRIVATE KEY-----')})"
        r"|PRIVATE KEY-----[A-Za-z0-9+/=\s]*))\Z",
        continuation=r"[A-Za-z0-9+/=\s]*",
        trigger="-----BEGIN",
    )
    return {
        "api-key": (keys, assigned),
        "aws-key": (aws,),
        "bearer-token": (bearer,),
        "jwt": (jwt,),
        "private-key": (private_key,),
    }


def _network() -> dict[str, tuple[Detector, ...]]:
    url = Detector(
        "url",
        rf"(?<![A-Za-z0-9])(?i:https?://|ftp://|www\.){_URL_CHARS}*[A-Za-z0-9/#=_\-~&%+]",
        rf"(?<![A-Za-z0-9])(?i:{_any_prefix(['https://', 'ftp://', 'www.'])}"
        rf"|(?:https?://|ftp://|www\.){_URL_CHARS}*)\Z",
        continuation=f"{_URL_CHARS}*",
        trigger=r"://|(?i:www\.)",
    )
    ipv4_octet = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
    ipv4 = Detector(
        "ip-address",
        rf"(?<![0-9A-Za-z.])(?:{ipv4_octet}\.){{3}}{ipv4_octet}(?![0-9])(?!\.[0-9])",
        r"(?<![0-9A-Za-z.])[0-9]{1,3}(?:\.[0-9]{0,3}){0,3}\Z",
        trigger=r"[0-9]\.[0-9]{1,3}\.[0-9]",
    )
    ipv6 = Detector(
        "ip-address",
        r"(?<![0-9A-Za-z:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![0-9A-Za-z:])",
        r"(?<![0-9A-Za-z:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){0,7}\Z",
        _ip,
        trigger="::|:.*:",
    )
    uuid = Detector(
        "uuid",
        r"(?<![0-9A-Za-z\-])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
        r"[0-9A-Fa-f]{12}(?![0-9A-Za-z\-])",
        r"(?<![0-9A-Za-z\-])[0-9A-Fa-f][0-9A-Fa-f\-]{0,35}\Z",
        trigger="[0-9A-Fa-f]{8}-",
    )
    wallets = (
        Detector(
            "crypto-wallet",
            r"(?<![A-Za-z0-9])0x[0-9a-fA-F]{40}(?![0-9A-Za-z])",
            r"(?<![A-Za-z0-9])0(?:x[0-9a-fA-F]{0,40})?\Z",
            trigger="0x",
        ),
        Detector(
            "crypto-wallet",
            r"(?<![A-Za-z0-9])(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[02-9ac-hj-np-z]{11,71})"
            r"(?![A-Za-z0-9])",
            r"(?<![A-Za-z0-9])(?:[13][1-9A-HJ-NP-Za-km-z]{0,34}|b(?:c(?:1[02-9ac-hj-np-z]{0,71})?)?)\Z",
            _bitcoin,
            trigger="[13][1-9A-HJ-NP-Za-km-z]{25}|bc1",
        ),
    )
    iban = Detector(
        "iban",
        r"(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?:[ \-]?[A-Z0-9]){11,30}",
        r"(?<![A-Za-z0-9])(?:[A-Z]{1,2}|[A-Z]{2}[0-9]{1,2}|[A-Z]{2}[0-9]{2}[A-Z0-9 \-]{0,44})\Z",
        _iban,
    )
    return {
        "url": (url,),
        "ip-address": (ipv4, ipv6),
        "uuid": (uuid,),
        "crypto-wallet": wallets,
        "iban": (iban,),
    }


_ID_DIGITS = r"[0-9]{6}|[0-9]{3,4}[ .\-][0-9]{3,4}[ .\-][0-9]{3,4}|[0-9]{2} [0-9]{2} [0-9]{2}"
"""What every national-id shape but the Italian one holds."""


def _national_ids() -> tuple[Detector, ...]:
    def shape(
        pattern: str, prefix: str, validate: Validator, trigger: str = _ID_DIGITS
    ) -> Detector:
        return Detector(
            "national-id",
            pattern,
            prefix,
            validate,
            placeholder="[NATIONAL_ID]",
            trigger=trigger,
            min_digits=6,  # every shape holds at least six digits
        )

    digits_prefix = r"(?<![0-9A-Za-z])[0-9][0-9 .\-]{0,17}[A-Za-z]?\Z"
    letters_prefix = (
        r"(?<![A-Za-z0-9])(?:[A-Za-z]{1,6}[0-9A-Za-z()]{0,11}"
        r"|[A-Za-z]{2} ?(?:[0-9]{1,2} ?){0,3}[A-Da-d]?)\Z"
    )
    return (
        shape(
            r"(?<![0-9A-Za-z])[1-9][0-9]{16}[0-9Xx](?![0-9A-Za-z])",
            digits_prefix,
            _stdnum("cn.ric"),
        ),
        shape(r"(?<![0-9])[0-9]{6}-[0-9]{7}(?![0-9])", digits_prefix, _stdnum("kr.rrn")),
        shape(
            r"(?<![0-9])(?<![0-9][ \-])[2-9][0-9]{3}(?: [0-9]{4} |-[0-9]{4}-)[0-9]{4}"
            r"(?![0-9])(?![ \-][0-9])",
            digits_prefix,
            lambda t: _stdnum("in_.aadhaar")(t) or _stdnum("jp.in_")(t),
        ),
        shape(
            r"(?<![A-Za-z0-9])[0-9]{8}-?[A-Za-z](?![A-Za-z0-9])", digits_prefix, _stdnum("es.dni")
        ),
        shape(
            r"(?<![0-9])[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}(?![0-9])",
            digits_prefix,
            _stdnum("br.cpf"),
        ),
        shape(
            r"(?<![0-9])[0-9]{3}(?: [0-9]{3} |-[0-9]{3}-)[0-9]{3}(?![0-9])(?![ \-][0-9])",
            digits_prefix,
            _stdnum("ca.sin"),
        ),
        shape(
            r"(?<![A-Za-z0-9])[A-Za-z]{6}[0-9]{2}[A-Za-z][0-9]{2}[A-Za-z][0-9]{3}[A-Za-z]"
            r"(?![A-Za-z0-9])",
            letters_prefix,
            _stdnum("it.codicefiscale"),
            trigger="[0-9]{2}[A-Za-z][0-9]{2}[A-Za-z][0-9]{3}",
        ),
        shape(r"(?<![A-Za-z0-9])[A-Z]{1,2}[0-9]{6}\([0-9A]\)", letters_prefix, _hkid),
        shape(r"(?<![A-Za-z0-9])[A-Z][12][0-9]{8}(?![A-Za-z0-9])", letters_prefix, _twid),
        shape(
            r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
            r"(?:[0-9]{6}|(?: [0-9]{2}){3} )[A-D](?![A-Za-z0-9])",
            letters_prefix,
            lambda text: len(text),
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
                detector = Detector(
                    detector.type,
                    detector.pattern,
                    detector.prefix,
                    phone_validator(phone_regions),
                    min_digits=detector.min_digits,
                )
            out.append(detector)
    return tuple(out)
