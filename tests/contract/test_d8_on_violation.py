"""D8 (amended): ``on_violation`` (sync or async) is called once for every ``abort()`` a
processor makes, retried or not, in every hook; what it raises is logged and swallowed (the
built-ins' once-per-detection rule is in ``tests/guardrails/``)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import ProcessorViolation

from .kit import ALL_HOOKS, LOOP_HOOKS, MODES, in_lane, processor, run, script_for, tool_agent


def _aborting(hook: str, mode: str, *, retry: bool, callback: Any) -> Any:
    def body(**kwargs: Any) -> Any:
        if hook == "process_output_stream" and kwargs["part"].type != "text-delta":
            return ...
        if not kwargs["state"].get("done"):
            kwargs["state"]["done"] = True
            kwargs["abort"]("reason here", retry=retry, metadata={"hook": hook})
        return ...

    guard = processor("guard", mode, {hook: body})
    guard.on_violation = callback
    return guard


def _callback(kind: str, seen: list[ProcessorViolation[Any]]) -> Any:
    if kind == "sync":
        return seen.append
    if kind == "async":

        async def record(violation: ProcessorViolation[Any]) -> None:
            seen.append(violation)

        return record

    def crash(violation: ProcessorViolation[Any]) -> None:
        seen.append(violation)
        raise RuntimeError("reporting failed")

    return crash


@pytest.mark.parametrize("callback", ["sync", "async", "raising"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_every_terminal_abort_is_reported_once(
    hook: str, mode: str, callback: str
) -> None:  # D8
    seen: list[ProcessorViolation[Any]] = []
    guard = _aborting(hook, mode, retry=False, callback=_callback(callback, seen))
    done = await run(tool_agent(script_for(hook), **in_lane(hook, guard)), "live")
    assert done.types[-1] == "tripwire"  # a raising callback changes nothing
    assert len(seen) == 1
    (violation,) = seen
    assert (violation.processor_id, violation.message) == ("guard", "reason here")
    assert violation.detail == {"hook": hook}
    assert violation.retry is False


@pytest.mark.parametrize("callback", ["sync", "async", "raising"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_a_retried_abort_is_reported_too(hook: str, mode: str, callback: str) -> None:  # D8
    seen: list[ProcessorViolation[Any]] = []
    guard = _aborting(hook, mode, retry=True, callback=_callback(callback, seen))
    bot = tool_agent(script_for(hook), max_processor_retries=1, **in_lane(hook, guard))
    done = await run(bot, "step")
    assert done.types[-1] == "finish"
    assert [(v.message, v.retry) for v in seen] == [("reason here", True)]
