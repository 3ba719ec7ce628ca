"""What an MCP tool call costs through procession, against the bare SDK session.

Starts ``tests/mcp/mcp_server.py`` over stdio and over streamable HTTP on 127.0.0.1, then
times ``--calls`` sequential calls of its ``add`` tool three ways, taking turns call by call:
the SDK's ``ClientSession.call_tool`` alone, ``MCPClient.call_tool``, and ``Tool.execute``
(what a run does); then the same number of calls made ``--concurrency`` at a time through
``Tool.execute``::

    .venv/bin/python bench/bench_mcp.py --calls 500 --concurrency 20
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from procession import RequestContext, ToolContext, ToolWriter
from procession.mcp import MCPClient

SERVER = str(Path(__file__).resolve().parents[1] / "tests" / "mcp" / "mcp_server.py")


Call = Callable[[int], Awaitable[Any]]


async def _interleaved(calls: int, ways: dict[str, Call]) -> dict[str, float]:
    """Microseconds per call of each way, the ways taking turns call by call (so a noisy
    moment on a shared machine costs them all alike)."""
    spent = dict.fromkeys(ways, 0.0)
    for i in range(calls):
        for name, one in ways.items():
            started = time.perf_counter()
            await one(i)
            spent[name] += time.perf_counter() - started
    return {name: total / calls * 1e6 for name, total in spent.items()}


async def _concurrent(calls: int, concurrency: int, one: Call) -> float:
    """Microseconds per call, ``concurrency`` calls in flight at a time."""
    started = time.perf_counter()
    for first in range(0, calls, concurrency):
        await asyncio.gather(*(one(i) for i in range(first, min(calls, first + concurrency))))
    return (time.perf_counter() - started) / calls * 1e6


async def _measure(client: MCPClient, calls: int, concurrency: int) -> dict[str, float]:
    session = client.session
    add = {t.name: t for t in client.tools()}["add"]

    async def emit(chunk: Any, message_id: str | None) -> None:
        return None

    context = ToolContext("call", "add", ToolWriter(emit), RequestContext())
    for i in range(20):  # warm up
        await add.execute({"a": i, "b": 1}, context)
    results = await _interleaved(
        calls,
        {
            "SDK session": lambda i: session.call_tool("add", {"a": i, "b": 1}),
            "MCPClient.call_tool": lambda i: client.call_tool("add", {"a": i, "b": 1}),
            "Tool.execute": lambda i: add.execute({"a": i, "b": 1}, context),
        },
    )
    results[f"Tool.execute x{concurrency}"] = await _concurrent(
        calls, concurrency, lambda i: add.execute({"a": i, "b": 1}, context)
    )
    return results


async def _run(port: int, calls: int, concurrency: int) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    async with MCPClient(stdio=[sys.executable, SERVER, "stdio"]) as client:
        results["stdio"] = await _measure(client, calls, concurrency)
    async with MCPClient(url=f"http://127.0.0.1:{port}/mcp") as client:
        results["http"] = await _measure(client, calls, concurrency)
    return results


def main() -> None:
    """Run both transports and print microseconds per call."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=20)
    options = parser.parse_args()
    server = subprocess.Popen([sys.executable, SERVER, "http"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        results = asyncio.run(_run(port, options.calls, options.concurrency))
    finally:
        server.kill()
        server.wait()
    print(f"{'µs per call':24} {'stdio':>10} {'http':>10}")
    for way in results["stdio"]:
        print(f"{way:24} {results['stdio'][way]:10.0f} {results['http'][way]:10.0f}")


if __name__ == "__main__":
    main()
