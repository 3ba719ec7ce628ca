"""Kill soak for durable runs: SIGKILL DBOS workers at random points, then check every run.

Run: ``.venv/bin/python bench/durable_kills.py [--kills 100] [--seed N]`` (PostgreSQL from
``PROCESSION_TEST_POSTGRES_DSN`` or ``.pgdata/dsn``; a scratch DBOS database and schema are
dropped afterwards). Prints runs, kills, kills that landed (the victim had runs in flight),
runs completed once, wrong results or threads, checkpointed calls repeated (want 0), calls
re-run because a kill came before their checkpoint, and the recovery time from a kill until
the victim's runs execute elsewhere. The harness is ``tests/durable/kill_harness.py``; CI runs
20 landed kills in ``tests/durable/test_dbos_kills.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the harness lives with the tests

from tests.durable.kill_harness import soak  # noqa: E402
from tests.memory.crash_harness import drop_schema, find_dsn  # noqa: E402


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    dsn = find_dsn()
    if dsn is None:
        raise SystemExit("no PostgreSQL: set PROCESSION_TEST_POSTGRES_DSN")
    name = f"procession_dbos_{uuid.uuid4().hex[:8]}"
    schema = f"kills_{uuid.uuid4().hex[:8]}"
    url = f"{dsn.rpartition('/')[0]}/{name}"
    import asyncpg

    try:
        result = await soak(url, dsn, schema, kills=args.kills, seed=args.seed)
    finally:
        conn = await asyncpg.connect(dsn)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()
        await drop_schema(dsn, schema)
    print(json.dumps(result.summary(), indent=2))
    bad = result.wrong_results + result.wrong_threads + result.repeated_after_checkpoint
    for line in bad[:20]:
        print("PROBLEM:", line)


if __name__ == "__main__":
    asyncio.run(main())
