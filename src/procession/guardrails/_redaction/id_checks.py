"""National ids ``python-stdnum`` has no module for, and id shapes told by their grouping.

:mod:`~procession.guardrails._redaction.national_ids` reads digit runs; the checks here add
(decision 0327):

* the Algerian national identification number (NIN): 18 digits, nationality ``1`` or ``2``,
  sex ``0`` or ``1``, three digits of the birth year, the commune code led by its wilaya
  ``01``-``58``, the act and register numbers, and a two-digit key (a modified Luhn sum over
  the first 16 digits); one random number of 18 digits in 4,000 has that shape;
* the Philippine social-security numbers, which have no check digit but a grouping no other
  number is written in: UMID ``4-7-1``, SSS ``2-7-1`` and PhilHealth ``2-9-1``, with dashes;
* the Thai personal number grouped ``1-4-5-2-1`` (its check digit is ``python-stdnum``'s);
* the Venezuelan *cédula*: ``V-`` or ``E-`` and seven or eight digits, perhaps grouped by
  dots in thousands (``V-12.345.678``).
"""

from __future__ import annotations

__all__ = [
    "CEDULA_PATTERN",
    "CEDULA_SKETCH",
    "cedula_length",
    "dz_nin",
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
