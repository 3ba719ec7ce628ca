"""The app each replica of the scaling tests serves (``uvicorn --factory``).

Environment: ``SCALING_DSN`` and ``SCALING_SCHEMA`` (memory and the chunk log),
``SCALING_REPLICA`` (its name, shown in answers). The ``counter`` agent answers, in ten
slow deltas, how many messages its prompt held: with turns serialised, the n-th turn on a
thread always sees 2n - 1 messages.
"""

from __future__ import annotations

import os
from typing import Any

from starlette.applications import Starlette

from procession import Agent
from procession.memory import Memory
from procession.memory.postgres import PostgresStorage
from procession.server import create_app
from procession.server.chunk_log import ChunkLog
from procession.server.scaling import Scaling
from procession.testing import FunctionModel, Reply


def _reply(options: Any) -> Reply:
    seen = sum(1 for m in options.prompt if m["role"] in ("user", "assistant"))
    words = [f"seen={seen} ", f"on={os.environ.get('SCALING_REPLICA', '?')} "]
    delay = float(os.environ.get("SCALING_DELAY", "0.01"))
    return Reply(text=[*words, *(["."] * 8)], delay=delay)


def app() -> Starlette:
    """The replica's app."""
    dsn, schema = os.environ["SCALING_DSN"], os.environ["SCALING_SCHEMA"]
    memory = Memory(PostgresStorage(dsn, schema=schema), last_messages=100)
    agent = Agent(id="counter", model=FunctionModel(_reply), memory=memory)
    log = ChunkLog(dsn, schema=schema, detach_timeout=float(os.environ.get("SCALING_DETACH", "30")))
    wait = float(os.environ.get("SCALING_LOCK_TIMEOUT", "30"))
    return create_app([agent], scaling=Scaling(chunk_log=log, lock_timeout=wait))
