"""``abort`` is typed (the ``Abort`` protocol, a ``NoReturn`` callable exported from the root)
and the TypeScript form ``abort("reason", {"retry": True})`` is refused with a message showing
the Python form.

Part of this module is checked by mypy rather than by running it: a ``# type: ignore[...]`` on
a line mypy must refuse fails the type check (``warn_unused_ignores``) the day it is accepted.
"""

from __future__ import annotations

from typing import Any

import pytest

from procession import (
    Abort,
    Chunk,
    ProcessInput,
    ProcessorError,
    ProcessOutputStep,
    ProcessOutputStream,
    ProcessToolResult,
)

from .kit import ALL_HOOKS, MODES, in_lane, processor, run, script_for, tool_agent


class Typed:
    """A processor typed with the exported protocols."""

    id = "typed"

    def process_input(self, *, abort: Abort, **_: Any) -> None:
        return None

    def process_output_step(self, *, text: str, abort: Abort, **_: Any) -> None:
        if not text:
            abort("Say something.", retry=True)
            print("never printed")  # type: ignore[unreachable]  # abort() is NoReturn

    def process_output_stream(self, *, part: Chunk, abort: Abort, **_: Any) -> Chunk | None:
        if part.type == "text-delta" and part.payload["text"] == "typescript":
            abort("no", {"retry": True})  # type: ignore[call-arg, arg-type]  # the TS form
        return part

    async def process_tool_result(self, *, result: Any, abort: Abort, **_: Any) -> None:
        if result is None:
            abort(metadata={"why": "empty"})


def test_hooks_written_against_the_protocols_fit_them() -> None:
    typed = Typed()
    hooks: tuple[ProcessInput, ProcessOutputStep, ProcessOutputStream, ProcessToolResult] = (
        typed.process_input,
        typed.process_output_step,
        typed.process_output_stream,
        typed.process_tool_result,
    )
    assert all(callable(hook) for hook in hooks)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ALL_HOOKS)
@pytest.mark.asyncio
async def test_the_typescript_form_is_refused_with_the_python_form(hook: str, mode: str) -> None:
    def typescript(**kwargs: Any) -> Any:
        if hook == "process_output_stream" and kwargs["part"].type != "text-delta":
            return ...
        kwargs["abort"]("Too short", {"retry": True})
        return ...

    bot = tool_agent(script_for(hook), **in_lane(hook, processor("ts", mode, {hook: typescript})))
    done = await run(bot, "live")
    error = done.result.error
    if hook == "process_api_error":  # D10's exception: logged, the model's error ends the run
        assert not isinstance(error, ProcessorError)
        return
    assert isinstance(error, ProcessorError)
    assert (error.processor_id, error.hook) == ("ts", hook)
    assert "abort('Too short', retry=True" in str(error)
    assert "TypeScript" in str(error)


@pytest.mark.skip(
    reason="needs loop: abort(reason='...') must work like abort('...') (docs/lifecycle.md "
    "documents abort(reason=None, *, retry=False, metadata=None)); the runner's abort takes "
    "`reason` positional-only, so the keyword form raises TypeError and the run fails as a "
    "ProcessorError instead of aborting (the Abort protocol mirrors today's runtime: reason "
    "positional-only; drop its `/` with the fix)"
)
@pytest.mark.asyncio
async def test_reason_may_be_given_by_keyword() -> None:
    def by_keyword(**kwargs: Any) -> None:
        kwargs["abort"](reason="named", retry=False)

    bot = tool_agent(
        script_for("process_input"),
        input_processors=[processor("kw", "sync", {"process_input": by_keyword})],
    )
    done = await run(bot, "live")
    assert done.result.tripwire is not None
    assert done.result.tripwire["reason"] == "named"
