"""National ids ``python-stdnum`` has no module for, and id shapes told by their grouping.

:mod:`~procession.guardrails._redaction.national_ids` reads digit runs; the checks here add
(decision 0327):

* the Algerian national identification number (NIN): 18 digits, nationality ``1`` or ``2``,
  sex ``0`` or ``1``, three digits of the birth year, the commune code led by its wilaya
  ``01``-``58``, the act and register numbers, and a two-digit key (a modified Luhn sum over
  the first 16 digits); one random number of 18 digits in 4,000 has that shape;
* the Philippine social-security numbers, which have no check digit but a grouping no other
  number is written in: UMID ``4-7-1``, SSS ``2-7-1`` and PhilHealth ``2-9-1``, with dashes;
* the Thai personal number grouped ``1-4-5-2-1`` (its check digit is ``python-stdnum``'s),
  and written as one token of 13 digits when its person category, province and district
  codes are plausible and it is neither an EAN-13 barcode nor a millisecond time of
  2010-2030 (decision 0390);
* the Venezuelan *cédula*: ``V-`` or ``E-`` and seven or eight digits, perhaps grouped by
  dots in thousands (``V-12.345.678``).
"""

from __future__ import annotations

__all__ = [
    "CEDULA_PATTERN",
    "CEDULA_SKETCH",
    "cedula_length",
    "dz_nin",
    "bare_thai_pin",
    "grouped_like_thai_pin",
    "shaped_id",
]


def dz_nin(digits: str) -> bool:
    """Whether 18 ``digits`` are an Algerian NIN (shape and key, as the module says)."""
    if len(digits) != 18 or not digits.isdigit():
        return False
    if digits[0] not in "12" or digits[1] not in "01" or not "01" <= digits[5:7] <= "58":
        return False
    total = 0
    for position, char in enumerate(reversed(digits[:16])):
        value = int(char) * (2 if position % 2 else 1)
        total += value - 9 if value > 9 else value
    return digits[16:] == f"{-total % 10:02d}"


_DASHED_SHAPES = frozenset(((4, 7, 1), (2, 7, 1), (2, 9, 1)))
"""UMID, SSS and PhilHealth numbers of the Philippines, written with dashes."""


def shaped_id(sizes: list[str], seps: list[str]) -> bool:
    """Whether digit groups ``sizes`` apart by ``seps`` are a Philippine UMID, SSS or
    PhilHealth number: its grouping, dashes between (no check digit to ask for)."""
    return (
        len(sizes) == 3
        and seps == ["-", "-"]
        and (len(sizes[0]), len(sizes[1]), len(sizes[2])) in _DASHED_SHAPES
    )


def grouped_like_thai_pin(sizes: list[int]) -> bool:
    """Whether group sizes are the Thai personal number's ``1-4-5-2-1``."""
    return sizes == [1, 4, 5, 2, 1]


_MS_2010, _MS_2030 = 1_262_304_000_000, 1_893_456_000_000
"""Unix times in milliseconds of 2010-01-01 and 2030-01-01: a 13-digit token between them is
read as a time (logs, JSON ``createdAt``), whatever its Thai check digit says."""


def bare_thai_pin(digits: str) -> bool:
    """Whether 13 ``digits`` written as one token are a Thai personal number: its check digit
    (``stdnum.th.pin``), a person category ``1``-``8``, a province code ``10``-``96`` and a
    district code ``01``-``50``; not a valid EAN-13 (one Thai number in ten is, and product
    codes are written bare) nor a millisecond time of 2010-2030. About one random 13-digit
    number in 30 passes, against one in eleven for the check digit alone."""
    if len(digits) != 13 or digits[0] not in "12345678":
        return False
    if not ("10" <= digits[1:3] <= "96" and "01" <= digits[3:5] <= "50"):
        return False
    if _MS_2010 <= int(digits) < _MS_2030:
        return False
    from stdnum import ean
    from stdnum.th import pin

    return bool(pin.is_valid(digits)) and not ean.is_valid(digits)


CEDULA_PATTERN = (
    r"[VE](?<![A-Za-z0-9][VE])-(?:[1-9][0-9]{6,7}|[1-9][0-9]?\.[0-9]{3}\.[0-9]{3})"
    r"(?![0-9A-Za-z])(?!\.[0-9])(?!,[0-9])"
)
"""A Venezuelan cédula: ``V-`` or ``E-``, seven or eight digits (or in dotted thousands)."""
CEDULA_SKETCH = r"-[1-9][0-9.]{3}"
"""What follows the cédula's letter: the capital family's combined pass."""


def cedula_length(text: str) -> int:
    """The validator of :data:`CEDULA_PATTERN`: its whole length (the pattern is the rule)."""
    return len(text)
