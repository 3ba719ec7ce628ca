"""Checks for built-in processors' constructor options (D35).

Each check returns the value it accepted, or raises a
:class:`~procession.errors.ConfigurationError` that names the owner (``PromptInjectionDetector``),
the option (``threshold``), the value it got and what was expected. A ``bool`` is never
accepted where a number is expected, and nothing but a ``bool`` is accepted for a flag::

    self.threshold = check_number("ModerationProcessor", "threshold", threshold, 0.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from procession.errors import ConfigurationError
from procession.models.base import LanguageModel

__all__ = [
    "check_bool",
    "check_callable",
    "check_choice",
    "check_int",
    "check_model",
    "check_number",
    "check_str",
    "check_str_list",
    "option_error",
]

T = TypeVar("T")


def option_error(owner: str, name: str, value: object, expected: str) -> ConfigurationError:
    """The error for option ``name`` of ``owner``: ``"<owner>: <name> must be <expected> (got
    <value>)"``."""
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return ConfigurationError(f"{owner}: {name} must be {expected} (got {shown})")


def check_bool(owner: str, name: str, value: object) -> bool:
    """``value`` if it is a ``bool``."""
    if not isinstance(value, bool):
        raise option_error(owner, name, value, "True or False")
    return value


def check_int(
    owner: str, name: str, value: object, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` if it is an ``int`` (not a ``bool``) within ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise option_error(owner, name, value, f"an integer{_range(minimum, maximum)}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise option_error(owner, name, value, f"an integer{_range(minimum, maximum)}")
    return value


def check_number(
    owner: str,
    name: str,
    value: object,
    minimum: float | None = None,
    maximum: float | None = None,
) -> float:
    """``value`` as a ``float`` if it is an ``int`` or ``float`` (not a ``bool``, not NaN)
    within ``[minimum, maximum]``."""
    expected = f"a number{_range(minimum, maximum)}"
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise option_error(owner, name, value, expected)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise option_error(owner, name, value, expected)
    return float(value)


def check_choice(owner: str, name: str, value: object, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise option_error(owner, name, value, "one of " + ", ".join(repr(c) for c in choices))
    return value


def check_str(owner: str, name: str, value: object, *, allow_empty: bool = False) -> str:
    """``value`` if it is a string (a non-empty one unless ``allow_empty``)."""
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise option_error(owner, name, value, "a string" if allow_empty else "a non-empty string")
    return value


def check_str_list(
    owner: str, name: str, value: object, *, allow_empty: bool = False
) -> tuple[str, ...]:
    """``value`` as a tuple if it is a list or tuple of non-empty strings (a single string is
    refused: it is almost always a missing pair of brackets)."""
    expected = "a list of non-empty strings" + ("" if allow_empty else " (at least one)")
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise option_error(owner, name, value, expected)
    items = tuple(value)
    if not all(isinstance(item, str) and item.strip() for item in items):
        raise option_error(owner, name, value, expected)
    if not items and not allow_empty:
        raise option_error(owner, name, value, expected)
    return items


def check_callable(owner: str, name: str, value: T | None) -> T | None:
    """``value`` if it is callable or ``None``."""
    if value is not None and not callable(value):
        raise option_error(owner, name, value, "a callable or None")
    return value


def check_model(owner: str, name: str, value: object) -> LanguageModel | str:
    """``value`` if it is a model object or a ``"provider/model"`` id.

    The id is not resolved here (a provider may need an API key only when it is called), only
    checked for its shape.
    """
    if isinstance(value, str):
        provider, sep, model = value.partition("/")
        if sep and provider and model:
            return value
    elif isinstance(value, LanguageModel):
        return value
    raise option_error(owner, name, value, "a model object or a 'provider/model' id")


def _range(minimum: float | None, maximum: float | None) -> str:
    if minimum is not None and maximum is not None:
        return f" between {minimum} and {maximum}"
    if minimum is not None:
        return f" >= {minimum}"
    if maximum is not None:
        return f" <= {maximum}"
    return ""
