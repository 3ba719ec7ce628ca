"""Words naming a phone number: seven digits right after one are read as a phone number.

Seven digits alone are too common to be a phone number by their look (``1234567`` is an
order, a count, a row of a table): only the ways seven-digit local numbers are grouped
(``555-1234``, ``283 01 66``) are read as phones without a word. After a word naming a
phone number (``Tel.``, ``phone number is``, ``Telefonnummer``, ``电话``, ``전화번호`` ...)
with no digit between, any writing of seven or more digits is.
"""

from __future__ import annotations

import re

__all__ = ["PHONE_WORDS", "phone_label_before", "phone_label_start"]

PHONE_WORDS: tuple[str, ...] = (
    "tel", "tél", "tlf", "tfn", "phone", "telephone", "téléphone", "telefon", "telefono",
    "teléfono", "telefone", "telefonnummer", "rufnummer", "handy", "mobile", "mobil",
    "móvil", "movil", "cell", "cellphone", "portable", "celular", "fax", "whatsapp",
    "телефон", "тел", "моб", "هاتف", "جوال", "טלפון", "τηλ", "τηλέφωνο", "puhelin", "telefoon",
    "handynummer", "mobilnummer", "telefonnr", "phonenumber",
)  # fmt: skip
"""Latin, Cyrillic, Arabic, Hebrew and Greek words naming a phone number (case folded)."""

_CJK_PHONE_WORDS = ("电话", "電話", "手机", "手機", "携帯", "전화", "휴대폰", "☎", "📞")
_WORDS = frozenset(PHONE_WORDS)
_LETTERS = re.compile(r"[^\W\d_]+")
_BREAKS = re.compile(r"[\d\n]")
_REACH = 24
"""How far before a number a phone word may end (``phone number is ``, ``lautet ``)."""


def phone_label_start(text: str, start: int, offset: int = 0) -> int:
    """Where a word naming a phone number starts that ends at most 24 characters before
    ``start`` with no digit or line break between (``start``: none), so that a stream holds
    the word with its number and the detector reads both."""
    low = max(offset, start - 40)
    window = text[low:start]
    last = _BREAKS.split(window)[-1]  # after the last digit or line break
    base = start - len(last)
    if len(last) > _REACH:
        cut = len(last) - _REACH - 16  # a word may start before the reach and end in it
        base += max(0, cut)
        last = last[max(0, cut) :]
    found = start
    for word in _LETTERS.finditer(last):
        if len(last) - word.end() <= _REACH and word.group().casefold() in _WORDS:
            return base + word.start()
    for cjk in _CJK_PHONE_WORDS:
        at = last.find(cjk)
        if at >= 0 and len(last) - at - len(cjk) <= _REACH:
            found = min(found, base + at)
    return found


def phone_label_before(text: str, start: int) -> bool:
    """Whether a word naming a phone number ends at most 24 characters (no digit, no line
    break between) before ``start``."""
    return phone_label_start(text, start) < start
