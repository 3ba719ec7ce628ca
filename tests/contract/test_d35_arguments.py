"""D35: every public constructor and call option is checked when given; a wrong type or an
out-of-range value raises a ``ConfigurationError`` naming the argument, the value and what is
expected, before any model call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from procession import AbortSignal, Agent, ConfigurationError, Memory, RequestContext
from procession.memory import SQLiteStorage
from procession.testing import RecordingProcessor, ScriptedModel

from .kit import run

WRONG = [
    ("max_steps", 0),
    ("max_steps", True),
    ("max_steps", 2.0),
    ("max_steps", "3"),
    ("max_processor_retries", -1),
    ("max_processor_retries", False),
    ("max_processor_retries", 1.5),
    ("max_retries", -1),
    ("max_retries", True),
    ("model_settings", ["temperature", 0]),
    ("model_settings", {1: "x"}),
    ("provider_options", "openai"),
    ("instructions", 42),
    ("instructions", ["ok", 3]),
    ("input_processors", "not a list"),
    ("output_processors", [object()]),
    ("error_processors", 7),
]
"""(argument, value) pairs both ``Agent(...)`` and a call must refuse."""

CALL_ONLY = [
    ("abort_signal", "stop"),
    ("abort_signal", True),
    ("request_context", ["user", "ada"]),
    ("request_context", 3),
    ("release", "chunk"),
    ("release", True),
    ("run_id", ""),
    ("run_id", 5),
    ("thread_id", 5),
    ("active_tools", "lookup"),
    ("prepare_step", "not callable"),
    ("model", 3),
    ("system", {"role": "system"}),
]


def _named(error: ConfigurationError, argument: str, value: Any) -> None:
    """The message names the argument and the value it got (and what it expected)."""
    message = str(error)
    assert argument in message
    assert "got" in message
    shown = (
        value[0] if isinstance(value, list) and value and not isinstance(value[0], str) else value
    )
    assert repr(shown) in message


@pytest.mark.parametrize(("argument", "value"), WRONG)
def test_the_agent_refuses_a_wrong_option(argument: str, value: Any) -> None:  # D35
    model = ScriptedModel(["never"])
    with pytest.raises(ConfigurationError) as caught:
        Agent(id="a", model=model, **{argument: value})
    _named(caught.value, argument, value)
    assert model.calls == []


def _calls() -> list[Any]:
    cases = []
    for how in ("stream", "generate", "generate_sync"):
        for argument, value in WRONG + CALL_ONLY:
            cases.append(pytest.param(how, argument, value))
    return cases


def _call(agent: Agent, how: str, options: dict[str, Any]) -> Any:
    if how == "stream":
        return agent.stream("hi", **options)  # refused when the call is made
    if how == "generate":
        return asyncio.run(agent.generate("hi", **options))
    return agent.generate_sync("hi", **options)


@pytest.mark.parametrize(("how", "argument", "value"), _calls())
def test_a_call_refuses_a_wrong_option_before_the_model(
    how: str, argument: str, value: Any
) -> None:  # D35
    model = ScriptedModel(["never"])
    agent = Agent(id="a", model=model)
    with pytest.raises(ConfigurationError) as caught:
        _call(agent, how, {argument: value})
    _named(caught.value, argument, value)
    assert model.calls == []


@pytest.mark.parametrize(
    ("argument", "value"),
    [("max_steps", 1), ("max_processor_retries", 0), ("max_retries", 0)],
)
@pytest.mark.asyncio
async def test_the_smallest_values_in_range_are_accepted(argument: str, value: int) -> None:  # D35
    options: dict[str, Any] = {argument: value}
    agent = Agent(id="a", model=ScriptedModel(["ok", "ok"]), **options)
    assert (await agent.generate("hi", **options)).text == "ok"


@pytest.mark.parametrize(
    "context",
    [{"user": "ada"}, RequestContext({"user": "ada"}), {"user": "ada"}.items().mapping],
)
@pytest.mark.asyncio
async def test_request_context_may_be_any_mapping(context: Any) -> None:  # D35
    seen: list[Any] = []
    recorder = RecordingProcessor(
        "r", process_input=lambda **kw: seen.append(kw["request_context"].get("user"))
    )
    agent = Agent(id="a", model=ScriptedModel(["ok"]), input_processors=[recorder])
    await agent.generate("hi", request_context=context)
    assert seen == ["ada"]


def _positional(request_context: RequestContext) -> list[Any]:
    return [RecordingProcessor(str(request_context.get("lane")), ["process_input"])]


def _keyword(*, request_context: RequestContext) -> list[Any]:
    return [RecordingProcessor(str(request_context.get("lane")), ["process_input"])]


async def _async_factory(request_context: RequestContext) -> list[Any]:
    return _positional(request_context)


@pytest.mark.parametrize("factory", [_positional, _keyword, _async_factory])
@pytest.mark.asyncio
async def test_a_lane_factory_takes_the_context_positionally_or_by_keyword(
    factory: Any,
) -> None:  # D35, D20
    agent = Agent(id="a", model=ScriptedModel(["ok"]), input_processors=factory)
    done = await run(agent, "live", request_context={"lane": "from-context"})
    assert done.result.text == "ok"


@pytest.mark.parametrize(
    "factory",
    [lambda a, b: [], lambda *, lane: [], "not callable"],
)
def test_a_lane_factory_it_cannot_call_is_refused_when_given(factory: Any) -> None:  # D35
    with pytest.raises(ConfigurationError, match="input"):
        Agent(id="a", model=ScriptedModel(["never"]), input_processors=factory)


@pytest.mark.asyncio
async def test_a_factory_returning_a_wrong_lane_fails_before_the_model() -> None:  # D35, D25
    model = ScriptedModel(["never"])
    agent = Agent(id="a", model=model, input_processors=lambda context: "nope")
    done = await run(agent, "live")
    assert isinstance(done.result.error, ConfigurationError)
    assert "input" in str(done.result.error)
    assert model.calls == []


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_read_only_is_a_flag(value: Any) -> None:  # D35
    with pytest.raises(ConfigurationError, match="read_only"):
        Memory(SQLiteStorage(":memory:"), read_only=value)


def test_an_abort_signal_must_be_an_abort_signal() -> None:  # D35
    agent = Agent(id="a", model=ScriptedModel(["x"]))
    agent.stream("hi", abort_signal=AbortSignal())  # accepted
    with pytest.raises(ConfigurationError, match="abort_signal"):
        agent.stream("hi", abort_signal=object())  # type: ignore[call-overload]
