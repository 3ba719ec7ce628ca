"""D30: in-place edits are checked where they are made, and fail as the editing processor's
error (naming processor, hook, message id and field) before anything else sees them."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Memory, ProcessorError, TextPart
from procession.memory import SQLiteStorage

from .kit import ALL_HOOKS, CALLS, MODES, in_lane, lane_of, processor, run, script_for, tool_agent


def _user_text(message_list: Any) -> tuple[str, TextPart]:
    message = next(m for m in message_list.get.all.db() if m.role == "user")
    part = next(p for p in message.content.parts if isinstance(p, TextPart))
    return message.id, part


class Sequence:
    """One shared record of what happened, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.edited_id: str | None = None


def _editor(hook: str, mode: str, seq: Sequence, edit: Any) -> Any:
    def body(**kwargs: Any) -> Any:
        if not kwargs["state"].get("done") and (
            hook != "process_output_stream" or kwargs["part"].type == "text-delta"
        ):
            kwargs["state"]["done"] = True
            seq.edited_id, part = _user_text(kwargs["message_list"])
            edit(part)
            seq.events.append("edit")
        return ...

    return processor("editor", mode, {hook: body})


def _after(seq: Sequence, lane: str) -> Any:
    """A processor after the editor in its lane, recording every hook it gets."""
    hooks = {
        "input": (
            "process_input",
            "process_input_step",
            "process_llm_request",
            "process_llm_response",
        ),
        "output": (
            "process_output_stream",
            "process_output_step",
            "process_tool_result",
            "process_output_result",
        ),
        "error": ("process_api_error",),
    }[lane]

    def recorder(name: str) -> Any:
        def body(**kwargs: Any) -> Any:
            seq.events.append(name)
            return ...

        return body

    return processor("after", "sync", {name: recorder(name) for name in hooks})


EDIT_HOOKS = list(ALL_HOOKS)


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", EDIT_HOOKS)
@pytest.mark.asyncio
async def test_an_invalid_in_place_edit_fails_as_the_processors_error(
    hook: str, mode: str, how: str
) -> None:  # D30
    seq = Sequence()
    lane = lane_of(hook)
    editor = _editor(hook, mode, seq, lambda part: setattr(part, "text", None))
    model = script_for(hook)
    memory = Memory(SQLiteStorage(":memory:"))
    bot = tool_agent(model, memory=memory, **in_lane(hook, editor, _after(seq, lane)))
    seq_events = seq.events
    try:
        done = await run(bot, how, thread_id="t1", resource_id="ada")
        error = done.result.error
        assert isinstance(error, ProcessorError), error
        assert error.processor_id == "editor"
        assert error.hook == hook
        assert seq.edited_id is not None
        assert seq.edited_id in str(error)
        assert "text" in str(error)
        if how != "generate":
            assert done.types[-1] == "error"
            detail = done.chunks[-1].payload["error"]
            assert (detail["processorId"], detail["hook"]) == ("editor", hook)
        later = seq_events[seq_events.index("edit") + 1 :]
        if hook == "process_output_stream":  # checked once at the end of the step
            assert set(later) <= {"process_output_stream"}
        else:
            assert later == [], "nothing else saw the invalid edit"
        assert await memory.storage.list_messages("t1", resource_id="ada") == []  # D13
    finally:
        await memory.storage.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", ["process_input", "process_input_step", "process_llm_request"])
@pytest.mark.asyncio
async def test_an_invalid_edit_before_the_model_call_stops_the_call(
    hook: str, mode: str
) -> None:  # D30
    seq = Sequence()
    editor = _editor(hook, mode, seq, lambda part: setattr(part, "text", 42))
    model = script_for(hook)
    done = await run(tool_agent(model, input_processors=[editor]), "live")
    assert isinstance(done.result.error, ProcessorError)
    assert model.calls == []


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda m, p: setattr(p, "text", None), "text"),
        (lambda m, p: m.content.parts.append({"text": "a dict, not a part"}), "parts[1]"),
        (lambda m, p: setattr(m, "role", "robot"), "role"),
        (lambda m, p: setattr(m.content, "parts", None), "parts"),
        (lambda m, p: setattr(m, "created_at", "yesterday"), "createdAt"),
    ],
)
@pytest.mark.asyncio
async def test_each_kind_of_invalid_edit_is_named(edit: Any, field: str) -> None:  # D30, D24
    def body(**kwargs: Any) -> None:
        message = next(m for m in kwargs["messages"] if m.role == "user")
        part = next(p for p in message.content.parts if isinstance(p, TextPart))
        edit(message, part)

    bot = tool_agent(
        script_for("process_input"),
        input_processors=[processor("editor", "sync", {"process_input": body})],
    )
    done = await run(bot, "live")
    assert isinstance(done.result.error, ProcessorError)
    assert field in str(done.result.error)


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.asyncio
async def test_a_valid_in_place_edit_is_kept_and_stored(how: str) -> None:  # D30, D24
    def body(**kwargs: Any) -> None:
        _, part = _user_text(kwargs["message_list"])
        part.text = part.text.replace("A1", "[order]")

    memory = Memory(SQLiteStorage(":memory:"))
    try:
        bot = tool_agent(
            script_for("process_input_step"),
            memory=memory,
            input_processors=[processor("editor", "async", {"process_input_step": body})],
        )
        done = await run(bot, how, thread_id="t", resource_id="ada")
        assert done.result.error is None
        stored = await memory.storage.list_messages("t", resource_id="ada")
        assert stored[0].text == "Where is order [order]?"
    finally:
        await memory.storage.close()


@pytest.mark.parametrize("new_id", [None, "renamed"])
@pytest.mark.parametrize("hook", ["process_input", "process_output_step", "process_output_result"])
@pytest.mark.asyncio
async def test_renaming_a_message_in_place_fails_as_the_processors_error(
    hook: str, new_id: Any
) -> None:  # D30
    def body(**kwargs: Any) -> Any:
        kwargs["messages"][-1].id = new_id
        return None

    bot = tool_agent(
        script_for(hook),
        **in_lane(hook, processor("renamer", "sync", {hook: body})),
    )
    stream = bot.stream("Where is order A1?")
    chunks = [c async for c in stream]  # must not raise
    assert chunks[-1].type == "error"
    error = (await stream.result(raise_error=False)).error
    assert isinstance(error, ProcessorError)
    assert (error.processor_id, error.hook) == ("renamer", hook)
    assert "id" in str(error)


@pytest.mark.asyncio
async def test_a_non_json_value_edited_into_a_tool_call_fails_as_the_processors_error() -> (
    None
):  # D30
    def body(**kwargs: Any) -> None:
        for message in kwargs["messages"]:
            for part in message.content.parts:
                invocation = getattr(part, "tool_invocation", None)
                if invocation is not None:
                    invocation.args = {"ids": {1, 2}}

    bot = tool_agent(
        script_for("process_output_step"),
        output_processors=[processor("setter", "sync", {"process_tool_result": body})],
    )
    done = await run(bot, "live")
    assert isinstance(done.result.error, ProcessorError)
    assert done.result.error.processor_id == "setter"
    assert "args" in str(done.result.error)


@pytest.mark.asyncio
async def test_an_invalid_edit_in_process_api_error_is_not_retried_to_the_model() -> None:  # D30
    def spoil(**kwargs: Any) -> None:
        _, part = _user_text(kwargs["message_list"])
        part.text = None  # type: ignore[assignment]

    model = script_for("process_api_error")
    bot = tool_agent(
        model,
        error_processors=[
            processor("editor", "sync", {"process_api_error": spoil}),
            processor("retrier", "sync", {"process_api_error": lambda **_: {"retry": True}}),
        ],
    )
    done = await run(bot, "live")
    assert isinstance(done.result.error, ProcessorError)
    assert done.result.error.processor_id == "editor"
    assert len(model.calls) == 1  # the invalid message never reached the model
