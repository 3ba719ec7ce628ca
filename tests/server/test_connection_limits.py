"""Header size, slow headers and open connections, bounded on the real server that
``serve()`` runs (its ``uvicorn_config``), through raw sockets (issue 20). No timing is
asserted: a connection is either answered or closed by the server, or the test fails when
its generous socket timeout passes. The figures are in ``bench/slowloris.py``."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import pytest

from procession import Agent
from procession.errors import ConfigurationError
from procession.server import ConnectionLimits, ServerLimits, create_app
from procession.server.run import uvicorn_config
from procession.testing import ScriptedModel
from tests.server.conftest import live_config, live_server


@contextlib.asynccontextmanager
async def served(limits: ConnectionLimits) -> AsyncIterator[tuple[str, int]]:
    app = create_app(Agent(id="support", model=ScriptedModel(["Hi"], repeat_last=True)))
    config, _ = uvicorn_config(
        app, host="127.0.0.1", port=0, log_level="warning", token=False, limits=limits
    )
    async with live_config(config) as live:
        host, port = live.server.servers[0].sockets[0].getsockname()[:2]
        yield host, port


async def _read_all(reader: asyncio.StreamReader) -> bytes:
    """Everything until the server closes the connection (30 s at most, then the test
    fails)."""
    return await asyncio.wait_for(reader.read(), 30)


@pytest.mark.asyncio
async def test_headers_over_the_limit_are_431() -> None:
    async with served(ConnectionLimits(max_header_bytes=4096)) as (host, port):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: " + b"a" * 8192)
        await writer.drain()
        answer = await _read_all(reader)
        writer.close()
        small_reader, small = await asyncio.open_connection(host, port)
        small.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
        fine = await _read_all(small_reader)
        small.close()
    assert answer.startswith(b"HTTP/1.1 431 ")
    assert b'"error":"Request headers are larger than the limit of 4096 bytes"' in answer
    assert fine.startswith(b"HTTP/1.1 200 ")


@pytest.mark.asyncio
async def test_a_slow_client_is_dropped_with_408() -> None:
    async with served(ConnectionLimits(header_timeout=1)) as (host, port):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /health HTTP/1.1\r\n")
        await writer.drain()
        drip = 0
        with contextlib.suppress(ConnectionError):
            while not reader.at_eof() and drip < 300:  # a header byte every 0.1 s
                writer.write(b"x")
                await writer.drain()
                drip += 1
                with contextlib.suppress(TimeoutError):
                    data = await asyncio.wait_for(reader.read(4096), 0.1)
                    if data:
                        answer = data + await _read_all(reader)
                        break
            else:
                answer = b""
        silent_reader, silent = await asyncio.open_connection(host, port)
        nothing = await _read_all(silent_reader)  # a connection that never sends a byte
        silent.close()
        writer.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"did not arrive within 1 seconds" in answer
    assert drip < 300
    assert nothing == b""  # closed without an answer


@pytest.mark.asyncio
async def test_keep_alive_requests_still_work_under_the_header_deadline() -> None:
    async with served(ConnectionLimits(header_timeout=5)) as (host, port):
        reader, writer = await asyncio.open_connection(host, port)
        for _ in range(3):
            writer.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            assert head.startswith(b"HTTP/1.1 200 ")
        writer.close()


@pytest.mark.asyncio
async def test_connections_over_the_limit_are_closed_at_once() -> None:
    limits = ConnectionLimits(max_connections=3, header_timeout=60)
    async with served(limits) as (host, port):
        held = [await asyncio.open_connection(host, port) for _ in range(3)]
        await asyncio.sleep(0)  # let the server accept them
        extra = socket.create_connection((host, port), timeout=30)
        extra_answer = await asyncio.to_thread(extra.recv, 100)
        extra.close()
        for _, writer in held:
            writer.close()
            await writer.wait_closed()
        again_reader, again = await asyncio.open_connection(host, port)
        for _ in range(100):  # until the server has seen the three close
            again.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
            with contextlib.suppress(ConnectionError):
                await again.drain()
                answer = await _read_all(again_reader)
                if answer:
                    break
            again.close()
            await asyncio.sleep(0.05)
            again_reader, again = await asyncio.open_connection(host, port)
        again.close()
    assert extra_answer == b""
    assert answer.startswith(b"HTTP/1.1 200 ")


def test_limits_are_checked_when_built() -> None:
    for bad in (
        {"max_header_bytes": 100},
        {"header_timeout": 0},
        {"keep_alive_timeout": True},
        {"max_connections": 0},
        {"max_requests": 0},
    ):
        with pytest.raises(ConfigurationError, match="ConnectionLimits"):
            ConnectionLimits(**bad)


@pytest.mark.asyncio
async def test_a_body_that_drips_in_is_408_and_runs_nothing() -> None:
    model = ScriptedModel(["Hi"], repeat_last=True)
    app = create_app(Agent(id="support", model=model), limits=ServerLimits(body_timeout=1))
    async with live_server(app) as live:
        host, port = live.url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            b"POST /api/agents/support/generate HTTP/1.1\r\nhost: 127.0.0.1\r\n"
            b"content-type: application/json\r\ncontent-length: 1000\r\n\r\n{"
        )
        await writer.drain()
        answer = b""
        with contextlib.suppress(ConnectionError):
            for _ in range(300):  # a body byte every 0.1 s, at most 30 s
                writer.write(b" ")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    answer += await asyncio.wait_for(reader.read(4096), 0.1)
                if answer:
                    break
        writer.close()
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b"Request body did not arrive within 1 s" in answer
    assert model.calls == []
