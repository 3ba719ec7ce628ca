"""MCP tools inside an agent run, over stdio and streamable HTTP: processors see and rewrite
their results like any tool's, errors become tool errors, progress becomes data chunks, and
cancelling the run cancels the call on the server."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import pytest_asyncio

from procession import Agent, Chunk, MessageList, Processor
from procession.mcp import MCPClient
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .mcp_helpers import cancelled_labels, http_server, stdio_command, url
from .mcp_server import PNG

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    """One HTTP server process for the module."""
    with http_server() as (_, port):
        yield port


@pytest_asyncio.fixture(loop_scope="module", scope="module", params=["stdio", "http"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[MCPClient]:
    """A connected client of the test server, once over each transport."""
    if request.param == "stdio":
        options: dict[str, Any] = {"stdio": stdio_command()}
    else:
        options = {"url": url(request.getfixturevalue("http_port"))}
    async with MCPClient(prefix="shop", timeout=20, **options) as client:
        yield client


class RedactCards(Processor):
    """Replaces a card number in an MCP tool's result before the model reads it."""

    id = "redact-cards"

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def process_tool_result(
        self,
        *,
        tool_name: str,
        tool_call_id: str,
        args: Any,
        result: Any,
        message_list: MessageList,
        **_: Any,
    ) -> None:
        self.seen.append((tool_name, result))
        if isinstance(result, dict) and "card" in result:
            message_list.update_tool_invocation(
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "state": "result",
                        "toolCallId": tool_call_id,
                        "toolName": tool_name,
                        "args": args,
                        "result": {**result, "card": "[REDACTED]"},
                    },
                }
            )


def call(name: str, args: dict[str, Any], call_id: str = "call-1") -> Reply:
    """A scripted reply that calls one tool."""
    return Reply(tool_calls=[ToolCallScript(name, args, call_id)])


async def test_a_processor_sees_and_rewrites_an_mcp_tool_result(client: MCPClient) -> None:
    redact = RedactCards()
    model = ScriptedModel([call("shop_lookup_order", {"order_id": "A-7"}), Reply(text=["Done."])])
    agent = Agent(id="shop", model=model, tools=client.tools(), output_processors=[redact])
    stream = agent.stream("Where is A-7?")
    chunks = [chunk async for chunk in stream]
    result = await stream.result()

    raw = {"order_id": "A-7", "status": "shipped", "card": "4111 1111 1111 1111"}
    redacted = {**raw, "card": "[REDACTED]"}
    assert redact.seen == [("shop_lookup_order", raw)]
    tool_results = [c.payload["result"] for c in chunks if c.type == "tool-result"]
    assert tool_results == [redacted]
    assert result.tool_results[0].result == redacted
    sent_back = model.calls[1].prompt[-1]["content"][0]["output"]
    assert sent_back == {"type": "json", "value": redacted}
    assert "4111" not in repr(model.calls[1].prompt)
    definition = next(t for t in model.calls[0].tools if t["name"] == "shop_lookup_order")
    assert definition["description"] == "Look up an order by its id."
    assert result.text == "Done."


async def test_an_mcp_error_is_a_tool_error_the_model_reads(client: MCPClient) -> None:
    model = ScriptedModel([call("shop_fail", {"reason": "closed"}), Reply(text=["Sorry."])])
    agent = Agent(id="shop", model=model, tools=client.tools())
    chunks = [chunk async for chunk in agent.stream("Go")]
    error = next(c for c in chunks if c.type == "tool-error")
    assert error.payload["error"] == "Error executing tool fail: failed on purpose: closed"
    assert model.calls[1].prompt[-1]["content"][0]["output"] == {
        "type": "error-text",
        "value": "Error executing tool fail: failed on purpose: closed",
    }


async def test_progress_reports_stream_as_data_chunks(client: MCPClient) -> None:
    model = ScriptedModel([call("shop_progress", {}, "call-p"), Reply(text=["ok"])])
    agent = Agent(id="shop", model=model, tools=client.tools())
    chunks: list[Chunk] = [chunk async for chunk in agent.stream("Go")]
    progress = [c.data for c in chunks if c.type == "data-mcp-progress"]
    assert [(p["progress"], p["total"]) for p in progress] == [(1, 2), (2, 2)]
    assert {(p["toolCallId"], p["toolName"], p["tool"]) for p in progress} == {
        ("call-p", "shop_progress", "progress")
    }
    kinds = [c.type for c in chunks]
    assert kinds.index("data-mcp-progress") < kinds.index("tool-result")


async def test_cancelling_the_run_cancels_the_call_on_the_server(client: MCPClient) -> None:
    label = f"cancelled-run-{client.name}"
    model = ScriptedModel([call("shop_slow", {"seconds": 30, "label": label}), Reply(text=["-"])])
    agent = Agent(id="shop", model=model, tools=client.tools())
    stream = agent.stream("Go")
    seen: list[str] = []

    async def consume() -> None:
        async for chunk in stream:
            seen.append(chunk.type)

    consumer = asyncio.ensure_future(consume())
    await asyncio.sleep(1.0)  # the tool runs while the consumer waits for its result
    assert "tool-call" in seen
    assert "tool-result" not in seen
    consumer.cancel()  # D32: the caller's task is cancelled
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert label in await cancelled_labels(client, label)


async def test_closing_the_stream_cancels_the_call_on_the_server(client: MCPClient) -> None:
    label = f"closed-stream-{client.name}"
    arguments = {"seconds": 30, "label": label, "report": True}
    model = ScriptedModel([call("shop_slow", arguments), Reply(text=["-"])])
    stream = Agent(id="shop", model=model, tools=client.tools()).stream("Go")
    async for chunk in stream:
        if chunk.type == "data-mcp-progress":  # the tool is running on the server
            assert chunk.data["message"] == "started"
            break
    await stream.aclose()  # D32
    assert label in await cancelled_labels(client, label)


async def test_an_image_result_reaches_the_model_as_media(client: MCPClient) -> None:
    model = ScriptedModel([call("shop_picture", {}), Reply(text=["One pixel."])])
    result = await Agent(id="shop", model=model, tools=client.tools()).generate("Show me")
    data = base64.b64encode(PNG).decode()
    image = {"type": "image", "mimeType": "image/png", "data": data}
    assert result.tool_results[0].result == [image]  # what processors see stays the same
    assert model.calls[1].prompt[-1]["content"][0]["output"] == {
        "type": "content",
        "value": [{"type": "media", "data": data, "mediaType": "image/png"}],
    }
