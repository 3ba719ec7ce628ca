"""The stderr of a stdio MCP server: logged line by line, its last lines kept for errors.

A server that fails to start or dies usually says why on stderr; those lines end the
:class:`~procession.MCPConnectionError` it causes. Memory stays bounded however much the server
writes: only the last lines are kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from typing import IO

__all__ = ["StderrTail"]

logger = logging.getLogger("procession.mcp")

_KEPT_LINES = 20
_LINE_LIMIT = 1000


class StderrTail:
    """A pipe the server process writes its stderr to, read by one task for its lifetime."""

    def __init__(self, server_name: str) -> None:
        self.server_name = server_name
        self.lines: deque[str] = deque(maxlen=_KEPT_LINES)
        self._writer: IO[str] | None = None
        self._task: asyncio.Task[None] | None = None
        self._transport: asyncio.ReadTransport | None = None

    async def open(self) -> IO[str]:
        """Make the pipe and start reading it; return the end the server process writes to."""
        read_fd, write_fd = os.pipe()
        reader = asyncio.StreamReader()
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb")
        )
        self._writer = os.fdopen(write_fd, "w")
        self._task = loop.create_task(self._read(reader), name=f"mcp-stderr:{self.server_name}")
        return self._writer

    def spawned(self) -> None:
        """The process has its copy of the write end: close ours, so its exit ends the pipe."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    async def _read(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                raw = await reader.readline()
            except ValueError:  # a line longer than the reader's limit: keep its start
                raw = (await reader.read(_LINE_LIMIT)) + b"..."
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip()[:_LINE_LIMIT]
            if line:
                self.lines.append(line)
                logger.debug("MCP server %r stderr: %s", self.server_name, line)

    async def drain(self) -> None:
        """Wait a little (half a second at most) for lines the server wrote just before it
        went away."""
        if self._task is not None and not self._task.done():
            await asyncio.wait({self._task}, timeout=0.5)

    def text(self) -> str:
        """The last lines, for an error message ("" when the server wrote nothing)."""
        return "\n".join(self.lines)

    async def close(self) -> None:
        """Stop reading and release the pipe."""
        self.spawned()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._transport is not None:
            self._transport.close()
