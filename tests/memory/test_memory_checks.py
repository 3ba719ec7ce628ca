"""D30 on the memory path after the speedups of issue 25: every record is still checked on
load and on write, only the checks repeated on the way are gone (decision 0375)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from procession import Agent, Memory, ProcessorError
from procession._engine.runner import HookRunner
from procession.errors import CorruptRecordError
from procession.memory import SQLiteStorage
from procession.memory._backend import messages_from_rows
from procession.memory.limits import encode_body
from procession.memory.processors import MessageHistory
from procession.messages import MessageList, TextPart
from procession.messages.message import Message
from procession.testing import Reply, ScriptedModel


def _agent(memory: Memory) -> Agent:
    model = ScriptedModel([Reply(text=["Sure."])], repeat_last=True)
    return Agent(id="checks", model=model, memory=memory)


def _rows(count: int) -> list[tuple[str, str]]:
    messages = [Message.user(f"message {i}", id=f"m{i}") for i in range(count)]
    return [(m.id, encode_body(m, thread_id="t")) for m in messages]


# -- on load: every row is decoded with the codec's rules ----------------------------------


def test_rows_decode_as_one_batch_with_the_same_messages() -> None:  # D30
    rows = _rows(50)
    loaded = messages_from_rows(rows, "t", "r")
    assert [m.id for m in loaded] == [f"m{i}" for i in range(50)]
    assert [m.text for m in loaded] == [f"message {i}" for i in range(50)]
    assert {(m.thread_id, m.resource_id) for m in loaded} == {("t", "r")}


@pytest.mark.parametrize(
    "body",
    [
        "{not json",  # the batch does not parse
        '{"id": "m7", "role": "robot", "content": {"parts": []}}',  # parses, does not decode
        '{"id": "m8", "role": "user", "content": {"format": 2, "parts": [{"type": "text"}]}}',
        '"a string"',
        '{"id": "m1", "role": "user", "content": {"format": 2, "parts": []}}',  # another id
        "[1",  # with the next row's body, a valid array of other length
    ],
)
def test_a_corrupt_row_in_a_batch_is_named_as_alone(body: str) -> None:  # D30
    rows = _rows(20)
    rows[7] = ("m7", body)
    with pytest.raises(CorruptRecordError) as info:
        messages_from_rows(rows, "t", "r")
    assert (info.value.thread_id, info.value.message_id) == ("t", "m7")


def test_bodies_that_join_into_valid_json_of_other_rows_are_refused() -> None:  # D30
    # '[1' + ',' + '2],{...}' parses as a two-element array for two rows: neither is a message
    good = _rows(1)[0][1]
    rows = [("a", "[1"), ("b", f"2],{good}")]
    with pytest.raises(CorruptRecordError) as info:
        messages_from_rows(rows, "t", "r")
    assert info.value.message_id == "a"


@pytest.mark.asyncio
async def test_a_corrupt_row_among_the_history_fails_the_run(tmp_path: Path) -> None:  # D30
    path = tmp_path / "m.db"
    memory = Memory(SQLiteStorage(path), last_messages=100)
    agent = _agent(memory)
    try:
        for i in range(5):
            await agent.generate(f"turn {i}", thread_id="t", resource_id="r")
        [(bad,)] = sqlite3.connect(path).execute(
            "SELECT id FROM messages ORDER BY seq LIMIT 1 OFFSET 4"
        )
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE messages SET body = '{\"id\": 1}' WHERE id = ?", (bad,))
        with pytest.raises(ProcessorError, match=f"{bad}"):
            await agent.generate("next", thread_id="t", resource_id="r")
    finally:
        await memory.storage.close()


# -- after load: MessageList.add checks what memory adds; no second pass over the list -------


@pytest.mark.asyncio
async def test_the_history_hook_is_not_checked_twice(  # D30
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[str] = []
    original = HookRunner.check_edits

    def spy(self: HookRunner, hook: Any) -> None:
        checked.append(hook.processor_id)
        original(self, hook)

    monkeypatch.setattr(HookRunner, "check_edits", spy)
    memory = Memory(SQLiteStorage(tmp_path / "m.db"), last_messages=100)
    agent = _agent(memory)
    try:
        for i in range(3):
            await agent.generate(f"turn {i}", thread_id="t", resource_id="r")
    finally:
        await memory.storage.close()
    assert "message-history" not in checked


class EditingHistory(MessageHistory):
    """A subclass whose override loads history, then edits a remembered message in place."""

    async def process_input(
        self, *, message_list: MessageList, request_context: Any, **_: Any
    ) -> None:
        await super().process_input(message_list=message_list, request_context=request_context)
        remembered = message_list.get.remembered.db()
        if remembered:
            part = remembered[0].content.parts[0]
            assert isinstance(part, TextPart)
            part.text = None  # type: ignore[assignment]


@pytest.mark.asyncio
async def test_an_override_of_the_history_hook_is_checked(tmp_path: Path) -> None:  # D30
    storage = SQLiteStorage(tmp_path / "m.db")
    memory = Memory(storage, last_messages=100)
    editing = EditingHistory(storage, last_messages=100)
    model = ScriptedModel([Reply(text=["Sure."])], repeat_last=True)
    agent = Agent(id="checks", model=model, memory=memory, input_processors=[editing])
    try:
        await agent.generate("first", thread_id="t", resource_id="r")  # nothing to edit yet
        with pytest.raises(ProcessorError, match=r"message-history.*text") as info:
            await agent.generate("second", thread_id="t", resource_id="r")
        assert "process_input" in str(info.value)
        assert len(await storage.list_messages("t", resource_id="r")) == 2  # nothing stored
    finally:
        await storage.close()


def test_remembered_batches_go_after_the_remembered_in_order() -> None:
    message_list = MessageList(Message.user("now", id="input"), thread_id="t")
    message_list.add([Message.user("a", id="a"), Message.user("b", id="b")], "memory")
    message_list.add(
        [Message.user("c", id="c"), Message.user("again", id="a"), Message.user("x", id="input")],
        "memory",
    )
    assert [m.id for m in message_list.get.all.db()] == ["a", "b", "c", "input"]
    assert [m.text for m in message_list.get.all.db()] == ["a", "b", "c", "now"]
    assert message_list.get_source("c") == "memory"
    assert message_list.get_source("input") == "input"
