"""The shared option checks name the owner, the option, the value and what was expected (D35)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from procession import ConfigurationError
from procession.guardrails._common import options as o
from procession.testing import ScriptedModel


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (lambda v: o.check_bool("X", "flag", v), 1, "X: flag must be True or False (got 1)"),
        (lambda v: o.check_int("X", "n", v, 1), True, "X: n must be an integer >= 1 (got True)"),
        (lambda v: o.check_int("X", "n", v, 1, 9), 10, "n must be an integer between 1 and 9"),
        (lambda v: o.check_number("X", "t", v, 0, 1), 1.5, "t must be a number between 0 and 1"),
        (lambda v: o.check_number("X", "t", v), float("nan"), "t must be a number (got nan)"),
        (lambda v: o.check_number("X", "t", v, None, 2), "1", "t must be a number <= 2 (got '1')"),
        (lambda v: o.check_choice("X", "s", v, ("a", "b")), "c", "s must be one of 'a', 'b'"),
        (lambda v: o.check_str("X", "s", v), "  ", "s must be a non-empty string"),
        (lambda v: o.check_str_list("X", "l", v), "abc", "l must be a list of non-empty strings"),
        (lambda v: o.check_str_list("X", "l", v), [], "(at least one) (got [])"),
        (lambda v: o.check_str_list("X", "l", v), ["a", 1], "got ['a', 1]"),
        (lambda v: o.check_callable("X", "cb", v), 3, "cb must be a callable or None (got 3)"),
        (lambda v: o.check_model("X", "model", v), "gpt", "model must be a model object or"),
    ],
)
def test_bad_values_are_refused(check: Callable[[Any], Any], value: object, message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check(value)
    assert message in str(caught.value)


def test_good_values_are_returned() -> None:
    model = ScriptedModel()
    assert o.check_bool("X", "f", False) is False
    assert o.check_int("X", "n", 3, 1) == 3
    assert o.check_number("X", "t", 1, 0, 1) == 1.0
    assert o.check_choice("X", "s", "b", ("a", "b")) == "b"
    assert o.check_str_list("X", "l", ["a", "b"]) == ("a", "b")
    assert o.check_str_list("X", "l", [], allow_empty=True) == ()
    assert o.check_callable("X", "cb", None) is None
    assert o.check_model("X", "m", model) is model
    assert o.check_model("X", "m", "local/smollm2") == "local/smollm2"


def test_long_values_are_shortened() -> None:
    with pytest.raises(ConfigurationError) as caught:
        o.check_bool("X", "f", "y" * 500)
    assert len(str(caught.value)) < 140
