"""Secrets at rest in durable runs (issue 20): checkpoints are JSON (a planted pickle does not
execute), sealed with Fernet when a key is configured (ciphertext in the database, the run
replays with the key, a clear error without it), deleted when their run ends, pruned when a
run crashed; with a key, no raw secret of the model's output or of the user's input is
anywhere in the database after a durable run on PostgreSQL (DBOS's tables included)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import pickle
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import pytest_asyncio

from procession import Agent, tool
from procession.durable import DBOSJournal, DurableRuns
from procession.durable.checkpoints import Checkpoints, Sealer, prune_checkpoints
from procession.errors import StorageError
from procession.guardrails import PIIDetector, StreamRedactor
from procession.testing import Reply, ScriptedModel, ToolCallScript
from tests.durable.test_dbos_kills import _database_url, _drop_database

pytest.importorskip("dbos")
cryptography = pytest.importorskip("cryptography.fernet")

CARD, MAIL = "4111 1111 1111 1111", "ada.lovelace@example.com"
API_KEY = "sk-live-9fQ2mZx7LpR4tW8vB3nK"
TYPED_CARD = "5500 0000 0000 0004"
RAW = (CARD, MAIL, API_KEY, TYPED_CARD)


@tool
def lookup(order: str) -> str:
    """Look an order up (its result carries the API key, as a careless tool might)."""
    return f"order {order}: key {API_KEY}"


def _agent() -> Agent:
    text = f"Your card {CARD} is on file; we mail {MAIL}; the key is {API_KEY}."
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup", {"order": "7"}, "c1")]),
            Reply(text=[text[:17], text[17:40], text[40:]]),
        ]
    )
    return Agent(
        id="support",
        model=model,
        tools=[lookup],
        input_processors=[PIIDetector()],
        output_processors=[StreamRedactor(), PIIDetector()],
    )


@pytest_asyncio.fixture
async def database(postgres_dsn: str) -> AsyncIterator[str]:
    name = f"procession_rest_{uuid.uuid4().hex[:8]}"
    conn = await asyncpg.connect(postgres_dsn)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    try:
        yield _database_url(postgres_dsn, name)
    finally:
        await _drop_database(postgres_dsn, name)


def _decoded(cell: str) -> str:
    """``cell`` and, where it is base64 (DBOS's pickles), what it decodes to."""
    out = [cell]
    for word in cell.replace('"', " ").split():
        try:
            out.append(base64.b64decode(word, validate=True).decode("latin-1"))
        except (binascii.Error, ValueError):
            continue
    return "\n".join(out)


async def _everything(url: str) -> str:
    """Every row of every table of the database, as text (base64 decoded)."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch(
            "SELECT table_schema, table_name FROM information_schema.tables"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
        )
        cells = []
        for row in tables:
            name = f'"{row["table_schema"]}"."{row["table_name"]}"'
            for record in await conn.fetch(f"SELECT row_to_json(t)::text AS j FROM {name} t"):
                cells.append(_decoded(record["j"]))
    finally:
        await conn.close()
    return "\n".join(cells)


async def _run(url: str, key: str | None) -> dict[str, Any]:
    runs = DurableRuns([_agent()], database_url=url, encryption_key=key)
    await runs.launch()
    try:
        run = await runs.start("support", f"My card is {TYPED_CARD}, where is order 7?")
        shown = "".join([str(chunk.payload.get("text", "")) async for chunk in run])
        summary = await run.result()
    finally:
        await runs.close()
    assert summary["status"] == "done", summary
    assert not any(value in shown for value in RAW)  # the client saw none of them
    return summary


@pytest.mark.asyncio
async def test_with_a_key_no_raw_secret_rests_in_the_database(database: str) -> None:
    key = cryptography.Fernet.generate_key().decode()
    await _run(database, key)
    stored = await _everything(database)
    assert "procession_sealed" in stored  # DBOS's rows went through the sealer
    assert key not in stored
    for value in RAW:
        assert value not in stored, value


@pytest.mark.asyncio
async def test_checkpoints_are_deleted_when_their_run_ends(database: str) -> None:
    summary = await _run(database, None)
    conn = await asyncpg.connect(database)
    try:
        left = await conn.fetchval(
            "SELECT count(*) FROM procession.checkpoints WHERE run_id = $1", summary["runId"]
        )
    finally:
        await conn.close()
    assert left == 0
    stored = await _everything(database)
    assert CARD not in stored  # the model's raw output rested only in the run's checkpoints
    assert TYPED_CARD in stored  # without a key, DBOS keeps the run's input (documented)


@pytest.mark.asyncio
async def test_prune_keeps_the_checkpoints_of_pending_runs(database: str) -> None:
    summary = await _run(database, None)  # DBOS's schema exists now
    store = await Checkpoints.open(database)
    conn = await asyncpg.connect(database)
    try:
        await conn.execute(
            "INSERT INTO dbos.workflow_status (workflow_uuid, status, name, created_at,"
            " updated_at) VALUES ('run-pending', 'PENDING', 'procession.run', 0, 0)"
        )
        for run_id in (summary["runId"], "run-pending"):  # one ended, one still pending
            await (await store.run(run_id)).record(f"{run_id}:tool:0:0:c1", [True, "x"])
        assert await prune_checkpoints(database) == 1
        left = await conn.fetch("SELECT run_id FROM procession.checkpoints")
    finally:
        await conn.close()
        await store.close()
    assert [row["run_id"] for row in left] == ["run-pending"]


@pytest_asyncio.fixture
async def store(database: str) -> AsyncIterator[Checkpoints]:
    checkpoints = await Checkpoints.open(database)
    try:
        yield checkpoints
    finally:
        await checkpoints.close()


class _Planted:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.path,))


@pytest.mark.asyncio
async def test_a_planted_pickle_is_refused_not_executed(
    store: Checkpoints, database: str, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    conn = await asyncpg.connect(database)
    try:
        await conn.execute(
            "INSERT INTO procession.checkpoints (run_id, key, record) VALUES ($1, $2, $3)",
            "run-x",
            "run-x:tool:0:0:c1",
            pickle.dumps(_Planted(marker)),
        )
    finally:
        await conn.close()
    records = await store.run("run-x")
    with pytest.raises(StorageError, match=r"run-x: checkpoint run-x:tool:0:0:c1.*not JSON"):
        records.get("run-x:tool:0:0:c1")
    assert not marker.exists()


async def _replay(store: Checkpoints, run_id: str, calls: list[str]) -> Any:
    @tool
    def count(n: int) -> str:
        """Count."""
        calls.append("tool")
        return f"counted {n} for {MAIL}"

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("count", {"n": 2}, "c1")]), Reply(text=[CARD])]
    )
    agent = Agent(id="a", model=model, tools=[count])
    journal = DBOSJournal(checkpoints=await store.run(run_id))
    stream = agent.stream("go", run_id=run_id, journal=journal)
    async with stream:
        async for _ in stream:
            pass
    return await stream.result(raise_error=False)


@pytest.mark.asyncio
async def test_sealed_checkpoints_are_ciphertext_and_replay_only_with_the_key(
    database: str,
) -> None:
    key = cryptography.Fernet.generate_key().decode()
    sealed = await Checkpoints.open(database, sealer=Sealer.configured(key))
    calls: list[str] = []
    try:
        assert (await _replay(sealed, "run-s", calls)).text == CARD
        assert (await _replay(sealed, "run-s", calls)).text == CARD  # replayed: no call again
        assert calls == ["tool"]
    finally:
        await sealed.close()
    stored = await _everything(database)
    assert CARD not in stored
    assert MAIL not in stored
    plain = await Checkpoints.open(database)
    other = await Checkpoints.open(
        database, sealer=Sealer.configured(cryptography.Fernet.generate_key().decode())
    )
    try:
        without = (await _replay(plain, "run-s", calls)).error
        assert isinstance(without, StorageError)
        assert "encrypted; configure its key" in str(without)
        wrong_key = (await _replay(other, "run-s", calls)).error
        assert isinstance(wrong_key, StorageError)
        assert "cannot be decrypted with the configured" in str(wrong_key)
        assert calls == ["tool"]  # neither made a call it could not replay
    finally:
        await plain.close()
        await other.close()


def test_a_bad_key_is_refused_at_configuration() -> None:
    from procession import ConfigurationError

    with pytest.raises(ConfigurationError, match="encryption_key: expected Fernet keys"):
        Sealer.configured("not a key")


@pytest.mark.asyncio
async def test_prune_deletes_what_crashed_runs_left(store: Checkpoints, database: str) -> None:
    records = await store.run("run-crashed")
    await records.record("run-crashed:tool:0:0:c1", [True, "x"])
    assert await prune_checkpoints(database, older_than=3600) == 0  # too recent
    command = [sys.executable, "-m", "procession", "prune", "--database-url", database]
    done = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "deleted 1 checkpoint" in done.stdout
    assert (await store.run("run-crashed")).get("run-crashed:tool:0:0:c1") == (False, None)
