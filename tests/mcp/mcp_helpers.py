"""Starting the test MCP server (``mcp_server.py``) over stdio or streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from procession.mcp import MCPClient

SERVER = str(Path(__file__).with_name("mcp_server.py"))


def stdio_command(*extra: str) -> list[str]:
    """The command that runs the test server over stdio."""
    return [sys.executable, SERVER, "stdio", *extra]


@contextmanager
def http_server(port: int = 0) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Run the test server over streamable HTTP on 127.0.0.1; yield the process and its port."""
    process = subprocess.Popen(
        [sys.executable, SERVER, "http", "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("PORT "), f"the test server did not start: {line!r}"
        found = int(line.split()[1])
        _wait_for_port(found)
        yield process, found
    finally:
        process.kill()
        process.wait(timeout=10)
        if process.stdout is not None:
            process.stdout.close()


def _wait_for_port(port: int, seconds: float = 30.0) -> None:
    """Wait until the server accepts connections (a loaded machine may take a while)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def url(port: int) -> str:
    """The test server's MCP endpoint on ``port``."""
    return f"http://127.0.0.1:{port}/mcp"


def wait_until_gone(pid: int, seconds: float = 10.0) -> bool:
    """Whether process ``pid`` has exited within ``seconds`` (it is not our child to reap)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        if _is_zombie(pid):
            return True
        time.sleep(0.05)
    return False


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


async def cancelled_labels(client: MCPClient, label: str) -> list[str]:
    """The labels of the server's cancelled ``slow`` calls, once ``label`` is among them (or
    after about ten seconds)."""
    labels: list[str] = []
    for _ in range(200):
        labels = (await client.call_tool("cancelled_calls"))["result"]
        if label in labels:
            break
        await asyncio.sleep(0.05)
    return labels
