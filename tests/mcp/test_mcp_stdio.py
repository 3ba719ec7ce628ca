"""MCP tools from a real server process over stdio: listing, results, errors, time-outs,
cancellation, a server that dies or never starts, and the client's lifetime."""

from __future__ import annotations

import asyncio
import base64
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession import (
    ConfigurationError,
    MCPConnectionError,
    RequestContext,
    ToolContext,
    ToolError,
    ToolWriter,
)
from procession.mcp import MCPClient

from .mcp_helpers import cancelled_labels, stdio_command, wait_until_gone
from .mcp_server import PNG

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client() -> AsyncIterator[MCPClient]:
    """One server process shared by the read-only tests of this module."""
    async with MCPClient(stdio=stdio_command(), timeout=20) as client:
        yield client


async def test_tools_keep_the_servers_names_descriptions_and_schemas(client: MCPClient) -> None:
    tools = {t.name: t for t in client.tools()}
    assert {"add", "echo", "fail", "picture", "slow", "crash"} <= set(tools)
    add = tools["add"]
    assert add.description == "Add two integers."
    assert add.input_schema["required"] == ["a", "b"]
    assert add.input_schema["properties"]["a"]["type"] == "integer"
    assert "title" not in add.input_schema
    assert add.definition()["inputSchema"] == add.input_schema
    assert "header" in tools
    assert "ctx" not in tools["header"].input_schema["properties"]


async def test_structured_content_is_the_result(client: MCPClient) -> None:
    assert await client.call_tool("add", {"a": 2, "b": 3}) == {"result": 5}
    order = await client.call_tool("lookup_order", {"order_id": "A-1"})
    assert order == {"order_id": "A-1", "status": "shipped", "card": "4111 1111 1111 1111"}


async def test_one_text_block_is_a_string_and_no_content_is_none(client: MCPClient) -> None:
    assert await client.call_tool("echo", {"text": "héllo"}) == "héllo"
    assert await client.call_tool("nothing") is None


async def test_images_resources_and_links_keep_their_type_and_data(client: MCPClient) -> None:
    picture = await client.call_tool("picture")
    assert picture == [
        {"type": "image", "mimeType": "image/png", "data": base64.b64encode(PNG).decode()}
    ]
    documents = await client.call_tool("documents")
    assert documents == [
        "two documents",
        {
            "type": "resource",
            "uri": "file:///notes.txt",
            "mimeType": "text/plain",
            "text": "remember the milk",
        },
        {
            "type": "resource_link",
            "uri": "file:///big.csv",
            "name": "big.csv",
            "mimeType": "text/csv",
        },
    ]


async def test_a_tool_reporting_an_error_is_a_tool_error_with_its_text(client: MCPClient) -> None:
    with pytest.raises(ToolError) as caught:
        await client.call_tool("fail", {"reason": "no stock"})
    assert str(caught.value) == "Error executing tool fail: failed on purpose: no stock"
    assert not isinstance(caught.value, MCPConnectionError)


async def test_an_unknown_tool_and_bad_arguments_are_tool_errors(client: MCPClient) -> None:
    with pytest.raises(ToolError, match="Unknown tool: missing"):
        await client.call_tool("missing")
    with pytest.raises(ToolError, match="validation error"):
        await client.call_tool("add", {"a": "two", "b": 3})


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"name": ""}, "call_tool name: expected a tool name"),
        ({"name": "add", "arguments": [1, 2]}, "call_tool arguments: expected a mapping"),
        ({"name": "add", "timeout": 0}, "call_tool timeout: expected a positive number"),
        ({"name": "add", "timeout": True}, "call_tool timeout: expected a positive number"),
    ],
)
async def test_wrong_call_arguments_are_configuration_errors(
    client: MCPClient, call: dict[str, Any], message: str
) -> None:  # D35
    with pytest.raises(ConfigurationError, match=message):
        await client.call_tool(**call)


async def test_a_tool_object_calls_the_server(client: MCPClient) -> None:
    add = {t.name: t for t in client.tools()}["add"]
    assert await add.execute({"a": 20, "b": 22}, _context("add")) == {"result": 42}
    with pytest.raises(ToolError, match="must be a JSON object"):
        await add.execute([1, 2], _context("add"))


async def test_concurrent_calls_share_the_session(client: MCPClient) -> None:
    results = await asyncio.gather(*(client.call_tool("add", {"a": i, "b": 1}) for i in range(8)))
    assert [r["result"] for r in results] == [i + 1 for i in range(8)]


async def test_a_call_past_its_timeout_fails_and_stops_on_the_server(client: MCPClient) -> None:
    with pytest.raises(ToolError, match=r"'slow' on 'mcp_server.py' timed out after 0.3 s"):
        await client.call_tool("slow", {"seconds": 30, "label": "timed-out"}, timeout=0.3)
    assert "timed-out" in await cancelled_labels(client, "timed-out")


async def test_cancelling_the_caller_cancels_the_call_on_the_server(client: MCPClient) -> None:
    call = asyncio.ensure_future(client.call_tool("slow", {"seconds": 30, "label": "abandoned"}))
    await asyncio.sleep(0.5)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert "abandoned" in await cancelled_labels(client, "abandoned")
    assert await client.call_tool("add", {"a": 1, "b": 1}) == {"result": 2}  # still usable


async def test_server_log_messages_reach_the_procession_mcp_logger(
    client: MCPClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="procession.mcp")
    assert await client.call_tool("chatty") == {"result": "logged"}
    for _ in range(100):
        if caplog.records:
            break
        await asyncio.sleep(0.02)
    assert any(
        r.levelno == logging.WARNING and "the disk is almost full" in r.getMessage()
        for r in caplog.records
    )


async def test_env_and_cwd_reach_the_server(tmp_path: Path) -> None:
    async with MCPClient(
        stdio=stdio_command(), env={"GREETING": "bonjour"}, cwd=tmp_path, include=["environment"]
    ) as client:
        assert [t.name for t in client.tools()] == ["environment"]
        value = await client.call_tool("environment", {"name": "GREETING"})
    assert value == {"result": f"bonjour|{tmp_path}"}


async def test_prefix_include_and_a_missing_included_tool(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="procession.mcp")
    async with MCPClient(
        stdio=stdio_command(), name="shop", prefix="shop", include={"echo", "add", "refund"}
    ) as client:
        tools = client.tools()
        assert sorted(t.name for t in tools) == ["shop_add", "shop_echo"]
        echo = next(t for t in tools if t.name == "shop_echo")
        assert await echo.execute({"text": "hi"}, _context("shop_echo")) == "hi"
    assert "MCP server 'shop' has no tool named refund" in caplog.text


async def test_a_server_that_dies_fails_the_call_then_is_started_again() -> None:
    async with MCPClient(stdio=stdio_command(), timeout=20) as client:
        first = (await client.call_tool("pid"))["result"]
        with pytest.raises(MCPConnectionError) as caught:
            await client.call_tool("crash")
        message = str(caught.value)
        assert message.startswith("MCP server 'mcp_server.py' went away during the call to 'crash'")
        assert message.endswith("the server is crashing on purpose")  # its stderr, last line
        assert not client.connected
        second = (await client.call_tool("pid"))["result"]  # a new process answers
        assert second != first
        assert wait_until_gone(first)


async def test_a_server_that_died_between_calls_is_started_before_the_next() -> None:
    async with MCPClient(stdio=stdio_command()) as client:
        first = (await client.call_tool("pid"))["result"]
        os.kill(first, signal.SIGKILL)
        for _ in range(200):  # its end of stream is noticed without any call
            if not client.connected:
                break
            await asyncio.sleep(0.05)
        assert not client.connected
        assert (await client.call_tool("pid"))["result"] != first  # no failed call first


async def test_without_reconnect_a_dead_server_stays_an_error() -> None:
    async with MCPClient(stdio=stdio_command(), reconnect=False) as client:
        with pytest.raises(MCPConnectionError):
            await client.call_tool("crash")
        with pytest.raises(MCPConnectionError, match="is not connected: the server closed"):
            await client.call_tool("pid")


async def test_a_server_that_exits_at_start_is_a_connection_error_with_its_stderr() -> None:
    client = MCPClient(stdio=stdio_command("--fail-at-start"))
    with pytest.raises(MCPConnectionError) as caught:
        await client.connect()
    assert str(caught.value) == (
        "MCP server 'mcp_server.py' closed the connection before completing the MCP "
        "handshake; its stderr ended with:\ncannot start: missing configuration"
    )
    assert not client.connected


async def test_stderr_can_go_to_a_file_of_ones_own(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with log.open("w") as sink:
        client = MCPClient(stdio=stdio_command("--fail-at-start"), stderr=sink)
        with pytest.raises(MCPConnectionError) as caught:
            await client.connect()
    assert "stderr ended with" not in str(caught.value)
    assert log.read_text() == "cannot start: missing configuration\n"


async def test_a_missing_command_is_a_connection_error() -> None:
    with pytest.raises(MCPConnectionError, match="'no-such-mcp-server' could not connect: File"):
        await MCPClient(stdio=["no-such-mcp-server", "--flag"]).connect()


async def test_a_server_that_never_answers_times_out_and_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    client = MCPClient(stdio=[sys.executable, "-c", script, str(pid_file)], connect_timeout=1)
    with pytest.raises(MCPConnectionError, match="handshake within 1 s"):
        await client.connect()
    assert wait_until_gone(int(pid_file.read_text()))


async def test_closing_stops_the_server_and_later_calls_fail() -> None:
    client = MCPClient(stdio=stdio_command())
    with pytest.raises(MCPConnectionError, match="not connected; use `async with"):
        client.tools()
    with pytest.raises(MCPConnectionError, match="not connected"):
        _ = client.session
    async with client:
        pid = (await client.call_tool("pid"))["result"]
        add = {t.name: t for t in client.tools()}["add"]
        await client.session.send_ping()  # the SDK session, for what procession does not wrap
    assert wait_until_gone(pid)
    with pytest.raises(MCPConnectionError, match="not connected"):
        _ = client.session
    with pytest.raises(MCPConnectionError, match="the client was closed"):
        await add.execute({"a": 1, "b": 2}, _context("add"))
    await client.aclose()  # closing twice is harmless


def _context(name: str) -> ToolContext:
    async def emit(chunk: Any, message_id: str | None) -> None:
        return None

    return ToolContext(
        tool_call_id="call-1",
        tool_name=name,
        writer=ToolWriter(emit),
        request_context=RequestContext(),
    )
