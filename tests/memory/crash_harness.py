"""Kill a process while it commits whole runs, then check that storage kept whole turns only.

Shared by ``tests/memory/test_storage_processes.py`` (a few kills in CI) and
``bench/crash_storage.py`` (a hundred per backend, with figures). Not collected by pytest.

One *case*: a worker process (``storage_worker.py whole``) saves ``COUNT`` runs into one
thread, each a ``save_turn`` of ``size`` messages with a working-memory update and a vector
per message; some runs are ones storage must refuse (a NUL, a ``text = None`` edit, a message
of another thread). The harness SIGKILLs the worker at a random moment after it began a
random turn, then opens the store and checks it.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg

from procession.errors import StorageError
from procession.memory.postgres import PostgresStorage
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage
from procession.messages.message import Message

__all__ = [
    "KINDS",
    "CrashOutcome",
    "check_store",
    "drop_schema",
    "find_dsn",
    "open_storage",
    "run_case",
    "spawn",
]

WORKER = Path(__file__).with_name("storage_worker.py")
DSN_FILE = Path(__file__).resolve().parents[2] / ".pgdata" / "dsn"
KINDS = "vnvevmvvvvv"
"""One letter per turn (see ``storage_worker.py``): valid, NUL, edited, moved message. The
kill comes after one of the first turns began; the valid turns at the end keep the worker busy
until then."""
COUNT = len(KINDS)
TAIL = 4
"""Turns at the end a kill never targets."""


def find_dsn() -> str | None:
    """The test PostgreSQL: ``PROCESSION_TEST_POSTGRES_DSN``, else ``.pgdata/dsn``, else None."""
    dsn = os.environ.get("PROCESSION_TEST_POSTGRES_DSN")
    if dsn:
        return dsn
    if DSN_FILE.is_file():
        return DSN_FILE.read_text().strip() or None
    return None


async def drop_schema(dsn: str, schema: str) -> None:
    """Drop a PostgreSQL schema and everything in it."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    finally:
        await conn.close()


def spawn(backend: str, target: str, schema: str, *args: str) -> subprocess.Popen[str]:
    """Start a worker process whose stdout is a pipe of lines."""
    return subprocess.Popen(
        [sys.executable, str(WORKER), backend, target, schema, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def open_storage(backend: str, target: str, schema: str) -> Storage:
    """A storage of ``backend`` on ``target`` (a file, or a DSN and schema)."""
    if backend == "sqlite":
        return SQLiteStorage(target)
    return PostgresStorage(target, schema=schema, max_size=2)


@dataclass(slots=True)
class CrashOutcome:
    """What one case did and what the check found."""

    killed: bool
    """The worker died of the SIGKILL (it had not finished every turn)."""
    mid_turn: bool
    """The last thing it said was that it began a turn: the kill landed inside a turn."""
    stored: int
    """Whole turns found stored."""
    refused: int
    """Turns the worker reported refused before it died."""
    problems: list[str] = field(default_factory=list)
    """Half-written or wrongly stored turns; empty when storage kept whole turns only."""


def _kill_during(proc: subprocess.Popen[str], turn: int, fraction: float) -> list[str]:
    """SIGKILL ``fraction`` of turn 0's duration after the worker began ``turn``."""
    assert proc.stdout is not None
    lines: list[str] = []
    duration = 0.0
    for line in proc.stdout:
        lines.append(line.strip())
        word, number, *rest = line.split()
        if word == "done" and number == "0":
            duration = float(rest[0])
        if word == "begin" and int(number) == turn:
            time.sleep(duration * fraction)
            proc.send_signal(signal.SIGKILL)
            break
    out, err = proc.communicate(timeout=120)
    lines += out.split("\n")
    if proc.returncode not in (0, -signal.SIGKILL):
        raise RuntimeError(f"worker failed ({proc.returncode}): {err}")
    return [line for line in lines if line]


async def check_store(
    storage: Storage, thread: str, resource: str, tag: str, size: int
) -> tuple[int, list[str]]:
    """The whole turns stored, and every problem found (then one more write, which must work).

    Message ids are ``TAG-TURN-INDEX``; turn kinds follow :data:`KINDS`.
    """
    problems: list[str] = []
    try:
        messages = await storage.list_messages(thread, resource_id=resource)
    except StorageError as error:
        return 0, [f"the thread does not load: {error}"]
    anchor = f"{tag}-anchor"
    counts = Counter(int(m.id.split("-")[1]) for m in messages if m.id != anchor)
    for turn, count in sorted(counts.items()):
        if count != size:
            problems.append(f"turn {turn} half-written: {count} of {size} messages")
        if KINDS[turn] != "v":
            problems.append(f"turn {turn} ({KINDS[turn]}) should have been refused")
    last = max(counts, default=-1)
    expected = [n for n in range(last + 1) if KINDS[n] == "v"]
    if sorted(counts) != expected:
        problems.append(f"turns {sorted(counts)} stored, expected {expected}")
    for message in messages:
        turn_text = f"{tag} {message.id.split('-')[1]} "
        if message.id == anchor or not message.text.startswith(turn_text):
            problems.append(f"message {message.id} is wrong or moved here: {message.text[:30]!r}")
    moved = await storage.list_messages(f"{thread}-anchor", resource_id=resource)
    if [m.id for m in moved] != [anchor]:
        problems.append("the anchor message left its thread")
    hits = await storage.query_vectors(
        [1.0, 0.0, 0.0, 0.0], resource_id=resource, thread_id=thread, top_k=10**6
    )
    if sorted(h.message_id for h in hits) != sorted(m.id for m in messages):
        problems.append(f"{len(hits)} vectors for {len(messages)} messages")
    wm = await storage.get_working_memory(resource_id=resource)
    if wm != (f"turn {last}" if last >= 0 else None):
        problems.append(f"working memory {wm!r} after turn {last}")
    after = Message.user("after", id=f"{tag}-after-{uuid.uuid4().hex[:6]}")
    await storage.save_turn(f"{thread}-after", resource, [after])
    return len(counts), problems


async def run_case(
    backend: str,
    target: str,
    schema: str,
    rng: random.Random,
    *,
    size: int = 600,
    text_bytes: int = 200,
) -> CrashOutcome:
    """One kill at a random moment, and the check of what was left."""
    tag = f"k{uuid.uuid4().hex[:10]}"
    thread, resource = f"t{tag}", f"r{tag}"
    storage = open_storage(backend, target, schema)
    try:
        anchor = Message.user("anchor", id=f"{tag}-anchor")
        await storage.save_turn(f"{thread}-anchor", resource, [anchor])
    finally:
        await storage.close()
    turn, fraction = rng.randrange(1, COUNT - TAIL), rng.random() * 1.2
    args = (thread, resource, tag, str(COUNT), str(size), str(text_bytes), KINDS)
    proc = spawn(backend, target, schema, "whole", *args)
    lines = await asyncio.to_thread(_kill_during, proc, turn, fraction)
    storage = open_storage(backend, target, schema)
    try:
        stored, problems = await check_store(storage, thread, resource, tag, size)
    finally:
        await storage.close()
    last = lines[-1].split() if lines else ["", "0", "v"]
    return CrashOutcome(
        killed=proc.returncode == -signal.SIGKILL,
        mid_turn=proc.returncode == -signal.SIGKILL and last[0] == "begin" and last[2] == "v",
        stored=stored,
        refused=sum(line.startswith("refused") for line in lines),
        problems=problems,
    )
