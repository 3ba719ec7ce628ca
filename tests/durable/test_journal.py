"""A durable run executed again with the same run id repeats no checkpointed model call, tool
call or commit (issue 16, D13), and its tools get a stable idempotency key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from procession import Agent, ToolContext, tool
from procession.memory import Memory, SQLiteStorage
from procession.testing import FunctionModel, MemoryJournal, Reply, ScriptedModel, ToolCallScript


def _never(*_: Any) -> Reply:
    raise AssertionError("a checkpointed model call was made again")


def _agent(model: Any, ran: list[str], memory: Memory | None = None) -> Agent:
    @tool
    def charge(amount: int, context: ToolContext) -> str:
        """Charge a card."""
        ran.append(context.idempotency_key)
        return f"charged {amount}"

    return Agent(id="shop", model=model, tools=[charge], memory=memory)


def _script() -> ScriptedModel:
    return ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("charge", {"amount": 5}, "c1")]), Reply(text=["Done."])]
    )


@pytest.mark.asyncio
async def test_executing_a_finished_run_again_makes_no_call_and_commits_once(
    tmp_path: Path,
) -> None:
    journal = MemoryJournal()
    ran: list[str] = []
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    ids: dict[str, Any] = {
        "run_id": "run-1",
        "thread_id": "t",
        "resource_id": "ada",
        "journal": journal,
    }
    first = await _agent(_script(), ran, memory).generate("Pay", **ids)
    again = await _agent(FunctionModel(_never), ran, memory).generate("Pay", **ids)
    assert (first.text, again.text) == ("Done.", "Done.")
    assert ran == ["run-1:c1"]  # the tool ran once, with a stable idempotency key
    assert len(journal.done) == 1
    stored = await memory.list_messages("t", resource_id="ada")
    assert [m.role for m in stored] == ["user", "assistant"]  # committed once (D13)
    await memory.close()


@pytest.mark.asyncio
async def test_a_crash_before_a_checkpoint_redoes_only_that_call() -> None:
    journal = MemoryJournal()
    ran: list[str] = []
    ids: dict[str, Any] = {"run_id": "run-2", "journal": journal}
    await _agent(_script(), ran).generate("Pay", **ids)
    second_call = [k for k in journal.models if k.startswith("run-2:model:1:")]
    journal.forget(second_call[0])  # the worker died while the second call streamed
    calls: list[str] = []

    def answer(options: Any) -> Reply:
        calls.append("model")
        return Reply(text=["Done again."])

    result = await _agent(FunctionModel(answer), ran).generate("Pay", **ids)
    assert result.text == "Done again."
    assert calls == ["model"]  # only the call without a checkpoint was made
    assert ran == ["run-2:c1"]  # the checkpointed tool did not run twice
