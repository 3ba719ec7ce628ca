"""MCP tools from a real server over streamable HTTP on 127.0.0.1: calls, headers, errors,
time-outs, and a server that restarts (its sessions forgotten)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterator
from typing import Any

import httpx2
import pytest
import pytest_asyncio

from procession import MCPConnectionError, ToolError
from procession.mcp import MCPClient

from .mcp_helpers import cancelled_labels, http_server, url

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """One HTTP server process for the module."""
    with http_server() as (_, port):
        yield port


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client(port: int) -> AsyncIterator[MCPClient]:
    """A client of that server, sending a header with every request."""
    async with MCPClient(url=url(port), headers={"X-Tenant": "acme"}, timeout=20) as client:
        yield client


async def test_tools_and_results_are_the_same_as_over_stdio(client: MCPClient) -> None:
    assert client.name.startswith("127.0.0.1:")
    assert {t.name for t in client.tools()} >= {"add", "echo", "picture", "lookup_order"}
    assert await client.call_tool("add", {"a": 40, "b": 2}) == {"result": 42}
    assert await client.call_tool("echo", {"text": "over http"}) == "over http"
    picture = await client.call_tool("picture")
    assert picture[0]["type"] == "image"
    assert picture[0]["mimeType"] == "image/png"


async def test_headers_reach_the_server(client: MCPClient) -> None:
    assert await client.call_tool("header", {"name": "X-Tenant"}) == {"result": "acme"}


class BearerToken(httpx2.Auth):
    """Adds a bearer token to every request, as an OAuth provider would."""

    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, Any, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        yield request


async def test_an_auth_reaches_the_server(port: int) -> None:
    async with MCPClient(url=url(port), auth=BearerToken("s3cret")) as client:
        assert await client.call_tool("header", {"name": "Authorization"}) == {
            "result": "Bearer s3cret"
        }


async def test_errors_and_timeouts_are_tool_errors(client: MCPClient) -> None:
    with pytest.raises(ToolError, match="failed on purpose: x"):
        await client.call_tool("fail", {"reason": "x"})
    with pytest.raises(ToolError, match=r"timed out after 0\.3 s"):
        await client.call_tool("slow", {"seconds": 30, "label": "http-timeout"}, timeout=0.3)
    assert "http-timeout" in await cancelled_labels(client, "http-timeout")  # stopped there


async def test_a_server_that_is_not_listening_is_a_connection_error(port: int) -> None:
    with pytest.raises(MCPConnectionError, match=r"'127\.0\.0\.1:9' could not connect"):
        await MCPClient(url="http://127.0.0.1:9/mcp", connect_timeout=5).connect()


async def test_a_restarted_server_gets_a_new_session() -> None:
    with http_server() as (first, port):
        client = MCPClient(url=url(port))
        async with client:
            assert (await client.call_tool("pid"))["result"] == first.pid
            first.kill()
            first.wait()
            with pytest.raises(MCPConnectionError, match="went away during the call to 'pid'"):
                await client.call_tool("pid")
            with http_server(port) as (second, _):
                assert (await client.call_tool("pid"))["result"] == second.pid
                assert client.connected
