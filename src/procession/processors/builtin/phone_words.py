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

_CJK_PHONE_WORDS = ("电话", "電話", "手机", "手機", "携帯", "電話番号", "전화", "휴대폰", "☎", "📞")

_PHONE_LABEL_END = re.compile(
    r"(?:(?<![^\W\d_])(?:"
    + "|".join(sorted(map(re.escape, PHONE_WORDS), key=len, reverse=True))
    + r")(?![^\W\d_])|"
    + "|".join(_CJK_PHONE_WORDS)
    + r")[^\d\n]{0,24}\Z",
    re.IGNORECASE,
)


def phone_label_before(text: str, start: int) -> bool:
    """Whether a word naming a phone number ends at most 24 characters (no digit, no line
    break between) before ``start``."""
    return _PHONE_LABEL_END.search(text, max(0, start - 40), start) is not None


def phone_label_start(text: str, start: int, offset: int = 0) -> int:
    """``start`` moved back over a word naming a phone number right before it (see
    :func:`phone_label_before`), so that a stream holds the word with its number."""
    if start - offset < 3:
        return start
    found = _PHONE_LABEL_END.search(text, max(offset, start - 40), start)
    return found.start() if found is not None else start
