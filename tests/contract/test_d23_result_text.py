"""D23 (amended): ``result.text`` is the text of the response messages as they stand after
every hook (``process_output_step``, ``process_tool_result`` and ``process_output_result``
edits included), accepted steps only; ``result.text``, ``result.messages`` and what memory
stores agree. A blocked run's text is ``""``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession import Memory, Message, TextPart
from procession.memory import SQLiteStorage

from .kit import CALLS, MODES, processor, run, script_for, tool_agent


@pytest_asyncio.fixture
async def memory() -> AsyncIterator[Memory]:
    store = Memory(SQLiteStorage(":memory:"))
    yield store
    await store.storage.close()


def _replace(old: str, new: str) -> Any:
    def edit(**kwargs: Any) -> None:
        for message in kwargs["message_list"].get.response.db():
            for part in message.content.parts:
                if isinstance(part, TextPart) and old in part.text:
                    part.text = part.text.replace(old, new)

    return edit


def _text(messages: list[Message]) -> str:
    return "".join(p.text for m in messages for p in m.content.parts if isinstance(p, TextPart))


HOOKS = ["process_output_step", "process_tool_result", "process_output_result"]


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hook", HOOKS)
@pytest.mark.asyncio
async def test_result_text_holds_every_hooks_edit(
    hook: str, mode: str, how: str, memory: Memory
) -> None:  # D23
    # "look" is in the tool step, "shipped" in the final one; process_tool_result runs after
    # the tool step only, the others on every step or at the end
    edits = {
        "process_output_step": ("shipped", "SENT"),
        "process_tool_result": ("look", "LOOK"),
        "process_output_result": ("shipped", "SENT"),
    }
    old, new = edits[hook]
    editor = processor("editor", mode, {hook: _replace(old, new)})
    bot = tool_agent(script_for(hook), memory=memory, output_processors=[editor])
    done = await run(bot, how, thread_id="t", resource_id="ada")
    result = done.result
    assert result.error is None
    assert new in result.text
    assert old not in result.text
    assert result.text == _text(result.messages)
    stored = await memory.storage.list_messages("t", resource_id="ada")
    assert _text([m for m in stored if m.role == "assistant"]) == result.text
    assert "".join(step.text for step in result.steps) == result.text
    if how != "generate":
        finish = done.chunks[-1]
        assert finish.type == "finish"
        assert finish.payload["output"]["text"] == result.text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_a_rejected_attempt_is_not_in_the_text(mode: str) -> None:  # D23, D1
    def once(**kwargs: Any) -> None:
        if kwargs["retry_count"] == 0 and not kwargs["tool_calls"]:
            kwargs["abort"]("again", retry=True)

    model = script_for("process_output_step", final="Final answer.")
    model.replies.insert(2, model.replies[1])  # the rejected final attempt, then the accepted
    bot = tool_agent(
        model,
        max_processor_retries=1,
        output_processors=[processor("p", mode, {"process_output_step": once})],
    )
    done = await run(bot, "live")
    assert done.result.text == "Let me look.Final answer."
    assert done.text.count("Final answer.") == 2  # the live client saw both attempts (D2)


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.asyncio
async def test_a_blocked_run_has_no_text_even_after_accepted_steps(how: str) -> None:  # D23, D12
    def block_final(**kwargs: Any) -> None:
        if not kwargs["tool_calls"]:
            kwargs["abort"]("no")

    bot = tool_agent(
        script_for("process_output_step"),
        output_processors=[processor("b", "sync", {"process_output_step": block_final})],
    )
    done = await run(bot, how)
    assert done.result.tripwire is not None
    assert done.result.text == ""
