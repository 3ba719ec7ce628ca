"""A child process for the multi-process storage tests (run as a script, not collected).

Usage: ``storage_worker.py BACKEND TARGET SCHEMA MODE [ARGS...]`` where BACKEND is ``sqlite``
(TARGET a file) or ``postgres`` (TARGET a DSN, SCHEMA the schema). Modes:

* ``open``: open the storage (applying migrations) and print ``ok``.
* ``turns THREAD RESOURCE TAG COUNT SIZE TEXT_BYTES``: save COUNT turns of SIZE messages each,
  printing ``begin N`` before and ``done N SECONDS`` after saving turn N; message ids are
  ``TAG-N-I``.
* ``whole THREAD RESOURCE TAG COUNT SIZE TEXT_BYTES KINDS``: save COUNT whole runs: each turn's
  messages with a working-memory update (``turn N``, resource scope) and a vector per message,
  in one ``save_turn``. ``KINDS`` is one letter per turn: ``v`` a valid turn, ``n`` one whose
  last message holds a NUL, ``e`` one whose last message was edited into ``text = None``, ``m``
  one that also carries the message ``TAG-anchor`` of the thread ``THREAD-anchor``. Prints
  ``begin N KIND``, then ``done N SECONDS`` or ``refused N ERROR``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import UTC, datetime

from procession.errors import InvalidRecordError, MessageThreadError
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage, VectorItem, WorkingMemoryUpdate
from procession.messages.message import Message


def _storage(backend: str, target: str, schema: str) -> Storage:
    if backend == "sqlite":
        return SQLiteStorage(target)
    return PostgresStorage(target, schema=schema, max_size=2)


def _turn(tag: str, n: int, size: int, text_bytes: int) -> list[Message]:
    at = datetime.now(UTC)
    out = []
    for i in range(size):
        message = Message.user(f"{tag} {n} {i} " + "x" * text_bytes, id=f"{tag}-{n}-{i}")
        message.created_at = at
        out.append(message)
    return out


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def _turns(storage: Storage, args: list[str]) -> None:
    thread, resource, tag = args[0], args[1], args[2]
    count, size, text_bytes = int(args[3]), int(args[4]), int(args[5])
    for n in range(count):
        turn = _turn(tag, n, size, text_bytes)
        _say(f"begin {n}")
        started = time.perf_counter()
        await storage.save_turn(thread, resource, turn)
        _say(f"done {n} {time.perf_counter() - started:.6f}")


def vector(turn: int, index: int) -> list[float]:
    """The vector stored for message ``index`` of ``turn``: never all zeros."""
    return [1.0, float(turn), float(index), float((turn * 31 + index) % 7)]


def _spoil(turn: list[Message], kind: str, tag: str) -> list[Message]:
    last = turn[-1]
    if kind == "n":
        last.content.parts[0].text = f"{last.text}\x00"  # type: ignore[union-attr]
    elif kind == "e":
        last.content.parts[0].text = None  # type: ignore[union-attr]
    elif kind == "m":
        return [*turn, Message.user("moved?", id=f"{tag}-anchor")]
    return turn


async def _whole(storage: Storage, args: list[str]) -> None:
    thread, resource, tag = args[0], args[1], args[2]
    count, size, text_bytes, kinds = int(args[3]), int(args[4]), int(args[5]), args[6]
    await storage.get_resource(resource)  # connect and migrate first: turn 0 times a turn only
    for n in range(count):
        kind = kinds[n % len(kinds)]
        turn = _turn(tag, n, size, text_bytes)
        vectors: list[VectorItem] = [
            (m.id, thread, resource, vector(n, i)) for i, m in enumerate(turn)
        ]
        turn = _spoil(turn, kind, tag)
        _say(f"begin {n} {kind}")
        started = time.perf_counter()
        try:
            await storage.save_turn(
                thread,
                resource,
                turn,
                working_memory=WorkingMemoryUpdate(f"turn {n}"),
                vectors=vectors,
            )
        except (InvalidRecordError, MessageThreadError) as error:
            _say(f"refused {n} {type(error).__name__}")
            continue
        _say(f"done {n} {time.perf_counter() - started:.6f}")


async def main(argv: list[str]) -> None:
    backend, target, schema, mode, *rest = argv
    storage = _storage(backend, target, schema)
    try:
        if mode == "open":
            await storage.get_resource("nobody")
            _say("ok")
        elif mode == "turns":
            await _turns(storage, rest)
        elif mode == "whole":
            await _whole(storage, rest)
        else:
            raise SystemExit(f"unknown mode {mode!r}")
    finally:
        await storage.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
