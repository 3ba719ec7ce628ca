"""Checks of constructor arguments and call options in ``procession.memory`` (D35).

Each raises :class:`~procession.errors.ConfigurationError` naming the owner, the argument,
the value and what is expected. A ``bool`` is never taken for an int or a number, and nothing
but a ``bool`` is taken for a flag.
"""

from __future__ import annotations

import math

from procession.errors import ConfigurationError

__all__ = ["flag", "integer", "number", "optional_integer"]


def _fail(owner: str, name: str, expected: str, value: object) -> ConfigurationError:
    note = " (a bool is not accepted here)" if isinstance(value, bool) else ""
    return ConfigurationError(f"{owner}: {name} must be {expected} (got {value!r}){note}")


def flag(owner: str, name: str, value: object) -> bool:
    """``value`` when it is a ``bool``."""
    if not isinstance(value, bool):
        raise _fail(owner, name, "a bool (True or False)", value)
    return value


def integer(owner: str, name: str, value: object, minimum: int, maximum: int | None = None) -> int:
    """``value`` when it is an int (not a bool) of at least ``minimum`` (at most ``maximum``)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < minimum
        or (maximum is not None and value > maximum)
    ):
        bounds = f">= {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise _fail(owner, name, f"an int {bounds}", value)
    return value


def optional_integer(owner: str, name: str, value: object, minimum: int) -> int | None:
    """``None``, or an int (not a bool) of at least ``minimum``."""
    return None if value is None else integer(owner, name, value, minimum)


def number(owner: str, name: str, value: object, low: float, high: float = math.inf) -> float:
    """``value`` when it is a finite int or float (not a bool) in ``[low, high]``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        bounds = f">= {low:g}" if high == math.inf else f"between {low:g} and {high:g}"
        raise _fail(owner, name, f"a number {bounds}", value)
    return float(value)
