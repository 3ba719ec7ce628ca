"""A small MCP server for the tests, written with the SDK's ``MCPServer`` (FastMCP in mcp 1.x).

Run it as ``python server_app.py stdio`` or ``python server_app.py http [--port N]``; over HTTP
it serves streamable HTTP on 127.0.0.1 at ``/mcp`` and prints ``PORT <n>`` once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

# A 1x1 transparent PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8ffff3f0300050001ff5d9d2b0000000049454e44ae426082"
)

server = MCPServer("procession-test-server", log_level="WARNING")
cancelled: list[str] = []


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped", "card": "4111 1111 1111 1111"}


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the reason."""
    raise ToolError(f"failed on purpose: {reason}")


@server.tool()
def picture() -> Image:
    """A one-pixel picture."""
    return Image(data=PNG, format="png")


@server.tool(structured_output=False)
def documents() -> list[Any]:
    """Some text, an embedded text resource and a link to a resource."""
    return [
        TextContent(type="text", text="two documents"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="file:///notes.txt", mime_type="text/plain", text="remember the milk"
            ),
        ),
        ResourceLink(
            type="resource_link", uri="file:///big.csv", name="big.csv", mime_type="text/csv"
        ),
    ]


@server.tool(structured_output=False)
def nothing() -> None:
    """Return no content at all."""


@server.tool()
async def slow(ctx: Context, seconds: float, label: str = "slow", report: bool = False) -> str:
    """Sleep for the given seconds (after a progress report, if asked), remembering the call if
    it was cancelled."""
    try:
        if report:
            await ctx.report_progress(0, 1, "started")
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        cancelled.append(label)
        raise
    return f"slept {seconds}"


@server.tool()
def cancelled_calls() -> list[str]:
    """The labels of the slow calls that were cancelled."""
    return list(cancelled)


@server.tool()
def pid() -> int:
    """This server's process id."""
    return os.getpid()


@server.tool()
def environment(name: str) -> str:
    """An environment variable of the server process, and its working directory."""
    return f"{os.environ.get(name, '')}|{os.getcwd()}"


@server.tool()
def crash(code: int = 3) -> str:
    """Exit the server process at once."""
    print("the server is crashing on purpose", file=sys.stderr, flush=True)
    os._exit(code)


@server.tool()
async def progress(ctx: Context) -> str:
    """Report progress twice, then answer."""
    await ctx.report_progress(1, 2)
    await ctx.report_progress(2, 2)
    return "done"


@server.tool()
def header(ctx: Context, name: str) -> str:
    """An HTTP header of this request ("" over stdio or when absent)."""
    return (ctx.headers or {}).get(name.lower(), "")


@server.tool()
async def chatty(ctx: Context) -> str:
    """Send a log message to the client, then answer."""
    await ctx.warning("the disk is almost full")
    return "logged"


def main() -> None:
    """Serve over stdio or streamable HTTP, as the first argument says."""
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fail-at-start", action="store_true")
    options = parser.parse_args()
    if options.fail_at_start:
        print("cannot start: missing configuration", file=sys.stderr, flush=True)
        sys.exit(2)
    if options.transport == "stdio":
        server.run("stdio")
    else:
        asyncio.run(_serve_http(options.port))


async def _serve_http(port: int) -> None:
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning")
    await uvicorn.Server(config).serve(sockets=[sock])


if __name__ == "__main__":
    main()
