"""``MCPClient``: one MCP server's tools as procession :class:`~procession.Tool` objects."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Mapping, Sequence
from os import PathLike
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TextIO

from procession.errors import MCPConnectionError, ToolError
from procession.mcp._connection import Connection, closed_connection
from procession.mcp._options import ServerOptions, check_call, server_options
from procession.mcp._results import tool_result
from procession.tools import Tool, ToolContext

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = ["MCPClient", "mcp_tools"]

logger = logging.getLogger("procession.mcp")

_UNSET: Any = object()
_PAGE_LIMIT = 100
"""At most this many pages of ``tools/list``."""


class MCPClient:
    """A connection to one MCP server, whose tools are ordinary procession tools.

    Use it as an async context manager (or call :meth:`connect` and :meth:`aclose`)::

        async with MCPClient(stdio=["python", "server.py"], prefix="files") as files:
            agent = Agent(id="a", model=model, tools=files.tools())
            result = await agent.generate("What is in notes.txt?")

    Each tool keeps the server's description and JSON schema, and calling it calls the
    server. A result marked ``isError``, a refused call, a timeout or a lost connection is a
    :class:`~procession.ToolError` (inside a run: a ``tool-error`` the model reads). A call
    cancelled by the run (the stream closed, the abort signal) is cancelled on the server
    too. When the server went away, the next call starts it again (stdio) or opens a new
    session (HTTP), unless ``reconnect=False``; a call that was in flight when it went away
    fails and is never repeated, since it may have had effects.

    Args:
        stdio: The command that starts the server and its arguments, e.g.
            ``["python", "server.py"]``; it is spoken to over stdin/stdout.
        url: The server's streamable HTTP endpoint, e.g. ``"http://127.0.0.1:8000/mcp"``.
        name: The server's name in messages and logs (default: the command's last word or
            the URL's host).
        prefix: Prepended to every tool name as ``"<prefix>_<name>"``, so that two servers'
            tools cannot clash; letters, digits, ``_`` and ``-``.
        include: Only these of the server's tools (by the server's names).
        exclude: Not these of the server's tools.
        env: Environment variables for a stdio server, added to the SDK's minimal safe
            environment (``PATH``, ``HOME``...), not to the whole of ``os.environ``.
        cwd: Working directory of a stdio server.
        stderr: Where a stdio server's stderr goes. By default it is read by procession,
            logged at DEBUG level on the ``procession.mcp`` logger, and its last lines end
            every :class:`~procession.MCPConnectionError`.
        headers: HTTP headers sent with every request to a URL server (e.g. authorization).
        auth: An ``httpx2.Auth`` for a URL server (such as the SDK's OAuth provider).
        timeout: Seconds a tool call may take before it is cancelled and fails (default 60;
            ``None``: no limit).
        connect_timeout: Seconds to start the server and complete the MCP handshake.
        reconnect: Reconnect on the next call after the server went away.

    Raises:
        ConfigurationError: An option is wrong (named in the message).
    """

    def __init__(
        self,
        *,
        stdio: Sequence[str] | None = None,
        url: str | None = None,
        name: str | None = None,
        prefix: str | None = None,
        include: Collection[str] | None = None,
        exclude: Collection[str] = (),
        env: Mapping[str, str] | None = None,
        cwd: str | PathLike[str] | None = None,
        stderr: TextIO | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        timeout: float | None = 60.0,
        connect_timeout: float = 30.0,
        reconnect: bool = True,
    ) -> None:
        self.options: ServerOptions = server_options(
            stdio=stdio,
            url=url,
            name=name,
            prefix=prefix,
            include=include,
            exclude=exclude,
            env=env,
            cwd=cwd,
            stderr=stderr,
            headers=headers,
            auth=auth,
            timeout=timeout,
            connect_timeout=connect_timeout,
            reconnect=reconnect,
        )
        self._connection: Connection | None = None
        self._lock = asyncio.Lock()
        self._tools: list[Tool] | None = None
        self._closed = False

    @property
    def name(self) -> str:
        """The server's name in messages and logs."""
        return self.options.name

    @property
    def connected(self) -> bool:
        """Whether a session with the server is open and alive."""
        connection = self._connection
        return connection is not None and connection.lost is None

    @property
    def session(self) -> ClientSession:
        """The live SDK session, for what procession does not wrap (resources, prompts...).

        Raises:
            MCPConnectionError: The client is not connected.
        """
        connection = self._connection
        if connection is None or connection.session is None or connection.lost is not None:
            raise MCPConnectionError(f"MCP server {self.name!r}: not connected")
        return connection.session

    async def __aenter__(self) -> Self:
        await self.connect()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def connect(self) -> None:
        """Start or reach the server, complete the handshake and list its tools.

        Raises:
            MCPConnectionError: The server could not be started or reached, or did not
                complete the handshake within ``connect_timeout``.
        """
        self._closed = False
        await self._live()

    async def aclose(self) -> None:
        """Close the session (a stdio server is stopped); the client may connect again."""
        self._closed = True
        async with self._lock:
            connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()

    def tools(self) -> list[Tool]:
        """The server's tools as listed when it connected (or by :meth:`list_tools`).

        Raises:
            MCPConnectionError: The client has not connected yet.
        """
        if self._tools is None:
            raise MCPConnectionError(
                f"MCP server {self.name!r}: not connected; use `async with MCPClient(...)` "
                "or `await client.connect()` before asking for its tools"
            )
        return list(self._tools)

    async def list_tools(self) -> list[Tool]:
        """Ask the server for its tools again (after it announced a change, say)."""
        connection = await self._live()
        await self._list(connection)
        return self.tools()

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = _UNSET,  # noqa: ASYNC109 - sent to the server as well
        context: ToolContext | None = None,
    ) -> Any:
        """Call the server's tool ``name`` (its own name, without the prefix).

        Returns the result as the model sees it (see ``docs/tools.md``). ``context``, when
        given, receives the server's progress reports as ``data-mcp-progress`` chunks.

        Raises:
            ConfigurationError: ``name``, ``arguments`` or ``timeout`` is of the wrong kind.
            ToolError: The tool reported an error, the server refused the call, or it took
                longer than ``timeout`` seconds.
            MCPConnectionError: The server could not be reached, or went away during the call.
        """
        limit = check_call(name, arguments, self.options.timeout if timeout is _UNSET else timeout)
        progress = _progress(context, name) if context is not None else None
        connection = await self._live()
        session = connection.session
        assert session is not None
        try:
            raw = await session.call_tool(
                name, dict(arguments or {}), read_timeout_seconds=limit, progress_callback=progress
            )
        except Exception as error:
            raise await self._call_error(connection, name, limit, error) from None
        return tool_result(raw.model_dump(mode="json", by_alias=True, exclude_none=True), name)

    async def _live(self) -> Connection:
        """The open connection, reconnecting (once) when the server went away."""
        connection = self._connection
        if connection is not None and connection.lost is None:
            return connection
        if self._closed:
            raise MCPConnectionError(
                f"MCP server {self.name!r}: the client was closed; connect() it again to use it"
            )
        async with self._lock:
            connection = self._connection
            if connection is not None and connection.lost is None:
                return connection
            if connection is not None:
                if not self.options.reconnect:
                    raise await connection.error(f"is not connected: {connection.lost}")
                logger.info("MCP server %r: reconnecting (%s)", self.name, connection.lost)
                await connection.close()
                self._connection = None
            connection = await Connection.open(self.options)
            try:
                await self._list(connection)
            except BaseException:
                await connection.close()
                raise
            self._connection = connection
            return connection

    async def _list(self, connection: Connection) -> None:
        session = connection.session
        assert session is not None
        listed: list[Any] = []
        cursor: str | None = None
        for _ in range(_PAGE_LIMIT):  # a server whose pages never end cannot hang us
            page = await session.list_tools(params=_page(cursor))
            listed.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        tools = [
            self._tool(t.model_dump(mode="json", by_alias=True, exclude_none=True))
            for t in listed
            if self.options.wanted(t.name)
        ]
        missing = (self.options.include or frozenset()) - {t.name for t in listed}
        if missing:
            logger.warning(
                "MCP server %r has no tool named %s", self.name, ", ".join(sorted(missing))
            )
        self._tools = tools

    def _tool(self, listed: dict[str, Any]) -> Tool:
        remote = listed["name"]
        schema = dict(listed.get("inputSchema") or {"type": "object"})
        schema.pop("title", None)

        async def call(arguments: dict[str, Any], context: ToolContext) -> Any:
            return await self.call_tool(remote, arguments, context=context)

        return Tool(
            name=self.options.tool_name(remote),
            description=listed.get("description") or listed.get("title") or "",
            input_schema=schema,
            function=call,
            pass_model=True,
            context_parameter="context",
            is_async=True,
        )

    async def _call_error(
        self, connection: Connection, name: str, limit: float | None, error: Exception
    ) -> ToolError:
        from mcp import MCPError
        from mcp.types import REQUEST_TIMEOUT

        if isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT:
            return ToolError(f"MCP tool {name!r} on {self.name!r} timed out after {limit:g} s")
        if closed_connection(error):
            connection.lost = connection.lost or "the server closed the connection"
            return await connection.error(f"went away during the call to {name!r}")
        if isinstance(error, MCPError):
            return ToolError(f"MCP server {self.name!r} refused the call to {name!r}: {error}")
        return ToolError(f"MCP tool {name!r} on {self.name!r} failed: {error}")

    def __repr__(self) -> str:
        where = " ".join(self.options.command) if self.options.command else self.options.url
        return f"MCPClient({self.name!r}, {where!r}, connected={self.connected})"


async def mcp_tools(**options: Any) -> list[Tool]:
    """Connect to an MCP server and return its tools (options as :class:`MCPClient`).

    The connection stays open until the event loop shuts down. Use :class:`MCPClient` as an
    async context manager to close it sooner.
    """
    client = MCPClient(**options)
    await client.connect()
    return client.tools()


def _page(cursor: str | None) -> Any:
    if cursor is None:
        return None
    from mcp.types import PaginatedRequestParams

    return PaginatedRequestParams(cursor=cursor)


def _progress(context: ToolContext, tool: str) -> Any:
    async def report(progress: float, total: float | None, message: str | None) -> None:
        data: dict[str, Any] = {
            "toolCallId": context.tool_call_id,
            "toolName": context.tool_name,
            "tool": tool,
            "progress": progress,
            "total": total,
            "message": message,
        }
        await context.writer.custom({"type": "data-mcp-progress", "data": data, "transient": True})

    return report
