"""One live MCP session, owned by a background task.

The SDK's transports and ``ClientSession`` are anyio context managers: they must be entered
and left by the same task. Agent runs call tools from their own tasks, and a client may be
closed from yet another, so one *owner task* per connection enters the transport and the
session, then waits until it is told to close; every other task only sends requests through
the session. The owner task is always awaited by :meth:`Connection.close`; a connection nobody
closes is closed when the event loop shuts down (``asyncio.run`` cancels the owner task, which
leaves the contexts in order and stops the server process).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from procession.errors import MCPConnectionError
from procession.mcp._options import ServerOptions
from procession.mcp._stderr import StderrTail

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["Connection"]

logger = logging.getLogger("procession.mcp")

_OPEN: set[Connection] = set()
"""Connections not yet closed: their owner tasks stay referenced (asyncio keeps only weak
references to tasks) until they close or the event loop shuts down."""

_LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


class Connection:
    """A session with one MCP server, usable from any task of the loop that opened it.

    Attributes:
        session: The initialized SDK session.
        lost: Why the session ended (``None`` while it is alive).
        server_name: The name the server gave in its handshake, when it gave one.
    """

    def __init__(self, options: ServerOptions) -> None:
        self.options = options
        self.session: ClientSession | None = None
        self.lost: str | None = None
        self.server_name: str | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr = StderrTail(options.name) if options.command else None
        if options.stderr is not None:
            self._stderr = None

    @classmethod
    async def open(cls, options: ServerOptions) -> Connection:
        """Start the server (stdio) or reach it (HTTP), and complete the MCP handshake."""
        connection = cls(options)
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        ready.add_done_callback(_retrieve)
        connection._task = loop.create_task(connection._own(ready), name=f"mcp:{options.name}")
        _OPEN.add(connection)
        try:
            async with asyncio.timeout(options.connect_timeout):
                await asyncio.shield(ready)
        except TimeoutError:
            await connection.close()
            raise await connection.error(
                f"did not complete the MCP handshake within {options.connect_timeout:g} s"
            ) from None
        except Exception as error:
            await connection.close()
            problem = (
                "closed the connection before completing the MCP handshake"
                if closed_connection(error)
                else f"could not connect: {describe(error)}"
            )
            raise await connection.error(problem) from error
        except BaseException:
            await connection.close()
            raise
        return connection

    async def _own(self, ready: asyncio.Future[None]) -> None:
        """The owner task: enter the transport and the session, wait, leave them in order."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await self._enter(stack)
                result = await session.initialize()
                self.server_name = result.server_info.name if result.server_info else None
                self.session = session
                if not ready.done():
                    ready.set_result(None)
                await self._stop.wait()
        except Exception as error:
            self.lost = self.lost or f"the session failed: {describe(error)}"
            if not ready.done():
                ready.set_exception(error)
            else:
                logger.warning("MCP server %r: %s", self.options.name, self.lost)
        finally:
            self.lost = self.lost or "the connection was closed"
            if not ready.done():
                ready.cancel()
            if self._stderr is not None:
                await self._stderr.close()

    async def _enter(self, stack: contextlib.AsyncExitStack) -> ClientSession:
        from mcp import ClientSession

        read, write = await stack.enter_async_context(self._transport())
        return await stack.enter_async_context(
            ClientSession(
                _Watched(read, self._ended),
                write,
                logging_callback=self._log,
            )
        )

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        options = self.options
        if options.command is not None:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            errlog: Any = options.stderr
            if self._stderr is not None:
                errlog = await self._stderr.open()
            parameters = StdioServerParameters(
                command=options.command[0],
                args=list(options.command[1:]),
                env=dict(options.env) if options.env is not None else None,
                cwd=options.cwd,
            )
            async with stdio_client(parameters, errlog=errlog) as streams:
                if self._stderr is not None:
                    self._stderr.spawned()
                yield streams
            return
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        client = httpx2.AsyncClient(
            headers=dict(options.headers or {}),
            auth=options.auth,
            timeout=httpx2.Timeout(30.0, read=300.0),
        )
        async with client, streamable_http_client(options.url or "", http_client=client) as pair:
            yield pair[0], pair[1]

    def _ended(self) -> None:
        self.lost = self.lost or "the server closed the connection"

    async def _log(self, params: Any) -> None:
        level = _LOG_LEVELS.get(str(params.level), logging.INFO)
        logger.log(level, "MCP server %r: %s", self.options.name, params.data)

    async def error(self, problem: str) -> MCPConnectionError:
        """An error naming the server and the problem, ending with the server's last stderr."""
        text = f"MCP server {self.options.name!r} {problem}"
        if self._stderr is not None:
            await self._stderr.drain()
            tail = self._stderr.text()
            if tail:
                text += f"; its stderr ended with:\n{tail}"
        return MCPConnectionError(text)

    async def close(self) -> None:
        """Leave the session and the transport (stopping a stdio server); idempotent."""
        _OPEN.discard(self)
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self.session is None:
            task.cancel()  # still connecting: nothing to leave in order
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)


class _Watched:
    """The transport's read stream, telling the connection when the server hung up."""

    __slots__ = ("_inner", "_on_end")

    def __init__(self, inner: Any, on_end: Any) -> None:
        self._inner = inner
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK reads it when present)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Any:
        """The next message; an end of stream is reported before it is raised."""
        import anyio

        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        """Close the underlying stream."""
        await self._inner.aclose()

    async def __aenter__(self) -> _Watched:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def describe(error: BaseException) -> str:
    """A one-line reason, looking inside exception groups for the first real error."""
    error = _first(error)
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def closed_connection(error: BaseException) -> bool:
    """Whether the SDK reports that the connection closed (the server hung up or exited)."""
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    error = _first(error)
    return isinstance(error, MCPError) and error.code == CONNECTION_CLOSED


def _first(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _retrieve(future: asyncio.Future[None]) -> None:
    """Mark a failed handshake's exception as seen (the opener may have stopped waiting)."""
    if not future.cancelled():
        future.exception()
