"""Serving apps on a real uvicorn socket on 127.0.0.1 for the server tests."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn

from procession import Agent, Memory
from procession.memory import SQLiteStorage
from procession.testing import ScriptedModel

__all__ = ["Live", "live_server", "serve_in_thread"]


class Live:
    """A running server: its base URL and the uvicorn server object."""

    def __init__(self, server: uvicorn.Server, url: str) -> None:
        self.server = server
        self.url = url

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        """An async client for the server."""
        return httpx.AsyncClient(base_url=self.url, **{"timeout": 10, **kwargs})


def _config(app: Any, **options: Any) -> uvicorn.Config:
    return uvicorn.Config(
        app, host="127.0.0.1", port=0, log_level="warning", lifespan="on", **options
    )


def _url(server: uvicorn.Server) -> str:
    sock = server.servers[0].sockets[0]
    host, port = sock.getsockname()[:2]
    return f"http://{host}:{port}"


@contextlib.asynccontextmanager
async def live_server(app: Any, **options: Any) -> AsyncIterator[Live]:
    """Serve ``app`` with uvicorn on a free loopback port, in the test's event loop."""
    async with live_config(_config(app, **options)) as live:
        yield live


@contextlib.asynccontextmanager
async def live_config(config: uvicorn.Config) -> AsyncIterator[Live]:
    """Serve a uvicorn ``config`` (such as ``serve()``'s own, from ``uvicorn_config``) in the
    test's event loop until the block ends."""
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield Live(server, _url(server))
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 15)


@contextlib.contextmanager
def serve_in_thread(app: Any) -> Iterator[str]:
    """Serve ``app`` in a thread with its own event loop (for synchronous clients)."""
    server = uvicorn.Server(_config(app))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        threading.Event().wait(0.01)
    try:
        yield _url(server)
    finally:
        server.should_exit = True
        thread.join(15)


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def scripted_agent(agent_id: str = "support", *replies: Any, **options: Any) -> Agent:
    """An agent answering from a script (the last reply repeats)."""
    model = ScriptedModel(list(replies) or ["Hello there"], repeat_last=True)
    return Agent(id=agent_id, model=model, **options)


@pytest.fixture
def memory(tmp_path: Path) -> Memory:
    """A memory on a fresh SQLite file."""
    return Memory(SQLiteStorage(str(tmp_path / "memory.db")))
