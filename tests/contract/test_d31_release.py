"""D31: when the client sees a step. ``release="live"`` sends chunks as they pass the output
lane and marks a rejected attempt (D2); ``release="step"`` holds a step until it is accepted,
so a rejected or blocked attempt never reaches the client."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from procession import Agent, ModelCallOptions, TextPart
from procession.testing import FunctionModel, Reply, ScriptedModel, ToolCallScript

from .kit import LOOP_HOOKS, MODES, Log, in_lane, processor, run, tool_agent

REJECTED = "REJECTED-ATTEMPT"


def _reject_once(hook: str, mode: str, *, retry: bool = True) -> Any:
    """Aborts the first attempt it sees (on its first text delta, for stream hooks)."""

    def body(**kwargs: Any) -> Any:
        state = kwargs["state"]
        if hook == "process_output_stream" and kwargs["part"].type != "text-delta":
            return ...
        if not state.get("done"):
            state["done"] = True
            kwargs["abort"]("not good enough", retry=retry)
        return ...

    return processor("judge", mode, {hook: body})


def _answer(options: ModelCallOptions) -> Reply:
    """Before any feedback the model's answers are marked REJECTED; after it, accepted. A
    prompt with a tool result gets the final answer, else the tool call."""
    retried = "[Processor Feedback]" in str(options.prompt)
    prefix = "Accepted" if retried else REJECTED
    if any(m["role"] == "tool" for m in options.prompt):
        return Reply(text=[f"{prefix} ", "answer."])
    return Reply(
        text=[f"{prefix} look."], tool_calls=[ToolCallScript("lookup", {"order_id": "A1"})]
    )


def _script(hook: str) -> FunctionModel:
    return FunctionModel(_answer)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_step_mode_never_sends_a_rejected_attempt(hook: str, mode: str) -> None:  # D31
    bot = tool_agent(
        _script(hook),
        max_processor_retries=3,
        **in_lane(hook, _reject_once(hook, mode)),
    )
    done = await run(bot, "step")
    assert done.result.error is None
    assert done.result.tripwire is None
    assert REJECTED not in done.text
    assert "Accepted answer." in done.text
    assert all(
        c.payload.get("stepResult", {}).get("reason") != "retry"
        for c in done.chunks
        if c.type == "step-finish"
    ), "no retry marker in step mode"
    for chunk in done.chunks:
        assert REJECTED not in str(chunk.to_dict())


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_live_mode_marks_the_rejected_attempt(hook: str, mode: str) -> None:  # D31, D2
    bot = tool_agent(
        _script(hook),
        max_processor_retries=3,
        **in_lane(hook, _reject_once(hook, mode)),
    )
    stream = bot.stream("Where is order A1?")
    chunks = [c async for c in stream]
    markers = [
        i
        for i, c in enumerate(chunks)
        if c.type == "step-finish" and c.payload["stepResult"]["reason"] == "retry"
    ]
    assert len(markers) == 1
    marker = chunks[markers[0]].payload["stepResult"]
    assert (marker["retryReason"], marker["retryProcessorId"]) == ("not good enough", "judge")
    after = "".join(c.payload["text"] for c in chunks[markers[0] :] if c.type == "text-delta")
    assert REJECTED not in after
    assert (await stream.result()).text.endswith("Accepted answer.")


@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_text_stream_yields_only_accepted_text(
    hook: str, release: Literal["live", "step"]
) -> None:  # D31
    bot = tool_agent(
        _script(hook),
        max_processor_retries=3,
        **in_lane(hook, _reject_once(hook, "async")),
    )
    stream = bot.stream("Where is order A1?", release=release)
    text = "".join([t async for t in stream.text_stream])
    assert REJECTED not in text
    assert text.endswith("Accepted answer.")
    assert text == (await stream.result()).text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", LOOP_HOOKS)
@pytest.mark.asyncio
async def test_a_blocked_attempt_never_reaches_the_client_in_step_mode(
    hook: str, mode: str
) -> None:  # D31, D12
    bot = tool_agent(_script(hook), **in_lane(hook, _reject_once(hook, mode, retry=False)))
    done = await run(bot, "step")
    assert done.types[-1] == "tripwire"
    assert "text-delta" not in done.types  # the first step was blocked: nothing of it
    assert done.result.text == ""


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_step_mode_releases_the_edited_text(mode: str) -> None:  # D31, D23
    def edit(**kwargs: Any) -> None:
        for message in kwargs["messages"]:
            for part in message.content.parts:
                if isinstance(part, TextPart) and "1234" in part.text:
                    part.text = part.text.replace("1234", "[number]")

    model = ScriptedModel([Reply(text=["Your PIN ", "is 12", "34, keep it."])])
    bot = Agent(
        id="a",
        model=model,
        output_processors=[processor("ed", mode, {"process_output_step": edit})],
    )
    done = await run(bot, "step")
    assert done.text == "Your PIN is [number], keep it."
    assert "1234" not in "".join(str(c.to_dict()) for c in done.chunks)
    assert done.result.text == "Your PIN is [number], keep it."


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_transient_data_goes_out_at_once_in_step_mode(mode: str) -> None:  # D31, D27
    def progress(**kwargs: Any) -> Any:
        part = kwargs["part"]
        if part.type == "text-delta" and not kwargs["state"].get("sent"):
            kwargs["state"]["sent"] = True
            kwargs["writer"].custom({"type": "data-progress", "data": 1, "transient": True})
            kwargs["writer"].custom({"type": "data-note", "data": "held"})
        return part

    model = ScriptedModel([Reply(text=["a", "b"])])
    bot = Agent(
        id="a",
        model=model,
        output_processors=[processor("p", mode, {"process_output_stream": progress})],
    )
    done = await run(bot, "step")
    types = done.types
    assert types.index("data-progress") < types.index("text-start")
    assert types.index("data-note") > types.index("text-start")  # held with its step


@pytest.mark.asyncio
async def test_a_rejected_attempts_data_chunks_are_never_sent_in_step_mode() -> None:  # D31
    def note(**kwargs: Any) -> Any:
        kwargs["writer"].custom({"type": "data-attempt", "data": kwargs["retry_count"]})
        if kwargs["retry_count"] == 0:
            kwargs["abort"]("again", retry=True)

    model = ScriptedModel([Reply(text=["first"]), Reply(text=["second"])])
    bot = Agent(
        id="a",
        model=model,
        max_processor_retries=1,
        output_processors=[processor("p", "sync", {"process_output_step": note})],
    )
    done = await run(bot, "step")
    assert [c.data for c in done.chunks if c.type == "data-attempt"] == [1]
    assert done.text == "second"


@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.asyncio
async def test_both_modes_end_with_the_same_result_and_generate_is_unaffected(
    release: Literal["live", "step"],
) -> None:  # D31, D18
    log = Log()
    hook = "process_output_step"

    def make() -> Agent:
        return tool_agent(
            _script(hook),
            log=log,
            max_processor_retries=3,
            output_processors=[_reject_once(hook, "sync")],
        )

    streamed = await run(make(), release)
    generated = await make().generate("Where is order A1?", release=release)
    assert streamed.result.text == generated.text
    assert [s.text for s in streamed.result.steps] == [s.text for s in generated.steps]
    assert streamed.result.finish_reason == generated.finish_reason == "stop"


@pytest.mark.asyncio
async def test_step_mode_sends_what_live_mode_sends_for_an_accepted_step() -> None:  # D31
    def agent() -> Agent:
        return tool_agent(FunctionModel(_answer))

    live = await run(agent(), "live")
    step = await run(agent(), "step")
    assert step.types == live.types
    assert "response-metadata" not in step.types
