"""``check_storage``: the contract every memory storage backend passes.

Run it against your own backend in your tests::

    async def test_my_storage() -> None:
        await check_storage(lambda: MyStorage(...))

The factory is called once per check and each storage it returns is closed after its check.
The checks only use ids they make up (random, unique), so they may run against a database
that holds other data. They cover threads, the message round trip and ordering, ``last`` and
``before``, upserts, lookups and deletes by id, resource isolation, messages that never move
between threads, records refused on write (D30, D34), working memory, vectors, all-or-nothing
turns, concurrent turns and the usage ledger.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from procession.errors import (
    InvalidRecordError,
    MessageThreadError,
    StorageError,
    ThreadOwnershipError,
)
from procession.memory.ledger import UsageRecord
from procession.memory.storage import Storage, WorkingMemoryUpdate
from procession.messages.codec import message_from_dict, message_to_dict
from procession.messages.message import Message, MessageContent
from procession.messages.parts import ReasoningPart, TextPart, ToolInvocation, ToolInvocationPart

__all__ = ["StorageContractError", "StorageContractReport", "check_storage"]

StorageFactory = Callable[[], Storage | Awaitable[Storage]]
Check = Callable[[Storage], Awaitable[None]]


class StorageContractError(AssertionError):
    """A storage backend broke the storage contract."""


@dataclass(slots=True)
class StorageContractReport:
    """The checks :func:`check_storage` ran, in order (all of them passed)."""

    passed: list[str] = field(default_factory=list)


async def check_storage(storage_factory: StorageFactory) -> StorageContractReport:
    """Run every contract check against fresh storages from ``storage_factory``.

    Raises :class:`StorageContractError` naming the first check that failed.
    """
    report = StorageContractReport()
    for name, check in CHECKS:
        made = storage_factory()
        storage = await made if inspect.isawaitable(made) else made
        try:
            await check(storage)
        except StorageContractError as error:
            raise StorageContractError(f"check_storage[{name}]: {error}") from error
        except Exception as error:
            raise StorageContractError(f"check_storage[{name}]: raised {error!r}") from error
        finally:
            await storage.close()
        report.passed.append(name)
    return report


# -- helpers --------------------------------------------------------------------------------


def _uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _expect(condition: bool, problem: str) -> None:
    if not condition:
        raise StorageContractError(problem)


def _dicts(messages: list[Message]) -> list[dict[str, Any]]:
    return [message_to_dict(m) for m in messages]


def _same(got: list[Message], want: list[Message], what: str) -> None:
    _expect(_dicts(got) == _dicts(want), f"{what}: got {_dicts(got)!r}, want {_dicts(want)!r}")


def _ids(messages: list[Message]) -> list[str]:
    return [m.id for m in messages]


def _turn(n: int, *, at: datetime | None = None, tag: str = "m") -> list[Message]:
    out = []
    for i in range(n):
        message = (Message.user if i % 2 == 0 else Message.assistant)(f"{tag} {i}", id=_uid(tag))
        if at is not None:
            message.created_at = at
        out.append(message)
    return out


def _owned(messages: list[Message], thread_id: str, resource_id: str) -> list[Message]:
    for message in messages:
        message.thread_id = thread_id
        message.resource_id = resource_id
    return messages


async def _raises(kind: type[Exception], call: Awaitable[object], *names: str) -> None:
    try:
        await call
    except kind as error:
        text = str(error)
        missing = [n for n in names if n not in text]
        _expect(not missing, f"{kind.__name__} {text!r} does not name {missing}")
        return
    raise StorageContractError(f"expected {kind.__name__}, nothing was raised")


# -- the checks -----------------------------------------------------------------------------


async def _threads(s: Storage) -> None:
    rid = _uid("res")
    t = await s.create_thread(resource_id=rid, title="First", metadata={"a": 1, "b": 2})
    _expect(t.resource_id == rid and t.title == "First", f"created {t!r}")
    _expect(t.metadata == {"a": 1, "b": 2}, f"created metadata {t.metadata!r}")
    _expect(await s.get_thread(t.id, resource_id=rid) == t, "get_thread differs from create")
    await _raises(StorageError, s.create_thread(resource_id=rid, thread_id=t.id), t.id)
    u = await s.update_thread(t.id, resource_id=rid, title="Renamed", metadata={"b": 3})
    _expect(u.title == "Renamed", f"title not updated: {u.title!r}")
    _expect(u.metadata == {"a": 1, "b": 3}, f"metadata not merged: {u.metadata!r}")
    _expect(u.updated_at >= t.updated_at and u.created_at == t.created_at, "timestamps")
    await _raises(StorageError, s.update_thread(_uid("none"), resource_id=rid, title="x"))
    t2 = await s.create_thread(resource_id=rid, thread_id=_uid("thread"))
    await s.save_turn(t.id, rid, _turn(1))
    listed = await s.list_threads(rid)
    _expect([x.id for x in listed] == [t.id, t2.id], f"list order {[x.id for x in listed]}")
    paged = await s.list_threads(rid, limit=1, offset=1)
    _expect([x.id for x in paged] == [t2.id], "limit/offset")
    _expect(await s.delete_thread(t.id, resource_id=rid), "delete_thread returned False")
    _expect(not await s.delete_thread(t.id, resource_id=rid), "second delete returned True")
    _expect(await s.get_thread(t.id, resource_id=rid) is None, "deleted thread still there")
    _expect(await s.list_messages(t.id, resource_id=rid) == [], "deleted thread's messages")
    _expect(await s.get_thread(_uid("none"), resource_id=rid) is None, "unknown thread")


def _rich_turn() -> list[Message]:
    user = Message.user("What is 2+2? é ✓", id=_uid("u"))
    invocation = ToolInvocation(
        state="result", tool_call_id="call-1", tool_name="calc", args={"q": "2+2"}, result=4
    )
    assistant = Message(
        id=_uid("a"),
        role="assistant",
        content=MessageContent(
            parts=[
                ReasoningPart(reasoning="add", details=[]),
                ToolInvocationPart(tool_invocation=invocation),
                TextPart(text="4"),
            ],
            metadata={"k": [1, 2]},
        ),
        type="text",
    )
    return [user, assistant]


async def _round_trip(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    turn = _rich_turn()
    before = datetime.now(UTC) - timedelta(seconds=1)
    await s.save_turn(tid, rid, turn)
    thread = await s.get_thread(tid, resource_id=rid)
    _expect(thread is not None and thread.resource_id == rid, "save_turn did not create thread")
    assert thread is not None
    _expect(thread.updated_at >= before, "updated_at not set")
    got = await s.list_messages(tid, resource_id=rid)
    _same(got, _owned(_rich_turn_copy(turn), tid, rid), "round trip")
    await s.save_turn(tid, rid, _turn(1))
    bumped = await s.get_thread(tid, resource_id=rid)
    _expect(bumped is not None and bumped.updated_at >= thread.updated_at, "updated_at bump")
    await s.save_turn(tid, rid, [])
    _expect(len(await s.list_messages(tid, resource_id=rid)) == 3, "empty turn changed data")


def _rich_turn_copy(turn: list[Message]) -> list[Message]:
    return [message_from_dict(message_to_dict(m)) for m in turn]


async def _upsert(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    turn = _turn(3)
    await s.save_turn(tid, rid, turn)
    edited = _rich_turn_copy(turn)
    edited[1].content.parts = [TextPart(text="edited")]
    await s.save_turn(tid, rid, [edited[1]])
    got = await s.list_messages(tid, resource_id=rid)
    _expect(_ids(got) == _ids(turn), f"upsert changed order or count: {_ids(got)}")
    _expect(got[1].text == "edited", f"upsert did not replace: {got[1].text!r}")
    dup = _rich_turn_copy(turn[:1])[0]
    dup.content.parts = [TextPart(text="last wins")]
    await s.save_turn(tid, rid, [turn[0], dup])
    got = await s.list_messages(tid, resource_id=rid)
    _expect(got[0].text == "last wins", "duplicate ids in one turn: the last must win")
    # D34: a stored message never moves between threads; the refused turn writes nothing.
    other = _uid("thread")
    moved = s.save_turn(other, rid, [*_turn(1), edited[2]])
    await _raises(MessageThreadError, moved, turn[2].id, tid, other)
    _expect(await s.get_thread(other, resource_id=rid) is None, "refused turn left a thread")
    _expect(_ids(await s.list_messages(tid, resource_id=rid)) == _ids(turn), "message moved")


async def _ordering(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    base = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    late, early = _turn(2, at=base + timedelta(minutes=5)), _turn(2, at=base)
    await s.save_turn(tid, rid, late)
    await s.save_turn(tid, rid, early)
    want = _ids(early) + _ids(late)
    got = await s.list_messages(tid, resource_id=rid)
    _expect(_ids(got) == want, f"not oldest-first by created_at, then save order: {_ids(got)}")
    _expect(_ids(await s.list_messages(tid, resource_id=rid, last=3)) == want[1:], "last=3")
    _expect(_ids(await s.list_messages(tid, resource_id=rid, last=10)) == want, "last=10")
    _expect(await s.list_messages(tid, resource_id=rid, last=0) == [], "last=0")
    cut = base + timedelta(minutes=1)
    _expect(_ids(await s.list_messages(tid, resource_id=rid, before=cut)) == want[:2], "before dt")
    by_id = await s.list_messages(tid, resource_id=rid, before=want[2], last=1)
    _expect(_ids(by_id) == [want[1]], f"before=id with last=1: {_ids(by_id)}")
    tie = await s.list_messages(tid, resource_id=rid, before=want[1])
    _expect(_ids(tie) == [want[0]], f"before=id with equal created_at: {_ids(tie)}")
    await _raises(StorageError, s.list_messages(tid, resource_id=rid, before=_uid("x")))
    _expect(await s.list_messages(_uid("none"), resource_id=rid) == [], "unknown thread")


async def _by_ids(s: Storage) -> None:
    rid, t1, t2 = _uid("res"), _uid("thread"), _uid("thread")
    base = datetime(2024, 5, 1, tzinfo=UTC)
    a, b = _turn(3, at=base), _turn(2, at=base + timedelta(hours=1))
    await s.save_turn(t2, rid, b)
    await s.save_turn(t1, rid, a)
    got = await s.get_messages_by_ids([b[1].id, a[2].id, "nope", a[0].id], resource_id=rid)
    _expect(_ids(got) == [a[0].id, a[2].id, b[1].id], f"by ids, oldest first: {_ids(got)}")
    _expect([m.thread_id for m in got] == [t1, t1, t2], "by ids: thread ids")
    _expect(await s.get_messages_by_ids([], resource_id=rid) == [], "no ids")
    await s.upsert_vectors([(a[0].id, t1, rid, [1.0, 0.0])])
    count = await s.delete_messages([a[0].id, b[0].id, "nope"], resource_id=rid)
    _expect(count == 2, f"delete_messages count {count}")
    _expect(_ids(await s.list_messages(t1, resource_id=rid)) == _ids(a[1:]), "deleted")
    hits = await s.query_vectors([1.0, 0.0], resource_id=rid)
    _expect(hits == [], f"vectors of deleted messages remain: {hits}")


async def _isolation(s: Storage) -> None:
    alice, bob, tid = _uid("alice"), _uid("bob"), _uid("thread")
    turn = _turn(2)
    await s.save_turn(tid, alice, turn)
    await s.update_thread(tid, resource_id=alice, title="secret")
    await s.set_working_memory("alice wm", resource_id=alice, thread_id=tid)
    await s.upsert_vectors([(turn[0].id, tid, alice, [1.0, 0.0])])
    err, names = ThreadOwnershipError, (tid, alice, bob)
    await _raises(err, s.get_thread(tid, resource_id=bob), *names)
    await _raises(err, s.list_messages(tid, resource_id=bob), *names)
    await _raises(err, s.save_turn(tid, bob, _turn(1)), *names)
    await _raises(err, s.update_thread(tid, resource_id=bob, title="pwned"), *names)
    await _raises(err, s.delete_thread(tid, resource_id=bob), *names)
    await _raises(err, s.create_thread(resource_id=bob, thread_id=tid), *names)
    await _raises(err, s.get_working_memory(resource_id=bob, thread_id=tid), *names)
    await _raises(err, s.set_working_memory("x", resource_id=bob, thread_id=tid), *names)
    await _raises(err, s.upsert_vectors([(_uid("m"), tid, bob, [1.0, 0.0])]), *names)
    bob_thread = _uid("thread")
    stolen = _rich_turn_copy(turn[:1])[0]
    await _raises(err, s.save_turn(bob_thread, bob, [*_turn(1), stolen]), turn[0].id, alice, bob)
    _expect(await s.get_thread(bob_thread, resource_id=bob) is None, "refused turn left a thread")
    vec = [(turn[0].id, bob_thread, bob, [1.0, 0.0])]
    await _raises(err, s.upsert_vectors(vec), turn[0].id, alice, bob)
    _expect(await s.list_threads(bob) == [], "bob sees threads")
    _expect(await s.get_messages_by_ids(_ids(turn), resource_id=bob) == [], "bob reads by id")
    _expect(await s.delete_messages(_ids(turn), resource_id=bob) == 0, "bob deletes by id")
    _expect(await s.query_vectors([1.0, 0.0], resource_id=bob) == [], "bob's vector search")
    thread = await s.get_thread(tid, resource_id=alice)
    _expect(thread is not None and thread.title == "secret", "alice's thread changed")
    got = await s.list_messages(tid, resource_id=alice)
    _same(got, _owned(_rich_turn_copy(turn), tid, alice), "alice's messages changed")
    wm = await s.get_working_memory(resource_id=alice, thread_id=tid)
    _expect(wm == "alice wm", f"alice's working memory changed: {wm!r}")


async def _message_ids(s: Storage) -> None:
    alice, bob, tid, other = _uid("alice"), _uid("bob"), _uid("thread"), _uid("thread")
    turn = _turn(2)
    await s.save_turn(tid, alice, turn)
    fresh = _uid("m")
    await s.check_message_ids(tid, [*_ids(turn), fresh], resource_id=alice)
    await s.check_message_ids(other, [fresh], resource_id=alice)
    await s.check_message_ids(other, [], resource_id=alice)
    ids = [fresh, turn[1].id]
    await _raises(
        MessageThreadError,
        s.check_message_ids(other, ids, resource_id=alice),
        turn[1].id,
        tid,
        other,
    )
    await _raises(
        ThreadOwnershipError,
        s.check_message_ids(_uid("thread"), ids, resource_id=bob),
        turn[1].id,
        alice,
        bob,
    )
    await _raises(
        ThreadOwnershipError, s.check_message_ids(tid, [fresh], resource_id=bob), tid, alice, bob
    )
    _expect(await s.get_thread(other, resource_id=alice) is None, "check_message_ids wrote")


def _broken(edit: Callable[[Message], object]) -> Message:
    message = Message.user("fine", id=_uid("bad"))
    edit(message)
    return message


def _set_part(field: str, value: object) -> Callable[[Message], object]:
    return lambda m: setattr(m.content.parts[0], field, value)


def _set_metadata(value: object) -> Callable[[Message], object]:
    return lambda m: setattr(m.content, "metadata", value)


# (what is wrong, how to break a message, the field the error must name)
_BAD_MESSAGES: tuple[tuple[str, Callable[[Message], object], str], ...] = (
    ("text None", _set_part("text", None), "content.parts[0].text"),
    ("NUL in text", _set_part("text", "a\x00b"), "content.parts[0].text"),
    ("lone surrogate", _set_part("text", "a\ud800b"), "content.parts[0].text"),
    ("NUL in a key", _set_metadata({"k\x00": 1}), "content.metadata"),
    ("NaN", _set_metadata({"score": math.nan}), "content.metadata.score"),
    ("not JSON", _set_metadata({"tags": {1, 2}}), "content.metadata.tags"),
    ("NUL in a list", _set_metadata({"xs": ["ok", "\x00"]}), "content.metadata.xs[1]"),
    ("created_at text", lambda m: setattr(m, "created_at", "today"), "createdAt"),
    ("NUL in type", lambda m: setattr(m, "type", "\x00"), "type"),
)


async def _invalid_records(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    first = _turn(1)
    await s.save_turn(tid, rid, first)
    for what, edit, where in _BAD_MESSAGES:
        bad, fresh = _broken(edit), _uid("thread")
        for thread in (tid, fresh):
            call = s.save_turn(
                thread, rid, [*_turn(1), bad], working_memory=WorkingMemoryUpdate("# changed")
            )
            await _raises(InvalidRecordError, call, thread, bad.id, where)
        _expect(await s.get_thread(fresh, resource_id=rid) is None, f"{what}: left a thread")
        _expect(await s.get_working_memory(resource_id=rid) is None, f"{what}: stored wm")
    stored = await s.list_messages(tid, resource_id=rid)
    _same(stored, _owned(_rich_turn_copy(first), tid, rid), "a refused turn changed the thread")
    await _refused_values(s, tid, rid)
    _expect(await s.get_working_memory(resource_id=rid) is None, "a refused write stored wm")
    _expect(len(await s.list_threads(rid)) == 1, "a refused write created a thread")
    await s.save_turn(tid, rid, _turn(1))  # still takes writes
    _expect(len(await s.list_messages(tid, resource_id=rid)) == 2, "a good turn after refusals")


async def _refused_values(s: Storage, tid: str, rid: str) -> None:
    """Ids, titles, metadata and working memory no backend can store, on reads and writes."""
    nul, wm = "t\x00", WorkingMemoryUpdate
    calls: list[tuple[Callable[[], Awaitable[object]], str]] = [
        (lambda: s.save_turn(nul, rid, _turn(1)), "thread_id"),
        (lambda: s.save_turn(tid, "r\x00", _turn(1)), "resource_id"),
        (lambda: s.get_thread(nul, resource_id=rid), "thread_id"),
        (lambda: s.list_messages(nul, resource_id=rid), "thread_id"),
        (lambda: s.list_threads("r\x00"), "resource_id"),
        (lambda: s.get_messages_by_ids([nul], resource_id=rid), "message id"),
        (lambda: s.create_thread(resource_id=rid, title="a\x00"), "title"),
        (lambda: s.create_thread(resource_id=rid, metadata={"a": "\x00"}), "metadata.a"),
        (lambda: s.update_thread(tid, resource_id=rid, metadata={"a": "\ud800"}), "metadata.a"),
        (lambda: s.update_resource(rid, metadata={"a": "\x00"}), "metadata.a"),
        (lambda: s.set_working_memory("wm\x00", resource_id=rid), "working_memory"),
        (lambda: s.save_turn(tid, rid, [], working_memory=wm("\x00", tid)), "working_memory"),
        (lambda: s.upsert_vectors([(nul, tid, rid, [1.0])]), "message id"),
    ]
    for call, where in calls:
        await _raises(InvalidRecordError, call(), where, "storage cannot hold")


async def _working_memory(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    _expect(await s.get_working_memory(resource_id=rid) is None, "fresh resource wm")
    _expect(await s.get_working_memory(resource_id=rid, thread_id=tid) is None, "fresh thread")
    await s.set_working_memory("# thread", resource_id=rid, thread_id=tid)
    _expect(await s.get_thread(tid, resource_id=rid) is not None, "thread wm creates thread")
    await s.set_working_memory("# resource", resource_id=rid)
    await s.set_working_memory("# resource 2", resource_id=rid)
    _expect(await s.get_working_memory(resource_id=rid) == "# resource 2", "resource wm")
    got = await s.get_working_memory(resource_id=rid, thread_id=tid)
    _expect(got == "# thread", f"thread wm: {got!r}")
    resource = await s.get_resource(rid)
    _expect(resource is not None and resource.working_memory == "# resource 2", "get_resource")
    updated = await s.update_resource(rid, metadata={"plan": "pro"})
    updated = await s.update_resource(rid, metadata={"seats": 3})
    _expect(updated.metadata == {"plan": "pro", "seats": 3}, f"merge: {updated.metadata}")
    _expect(updated.working_memory == "# resource 2", "update_resource lost working memory")
    _expect(await s.get_resource(_uid("none")) is None, "unknown resource")
    await s.set_working_memory(None, resource_id=rid, thread_id=tid)
    _expect(await s.get_working_memory(resource_id=rid, thread_id=tid) is None, "clear wm")


async def _vectors(s: Storage) -> None:
    rid, t1, t2 = _uid("res"), _uid("thread"), _uid("thread")
    x, xy, y, old, z = (_uid(name) for name in ("x", "xy", "y", "old", "z"))
    await s.upsert_vectors(
        [
            (x, t1, rid, [1.0, 0.0, 0.0]),
            (xy, t1, rid, [1.0, 1.0, 0.0]),
            (y, t2, rid, [0.0, 1.0, 0.0]),
            (old, t2, rid, [1.0, 0.0]),
        ]
    )
    hits = await s.query_vectors([1.0, 0.0, 0.0], resource_id=rid, top_k=2)
    _expect([h.message_id for h in hits] == [x, xy], f"top_k order: {hits}")
    _expect(math.isclose(hits[0].score, 1.0, abs_tol=1e-5), f"score {hits[0].score}")
    _expect(math.isclose(hits[1].score, math.sqrt(0.5), abs_tol=1e-5), f"score {hits[1]}")
    _expect(hits[0].thread_id == t1, "hit thread id")
    some = await s.query_vectors([1.0, 0.0, 0.0], resource_id=rid, top_k=10, threshold=0.5)
    _expect({h.message_id for h in some} == {x, xy}, f"threshold: {some}")
    scoped = await s.query_vectors([1.0, 0.0, 0.0], resource_id=rid, thread_id=t2, top_k=10)
    _expect([h.message_id for h in scoped] == [y], f"thread scope: {scoped}")
    await s.upsert_vectors([(y, t2, rid, [1.0, 0.0, 0.0])])
    again = await s.query_vectors([1.0, 0.0, 0.0], resource_id=rid, thread_id=t2)
    _expect(math.isclose(again[0].score, 1.0, abs_tol=1e-5), "upsert did not replace vector")
    await _raises(StorageError, s.upsert_vectors([(z, t1, rid, [])]))
    await _raises(StorageError, s.upsert_vectors([(z, t1, rid, [math.nan])]))
    await s.save_turn(t1, rid, _turn(1))
    await s.delete_thread(t1, resource_id=rid)
    left = await s.query_vectors([1.0, 0.0, 0.0], resource_id=rid, top_k=10)
    _expect([h.message_id for h in left] == [y], f"delete_thread left vectors: {left}")


async def _around(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    base = datetime(2024, 1, 1, tzinfo=UTC)
    turn = _turn(10)
    for index, message in enumerate(turn):
        message.created_at = base + timedelta(seconds=index)
    await s.save_turn(tid, rid, turn)
    ids = _ids(turn)
    got = await s.list_messages_around(tid, [ids[4]], resource_id=rid, before=2, after=1)
    _expect(_ids(got) == ids[2:6], f"range around one: {_ids(got)}")
    got = await s.list_messages_around(
        tid, [ids[8], ids[1], ids[2]], resource_id=rid, before=1, after=1
    )
    _expect(_ids(got) == [*ids[0:4], *ids[7:10]], f"overlapping ranges: {_ids(got)}")
    got = await s.list_messages_around(tid, [ids[0], _uid("none")], resource_id=rid)
    _expect(_ids(got) == ids[:1], f"only the anchor: {_ids(got)}")
    await _raises(
        ThreadOwnershipError, s.list_messages_around(tid, ids[:1], resource_id=_uid("res"))
    )


async def _atomic_turn(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    await s.save_turn(tid, rid, _turn(1))
    bad: list[Any] = [*_turn(2), "not a message"]
    await _raises(StorageError, s.save_turn(tid, rid, bad))
    _expect(len(await s.list_messages(tid, resource_id=rid)) == 1, "half a refused turn stored")


async def _whole_run(s: Storage) -> None:
    rid, tid, other = _uid("res"), _uid("thread"), _uid("res")
    turn = _turn(2)
    await s.save_turn(
        tid,
        rid,
        turn,
        working_memory=WorkingMemoryUpdate("# notes", tid),
        vectors=[(turn[0].id, tid, rid, [1.0, 0.0])],
    )
    _expect(await s.get_working_memory(resource_id=rid, thread_id=tid) == "# notes", "wm")
    hits = await s.query_vectors([1.0, 0.0], resource_id=rid)
    _expect([h.message_id for h in hits] == [turn[0].id], f"vectors with the turn: {hits}")
    # A turn whose vector names a thread of another resource fails whole: no message, no
    # working memory, no vector of it is stored (D13).
    later = _turn(2)
    await _raises(
        ThreadOwnershipError,
        s.save_turn(
            tid,
            rid,
            later,
            working_memory=WorkingMemoryUpdate("# changed", tid),
            vectors=[(later[0].id, tid, other, [0.0, 1.0])],
        ),
    )
    stored = _ids(await s.list_messages(tid, resource_id=rid))
    _expect(stored == _ids(turn), f"a failed run left messages behind: {stored}")
    _expect(
        await s.get_working_memory(resource_id=rid, thread_id=tid) == "# notes",
        "a failed run changed working memory",
    )
    _expect(
        await s.query_vectors([0.0, 1.0], resource_id=other, threshold=0.99) == [],
        "a failed run stored a vector",
    )


async def _concurrent_one_thread(s: Storage) -> None:
    rid, tid = _uid("res"), _uid("thread")
    at = datetime(2024, 1, 1, tzinfo=UTC)
    turns = [_turn(40, at=at, tag=f"t{i}") for i in range(16)]
    seen: list[list[str]] = []

    async def reader() -> None:
        for _ in range(20):
            seen.append(_ids(await s.list_messages(tid, resource_id=rid)))
            await asyncio.sleep(0)

    await asyncio.gather(reader(), *(s.save_turn(tid, rid, t) for t in turns), reader())
    stored = _ids(await s.list_messages(tid, resource_id=rid))
    _expect(sorted(stored) == sorted(i for t in turns for i in _ids(t)), "lost messages")
    for turn in turns:
        start = stored.index(turn[0].id)
        _expect(stored[start : start + 40] == _ids(turn), f"turn {turn[0].id} interleaved")
    for snapshot in seen:
        for turn in turns:
            present = sum(i in snapshot for i in _ids(turn))
            _expect(present in (0, 40), f"a reader saw {present} of 40 messages of a turn")


async def _concurrent_threads(s: Storage) -> None:
    rid = _uid("res")
    turns = {_uid("thread"): _turn(4) for _ in range(16)}
    await asyncio.gather(*(s.save_turn(tid, rid, turn) for tid, turn in turns.items()))
    for tid, turn in turns.items():
        _expect(_ids(await s.list_messages(tid, resource_id=rid)) == _ids(turn), tid)
    _expect(len(await s.list_threads(rid)) == 16, "threads missing")


def _usage(run_id: str, at: datetime, **values: Any) -> UsageRecord:
    fields: dict[str, Any] = {
        "agent_id": "contract-agent",
        "model": "openai/gpt-5-mini",
        "input_tokens": 100,
        "output_tokens": 20,
        "total_tokens": 120,
        "cost": 0.25,
        "created_at": at,
    }
    fields.update(values)
    return UsageRecord(run_id=run_id, **fields)


async def _usage_ledger(s: Storage) -> None:
    rid, tid, other = _uid("res"), _uid("thread"), _uid("res")
    at = datetime(2024, 3, 1, 12, tzinfo=UTC)
    runs = [_uid("run") for _ in range(4)]
    await s.record_usage(_usage(runs[0], at, resource_id=rid, thread_id=tid, reasoning_tokens=5))
    await s.record_usage(_usage(runs[1], at + timedelta(hours=1), resource_id=rid, cost=None))
    await s.record_usage(
        _usage(runs[2], at + timedelta(days=2), resource_id=rid, cached_input_tokens=40)
    )
    await s.record_usage(_usage(runs[3], at, resource_id=other, cost=1.5, currency="EUR"))
    totals = await s.usage_totals(resource_id=rid)
    _expect(totals.runs == 3 and totals.unpriced_runs == 1, f"resource totals {totals!r}")
    _expect(math.isclose(totals.cost, 0.5), f"cost of the priced runs: {totals.cost!r}")
    _expect((totals.input_tokens, totals.output_tokens) == (300, 60), f"tokens {totals!r}")
    _expect((totals.reasoning_tokens, totals.cached_input_tokens) == (5, 40), f"{totals!r}")
    window = await s.usage_totals(resource_id=rid, since=at + timedelta(minutes=30))
    _expect(window.runs == 2, f"since: {window!r}")
    before = await s.usage_totals(resource_id=rid, until=at + timedelta(hours=1))
    _expect(before.runs == 1, f"until is exclusive: {before!r}")
    _expect((await s.usage_totals(thread_id=tid)).runs == 1, "thread scope")
    _expect((await s.usage_totals(run_id=runs[2])).cached_input_tokens == 40, "run scope")
    eur = await s.usage_totals(resource_id=other, currency="EUR")
    _expect(math.isclose(eur.cost, 1.5), f"currency: {eur!r}")
    _expect((await s.usage_totals(resource_id=other)).cost == 0, "EUR counted as USD")
    await s.record_usage(_usage(runs[0], at, resource_id=rid, thread_id=tid, cost=2.0))
    again = await s.usage_totals(resource_id=rid)
    _expect(again.runs == 3 and math.isclose(again.cost, 2.25), f"a rewrite replaces: {again!r}")
    listed = await s.list_usage(resource_id=rid)
    _expect([r.run_id for r in listed] == [runs[2], runs[1], runs[0]], "list_usage order")
    _expect(listed[2].thread_id == tid and listed[2].created_at == at, f"row {listed[2]!r}")
    _expect(listed[1].cost is None, "an unpriced row reads back priced")
    _expect(len(await s.list_usage(resource_id=rid, limit=1)) == 1, "list_usage limit")
    empty = await s.usage_totals(resource_id=_uid("none"))
    _expect(empty.runs == 0 and empty.cost == 0, f"no rows: {empty!r}")
    await _raises(StorageError, s.record_usage(_usage(_uid("run"), at, input_tokens=-1)), "input")
    await _raises(StorageError, s.record_usage(_usage("", at)), "run_id")
    await _raises(StorageError, s.usage_totals(resource_id=""), "resource_id")


CHECKS: tuple[tuple[str, Check], ...] = (
    ("threads", _threads),
    ("round_trip", _round_trip),
    ("upsert", _upsert),
    ("ordering", _ordering),
    ("by_ids", _by_ids),
    ("isolation", _isolation),
    ("message_ids", _message_ids),
    ("invalid_records", _invalid_records),
    ("working_memory", _working_memory),
    ("vectors", _vectors),
    ("around", _around),
    ("atomic_turn", _atomic_turn),
    ("whole_run", _whole_run),
    ("concurrent_one_thread", _concurrent_one_thread),
    ("concurrent_threads", _concurrent_threads),
    ("usage_ledger", _usage_ledger),
)
"""The checks, by name, in the order :func:`check_storage` runs them."""
