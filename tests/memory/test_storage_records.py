"""What storage refuses to write, the same way on SQLite and PostgreSQL (D30, D34)."""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from procession.errors import (
    InvalidRecordError,
    MessageError,
    MessageThreadError,
    StorageError,
    ThreadOwnershipError,
)
from procession.memory import Storage, WorkingMemoryUpdate, check_storable
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.messages import Message, ToolInvocation, ToolInvocationPart


def ids() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"thread-{tag}", f"user-{tag}"


def _with_args(args: object) -> Message:
    invocation = ToolInvocation(state="call", tool_call_id="c1", tool_name="t", args=args)
    message = Message.assistant("calling")
    message.content.parts.append(ToolInvocationPart(tool_invocation=invocation))
    return message


def _edited(field: str, value: object) -> Message:
    message = Message.user("fine")
    setattr(message.content.parts[0], field, value)
    return message


# (case, a message no backend may store, the field the error names, what it says)
BAD: list[tuple[str, Callable[[], Message], str, str]] = [
    ("text None", lambda: _edited("text", None), "content.parts[0].text", "must be a string"),
    ("NUL text", lambda: Message.user("a\x00b"), "content.parts[0].text", "NUL character"),
    ("surrogate", lambda: Message.user("a\udc00"), "content.parts[0].text", "lone surrogate"),
    ("NUL in args", lambda: _with_args({"q": "\x00"}), "toolInvocation.args.q", "NUL"),
    ("NUL in a key", lambda: _with_args({"k\x00": 1}), "toolInvocation.args", "key that"),
    ("NaN", lambda: _with_args({"x": [1.0, math.nan]}), "args.x[1]", "finite number"),
    ("infinity", lambda: _with_args(math.inf), "toolInvocation.args", "finite number"),
    ("a set", lambda: _with_args({"tags": {"a"}}), "args.tags", "is not JSON (a set)"),
    ("an object", lambda: _with_args(object()), "toolInvocation.args", "is not JSON"),
    ("NUL id", lambda: Message.user("x", id="m\x00"), "id", "NUL"),
]


@pytest_asyncio.fixture
async def both(
    tmp_path: Path, postgres_dsn: str, postgres_schema: str
) -> AsyncIterator[list[Storage]]:
    """A SQLite file and PostgreSQL, to compare their errors."""
    stores: list[Storage] = [
        SQLiteStorage(tmp_path / "records.db"),
        PostgresStorage(postgres_dsn, schema=postgres_schema),
    ]
    yield stores
    for store in stores:
        await store.close()


async def _error(call: object) -> str:
    with pytest.raises(StorageError) as caught:
        await call  # type: ignore[misc]
    return f"{type(caught.value).__name__}: {caught.value}"


@pytest.mark.asyncio
@pytest.mark.parametrize(("case", "make", "field", "says"), BAD, ids=[b[0] for b in BAD])
async def test_every_backend_refuses_the_same_values_with_the_same_error(  # D30, D34
    both: list[Storage], case: str, make: Callable[[], Message], field: str, says: str
) -> None:
    thread_id, resource_id = ids()
    bad = make()
    with pytest.raises(InvalidRecordError) as checked:
        check_storable([Message.user("ok"), bad], thread_id=thread_id, resource_id=resource_id)
    expected = f"InvalidRecordError: {checked.value}"
    assert field in str(checked.value)
    assert says in str(checked.value)
    assert checked.value.thread_id == thread_id
    assert str(checked.value).startswith(f"thread {thread_id!r}")
    if case != "NUL id":
        assert checked.value.message_id == bad.id
        assert f"message {bad.id!r}" in str(checked.value)
    for storage in both:
        await storage.save_turn(thread_id, resource_id, [Message.user("before")])
        turn = [Message.user("ok"), bad]
        update = WorkingMemoryUpdate("# changed")
        assert (
            await _error(storage.save_turn(thread_id, resource_id, turn, working_memory=update))
            == expected
        )
        stored = await storage.list_messages(thread_id, resource_id=resource_id)
        assert [m.text for m in stored] == ["before"]  # nothing of the turn was written
        assert await storage.get_working_memory(resource_id=resource_id) is None


def test_an_invalid_record_is_both_a_storage_and_a_message_error() -> None:  # D30
    with pytest.raises(InvalidRecordError) as caught:
        check_storable(_edited("text", None), thread_id="t")
    assert isinstance(caught.value, StorageError)
    assert isinstance(caught.value, MessageError)
    assert caught.value.path == "content.parts[0].text"
    assert caught.value.value is None


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"thread_id": "t\x00"}, "thread_id"),
        ({"resource_id": "\ud800"}, "resource_id"),
        ({"thread_id": ""}, "thread_id"),
        ({"working_memory": "notes\x00"}, "working_memory"),
        ({"working_memory": 3}, "working_memory"),
        ({"messages": ["text"]}, "messages[0]"),
        ({"messages": "text"}, "messages"),
    ],
)
def test_check_storable_names_ids_and_working_memory(  # D34
    kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidRecordError) as caught:
        check_storable(**kwargs)  # type: ignore[arg-type]
    assert caught.value.path == field


def test_a_value_that_contains_itself_is_refused() -> None:  # D30
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(InvalidRecordError, match="contains itself") as caught:
        check_storable(_with_args({"loop": loop}), thread_id="t")
    assert caught.value.path == "message"


def test_text_that_only_looks_like_an_escaped_nul_is_stored() -> None:
    check_storable(Message.user("a literal \\u0000 is six characters"), thread_id="t")


@pytest.mark.asyncio
async def test_a_literal_backslash_u0000_round_trips(backend: Storage) -> None:
    thread_id, resource_id = ids()
    text = "C strings end at \\u0000 and JSON writes NUL as \\u0000"
    await backend.save_turn(thread_id, resource_id, [Message.user(text)])
    [stored] = await backend.list_messages(thread_id, resource_id=resource_id)
    assert stored.text == text


@pytest.mark.asyncio
async def test_an_in_place_edit_reaching_save_turn_writes_nothing(backend: Storage) -> None:  # D30
    thread_id, resource_id = ids()
    answer = Message.assistant("fine")
    await backend.save_turn(thread_id, resource_id, [Message.user("q")])
    answer.content.parts[0].text = None  # type: ignore[union-attr]
    with pytest.raises(InvalidRecordError) as caught:
        await backend.save_turn(thread_id, resource_id, [Message.user("q2"), answer])
    assert (caught.value.thread_id, caught.value.message_id) == (thread_id, answer.id)
    assert caught.value.path == "content.parts[0].text"
    assert [m.text for m in await backend.list_messages(thread_id, resource_id=resource_id)] == [
        "q"
    ]


@pytest.mark.asyncio
async def test_a_stored_message_never_moves_between_threads(backend: Storage) -> None:  # D34
    first, resource_id = ids()
    second = f"{first}-b"
    message = Message.user("hello", id=f"m-{first}")
    await backend.save_turn(first, resource_id, [message])
    with pytest.raises(MessageThreadError) as caught:
        await backend.save_turn(second, resource_id, [Message.user("x"), message])
    error = caught.value
    assert (error.message_id, error.thread_id, error.stored_thread_id) == (
        message.id,
        second,
        first,
    )
    assert [m.id for m in await backend.list_messages(first, resource_id=resource_id)] == [
        message.id
    ]
    assert await backend.get_thread(second, resource_id=resource_id) is None
    message.content.parts[0].text = "edited"  # type: ignore[union-attr]
    await backend.save_turn(first, resource_id, [message])  # its own thread: an upsert
    [stored] = await backend.list_messages(first, resource_id=resource_id)
    assert stored.text == "edited"


@pytest.mark.asyncio
async def test_check_message_ids_reads_and_writes_nothing(backend: Storage) -> None:  # D34
    thread_id, alice = ids()
    bob, other = f"bob-{thread_id}", f"{thread_id}-other"
    kept = Message.user("kept", id=f"kept-{thread_id}")
    await backend.save_turn(thread_id, alice, [kept])
    await backend.check_message_ids(thread_id, [kept.id, "new-id"], resource_id=alice)
    with pytest.raises(MessageThreadError, match="never moves"):
        await backend.check_message_ids(other, ["new-id", kept.id], resource_id=alice)
    with pytest.raises(ThreadOwnershipError, match=f"message {kept.id!r} belongs to resource"):
        await backend.check_message_ids(f"{bob}-t", [kept.id], resource_id=bob)
    with pytest.raises(ThreadOwnershipError, match=f"thread {thread_id!r} belongs to resource"):
        await backend.check_message_ids(thread_id, [], resource_id=bob)
    with pytest.raises(InvalidRecordError, match="NUL"):
        await backend.check_message_ids(thread_id, ["a\x00"], resource_id=alice)
    assert await backend.get_thread(other, resource_id=alice) is None
    assert await backend.list_threads(bob) == []
