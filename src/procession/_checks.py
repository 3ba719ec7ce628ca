"""Checking public arguments when they are given (D35).

Each check raises a :class:`~procession.errors.ConfigurationError` naming the argument, the
value and what was expected. A ``bool`` is never accepted where an int is expected, and nothing
but a ``bool`` where a flag is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from procession.errors import ConfigurationError, short_repr

__all__ = [
    "check_callable",
    "check_flag",
    "check_int",
    "check_mapping",
    "check_optional_int",
    "check_seconds",
    "check_type",
    "wrong",
]


def wrong(name: str, value: object, expected: str) -> ConfigurationError:
    """The error for argument ``name`` holding ``value`` instead of ``expected``."""
    return ConfigurationError(f"{name}: expected {expected}, got {short_repr(value)}")


def check_int(name: str, value: object, *, minimum: int) -> int:
    """An int (not a bool) of at least ``minimum``."""
    if type(value) is not int or value < minimum:
        raise wrong(name, value, f"an int >= {minimum}")
    return value


def check_optional_int(name: str, value: object, *, minimum: int) -> int | None:
    """``None``, or an int (not a bool) of at least ``minimum``."""
    return None if value is None else check_int(name, value, minimum=minimum)


def check_seconds(name: str, value: object, *, minimum: float = 0.0) -> float:
    """A finite number of seconds (an int or a float, not a bool) of at least ``minimum``."""
    if (
        type(value) not in (int, float)
        or not math.isfinite(value)  # type: ignore[arg-type]
        or value < minimum  # type: ignore[operator]
    ):
        raise wrong(name, value, f"a number of seconds >= {minimum:g}")
    return float(value)  # type: ignore[arg-type]


def check_flag(name: str, value: object) -> bool:
    """A real ``bool``."""
    if type(value) is not bool:
        raise wrong(name, value, "True or False")
    return value


def check_mapping(name: str, value: object) -> dict[str, Any]:
    """``None`` (an empty dict) or a mapping with string keys, copied into a dict."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise wrong(name, value, "a mapping with string keys")
    return dict(value)


def check_type(name: str, value: object, kind: type[Any] | tuple[type[Any], ...]) -> Any:
    """``None`` or an instance of ``kind``."""
    if value is not None and not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise wrong(name, value, f"a {names}")
    return value


def check_callable(name: str, value: object) -> Callable[..., Any] | None:
    """``None`` or a callable."""
    if value is not None and not callable(value):
        raise wrong(name, value, "a callable")
    return value
