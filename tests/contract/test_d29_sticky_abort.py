"""D29: an abort the hook swallowed still counts, exactly as if the TripWire had propagated."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from procession import TripWire
from procession.testing import Reply, ScriptedModel

from .kit import (
    ALL_HOOKS,
    CALLS,
    LOOP_HOOKS,
    MODES,
    Log,
    in_lane,
    processor,
    run,
    script_for,
    tool_agent,
)


def _first_time(hook: str, kwargs: dict[str, Any]) -> bool:
    """Abort once per hook: for stream hooks, on the first text delta."""
    if hook == "process_output_stream":
        return kwargs["part"].type == "text-delta" and not kwargs["state"].get("done")
    return not kwargs["state"].get("done")


def _swallowing(hook: str, mode: str, *, then: str = "return", **abort_options: Any) -> Any:
    """A processor whose ``hook`` calls ``abort()`` inside a broad ``except Exception``."""

    def body(**kwargs: Any) -> Any:
        if _first_time(hook, kwargs):
            kwargs["state"]["done"] = True
            try:
                kwargs["abort"]("swallowed reason", **abort_options)
            except Exception:  # the guardrail's own error handling (the bug D29 closes)
                if then == "raise":
                    raise ValueError("cleanup failed") from None
        return ... if hook == "process_output_stream" else None

    return processor("swallower", mode, {hook: body})


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_a_swallowed_abort_ends_the_run_as_a_tripwire(
    hook: str, mode: str, how: str
) -> None:  # D29
    violations: list[Any] = []
    swallower = _swallowing(hook, mode, metadata={"score": 0.1})
    swallower.on_violation = violations.append
    log = Log()
    bot = tool_agent(script_for(hook), log=log, **in_lane(hook, swallower))
    done = await run(bot, how)
    assert done.raised is None
    assert done.result.tripwire is not None
    assert done.result.tripwire["reason"] == "swallowed reason"
    assert done.result.tripwire["processorId"] == "swallower"
    assert done.result.tripwire["metadata"] == {"score": 0.1}
    assert done.result.text == ""  # D12
    assert done.result.finish_reason == "other"
    assert [v.message for v in violations] == ["swallowed reason"]  # D8, once
    if how != "generate":
        assert done.types[-1] == "tripwire"
        assert done.types.count("tripwire") == 1
    if hook in ("process_input", "process_input_step", "process_llm_request"):
        assert log.calls == []  # D11: blocked before any tool could run


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_an_abort_followed_by_another_exception_is_the_abort(
    hook: str, mode: str
) -> None:  # D29
    swallower = _swallowing(hook, mode, then="raise")
    bot = tool_agent(script_for(hook), **in_lane(hook, swallower))
    done = await run(bot, "live")
    assert done.result.error is None  # not a ProcessorError for the ValueError
    assert done.types[-1] == "tripwire"
    assert done.result.tripwire is not None
    assert done.result.tripwire["reason"] == "swallowed reason"


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_a_swallowed_retry_request_still_retries(
    hook: str, mode: str, how: str
) -> None:  # D29, D1
    swallower = _swallowing(hook, mode, retry=True)
    model = script_for(hook, final="Second answer.")
    bot = tool_agent(model, max_processor_retries=2, **in_lane(hook, swallower))
    done = await run(bot, how)
    assert done.result.tripwire is None
    assert done.result.error is None
    assert done.result.text.endswith("Second answer.")
    feedback = [
        m
        for call in model.calls
        for m in call.prompt
        if "swallowed reason" in str(m.get("content"))
    ]
    assert feedback, "the retried call carries the feedback (D3)"
    if how == "live":  # D2's marker
        markers = [
            c
            for c in done.chunks
            if c.type == "step-finish" and c.payload["stepResult"]["reason"] == "retry"
        ]
        assert [m.payload["stepResult"]["retryReason"] for m in markers] == ["swallowed reason"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_the_first_abort_of_a_hook_call_wins(hook: str, mode: str) -> None:  # D29
    def body(**kwargs: Any) -> Any:
        if _first_time(hook, kwargs):
            kwargs["state"]["done"] = True
            for reason, retry in (("first", False), ("second", True)):
                with contextlib.suppress(TripWire):
                    kwargs["abort"](reason, retry=retry, metadata={"n": reason})
        return ... if hook == "process_output_stream" else None

    twice = processor("twice", mode, {hook: body})
    bot = tool_agent(script_for(hook), max_processor_retries=3, **in_lane(hook, twice))
    done = await run(bot, "live")
    assert done.result.tripwire is not None, "the first abort (no retry) ends the run"
    assert done.result.tripwire["reason"] == "first"
    assert done.result.tripwire["retry"] is False
    assert done.result.tripwire["metadata"] == {"n": "first"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_a_swallowed_abort_in_a_declared_signature_stream_hook_counts(
    mode: str,
) -> None:  # D29
    """The per-chunk path binds hooks that declare ``abort`` differently from ``**kwargs``
    hooks; a swallowed abort counts there too, and the chunk after it never reaches the client."""

    class Swallower:
        id = "declared"

        def process_output_stream(self, *, part: Any, abort: Any, **_: Any) -> Any:
            if part.type == "text-delta" and "secret" in part.payload["text"]:
                with contextlib.suppress(TripWire):
                    abort("no secrets")
            return part

    class AsyncSwallower(Swallower):
        async def process_output_stream(self, *, part: Any, abort: Any, **_: Any) -> Any:
            return Swallower.process_output_stream(self, part=part, abort=abort)

    guard = Swallower() if mode == "sync" else AsyncSwallower()
    model = ScriptedModel([Reply(text=["fine ", "secret ", "more"])])
    bot = tool_agent(model, output_processors=[guard])
    done = await run(bot, "live")
    assert done.types[-1] == "tripwire"
    assert "secret" not in done.text
    assert "more" not in done.text
