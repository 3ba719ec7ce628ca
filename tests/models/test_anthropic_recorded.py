"""Recorded Anthropic streams (``fixtures/anthropic/``) through the real SDK and the adapter.

Each fixture reproduces a wire shape the live API sends (see ``fixtures/README.md``); the
loopback server replays it byte for byte to a real ``AsyncAnthropic``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession import Agent, tool
from procession.chunks import Chunk
from procession.models import ModelCallOptions
from procession.models.anthropic import AnthropicModel
from tests.models.scripted_server import ScriptedServer
from tests.models.wire_fixtures import fixture_reply

pytest.importorskip("anthropic")

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


@pytest_asyncio.fixture
async def model(server: ScriptedServer) -> AsyncIterator[AnthropicModel]:
    claude = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    yield claude
    await claude.aclose()


async def replay(server: ScriptedServer, model: AnthropicModel, name: str, **opts: Any) -> Any:
    server.script(fixture_reply(f"anthropic/{name}", headers={"request-id": "req_1"}))
    opts.setdefault("prompt", [USER])
    result = await model.do_stream(ModelCallOptions(**opts))
    return [chunk async for chunk in result.stream]


def of_type(chunks: list[Chunk], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in chunks if c.type == kind]


def assert_balanced(chunks: list[Chunk]) -> None:
    """Every started text, reasoning and tool input is ended, and finish comes last, once."""
    opened: set[tuple[str, str]] = set()
    for chunk in chunks:
        kind, payload = chunk.type, chunk.payload
        if kind in ("text-start", "reasoning-start"):
            opened.add((kind.split("-")[0], payload["id"]))
        elif kind in ("text-end", "reasoning-end"):
            opened.remove((kind.split("-")[0], payload["id"]))
        elif kind == "tool-call-input-streaming-start":
            opened.add(("tool", payload["toolCallId"]))
        elif kind == "tool-call-input-streaming-end":
            opened.remove(("tool", payload["toolCallId"]))
    assert not opened
    assert [c.type for c in chunks].count("finish") == 1
    assert chunks[-1].type == "finish"


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["tool-use-max-tokens.sse", "tool-use-max-tokens-block-stop.sse"])
async def test_max_tokens_inside_tool_input_drops_the_call(
    server: ScriptedServer, model: AnthropicModel, name: str
) -> None:
    chunks = await replay(server, model, name)  # no JSONDecodeError escapes
    assert_balanced(chunks)
    assert of_type(chunks, "tool-call") == []
    assert "".join(d["argsTextDelta"] for d in of_type(chunks, "tool-call-delta")).startswith(
        '{"path": "packing.txt'
    )
    finish = chunks[-1].payload
    assert finish["stepResult"] == {"reason": "length", "rawReason": "max_tokens"}
    [dropped] = finish["providerMetadata"]["anthropic"]["truncatedToolCalls"]
    assert dropped["toolCallId"] == "toolu_01PackingListWriter01"
    assert dropped["toolName"] == "write_file"
    assert dropped["argsText"].endswith('"Rain jac')
    text = "".join(d["text"] for d in of_type(chunks, "text-delta"))
    assert text == "I'll write the packing list to a file now."


@pytest.mark.asyncio
async def test_truncated_tool_call_ends_an_agent_run_cleanly(server: ScriptedServer) -> None:
    ran: list[dict[str, Any]] = []

    @tool
    def write_file(path: str, lines: list[str]) -> str:
        """Write lines to a file."""
        ran.append({"path": path})
        return "written"

    claude = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    agent = Agent(id="writer", instructions="Write files.", model=claude, tools=[write_file])
    server.script(fixture_reply("anthropic/tool-use-max-tokens-block-stop.sse"))
    result = await agent.generate("Make me a packing list file.")
    await claude.aclose()
    assert result.finish_reason == "length"
    assert result.tool_calls == []
    assert ran == []
    assert result.text == "I'll write the packing list to a file now."
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_redacted_thinking_goes_back_first_in_the_next_turn(server: ScriptedServer) -> None:
    # With thinking and tool use the API refuses an assistant turn that does not start with
    # its thinking blocks, redacted ones included, exactly as they came.
    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    first = fixture_reply("anthropic/redacted-thinking-tool-use.sse")
    claude = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    agent = Agent(id="weather", instructions="Answer.", model=claude, tools=[weather])
    server.script(first, fixture_reply("anthropic/refusal-stop-details.sse"))
    await agent.generate("Weather in Lisbon?")
    await claude.aclose()
    sent = server.requests[1].body["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    assert assistant["content"][0] == {
        "type": "redacted_thinking",
        "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT",
    }
    assert [b["type"] for b in assistant["content"]][1:] == ["tool_use"]


@pytest.mark.asyncio
async def test_mcp_connector_blocks_go_back_as_mcp_blocks(server: ScriptedServer) -> None:
    # The MCP connector's mcp_tool_use / mcp_tool_result must come back under their own
    # types (with the server's name), not as server_tool_use and an invented result type.
    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    claude = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    agent = Agent(id="weather", instructions="Answer.", model=claude, tools=[weather])
    server.script(
        fixture_reply("anthropic/mcp-connector-and-tool.sse"),
        fixture_reply("anthropic/refusal-stop-details.sse"),
    )
    await agent.generate("Are you open, and what is the weather?")
    await claude.aclose()
    sent = server.requests[1].body["messages"]
    assistant = next(m for m in sent if m["role"] == "assistant")
    use, result, call = assistant["content"]
    assert use == {
        "type": "mcp_tool_use",
        "id": "mcptoolu_01DocsLookup0001",
        "name": "ask_question",
        "input": {"question": "opening hours"},
        "server_name": "docs",
    }
    assert result["type"] == "mcp_tool_result"
    assert result["tool_use_id"] == "mcptoolu_01DocsLookup0001"
    assert result["is_error"] is False
    assert result["content"] == [{"type": "text", "text": "Open 9 to 17 on weekdays."}]
    assert call["type"] == "tool_use"


@pytest.mark.asyncio
async def test_invalid_tool_input_that_was_not_cut_reaches_the_tool_as_text(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    reply = fixture_reply("anthropic/tool-use.sse")
    reply.raw = [piece.replace(b'sbon\\"}', b'sbon\\"') for piece in reply.raw]
    server.script(reply)
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    chunks = [chunk async for chunk in result.stream]
    assert_balanced(chunks)
    [call] = of_type(chunks, "tool-call")
    assert call["args"] == '{"city": "Lisbon"'  # the tool rejects it and the model is told
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"


@pytest.mark.asyncio
async def test_recorded_tool_use(server: ScriptedServer, model: AnthropicModel) -> None:
    chunks = await replay(server, model, "tool-use.sse")
    assert_balanced(chunks)
    assert of_type(chunks, "tool-call") == [
        {
            "toolCallId": "toolu_01WeatherLookup0000001",
            "toolName": "weather",
            "args": {"city": "Lisbon"},
        }
    ]
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "tool-calls"
    assert finish["output"]["usage"] == {
        "inputTokens": 377,
        "outputTokens": 58,
        "totalTokens": 435,
        "cachedInputTokens": 0,
    }


@pytest.mark.asyncio
async def test_refusal_keeps_stop_details(server: ScriptedServer, model: AnthropicModel) -> None:
    chunks = await replay(server, model, "refusal-stop-details.sse")
    assert_balanced(chunks)
    finish = chunks[-1].payload
    assert finish["stepResult"] == {"reason": "content-filter", "rawReason": "refusal"}
    assert finish["providerMetadata"]["anthropic"]["stopDetails"] == {
        "type": "refusal",
        "category": "cyber",
        "explanation": "This request was blocked under the usage policy.",
        "recommended_model": "claude-opus-4-7",
    }
    assert finish["metadata"]["providerMetadata"] == finish["providerMetadata"]


@pytest.mark.asyncio
async def test_compaction_usage_sums_the_iterations(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    # Under server-side compaction the top-level counts are the last iteration's only, and
    # message_delta's cache_read_input_tokens is 0 after message_start's real figure.
    chunks = await replay(server, model, "compaction-usage.sse")
    assert_balanced(chunks)
    usage = chunks[-1].payload["output"]["usage"]
    assert usage["inputTokens"] == 55_377  # 100 + 181 uncached, 55,096 read from the cache
    assert usage["outputTokens"] == 91  # 83 for the summary, 8 for the answer
    assert usage["cachedInputTokens"] == 55_096
    assert "".join(c.payload["text"] for c in chunks if c.type == "text-delta") == "Done."


@pytest.mark.asyncio
async def test_web_search_citations_become_sources(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    chunks = await replay(server, model, "web-search-citations.sse")
    assert_balanced(chunks)
    [source] = of_type(chunks, "source")
    assert source["sourceType"] == "url"
    assert source["url"] == "https://port.example.org/tides"
    assert source["title"] == "Harbour tide tables | Example Port Authority"
    assert source["id"] == "msg_01WebSearchCitations001-source-1"
    cited = source["providerMetadata"]["anthropic"]
    assert cited["cited_text"].startswith("High tide today is at 14:12")
    assert cited["encrypted_index"].startswith("EpMB")
    [result] = of_type(chunks, "tool-result")
    assert [r["url"] for r in result["result"]] == [
        "https://port.example.org/tides",
        "https://weather.example.net/marine/tides",
    ]
    ends = of_type(chunks, "text-end")
    assert "providerMetadata" not in ends[0]
    assert ends[1]["providerMetadata"]["anthropic"]["citations"] == [cited]
    types = [c.type for c in chunks]
    assert types.index("source") < types.index("text-end", types.index("source"))
    usage = chunks[-1].payload["providerMetadata"]["anthropic"]["usage"]
    assert usage["server_tool_use"] == {"web_search_requests": 1}


@pytest.mark.asyncio
async def test_document_citations_name_the_request_documents(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    prompt = [
        {
            "role": "user",
            "content": [
                {"type": "file", "data": "Rent is due...", "mediaType": "text/plain"},
                {
                    "type": "file",
                    "data": "JVBERi0=",
                    "mediaType": "application/pdf",
                    "filename": "fees.pdf",
                },
                {"type": "text", "text": "When is rent due?"},
            ],
        }
    ]
    chunks = await replay(server, model, "document-citations.sse", prompt=prompt)
    sources = of_type(chunks, "source")
    assert [(s["sourceType"], s["title"], s["mimeType"]) for s in sources] == [
        ("document", "Lease agreement", "text/plain"),
        ("document", "fees.pdf", "application/pdf"),
    ]
    assert sources[1]["providerMetadata"]["anthropic"]["start_page_number"] == 3
    text = "".join(d["text"] for d in of_type(chunks, "text-delta"))
    assert text.startswith("According to the lease, rent is due on the first of the month")
    assert text.endswith(", and late payments cost 5%.")


@pytest.mark.asyncio
async def test_unknown_events_blocks_and_deltas_are_skipped(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    reply = fixture_reply("anthropic/tool-use.sse")
    extra = [
        b'event: content_block_start\ndata: {"type":"content_block_start","index":7,'
        b'"content_block":{"type":"compaction","content":null}}\n\n',
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":7,'
        b'"delta":{"type":"compaction_delta","content":"summary"}}\n\n',
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"brand_new_delta","x":1}}\n\n',
        b'event: content_block_stop\ndata: {"type":"content_block_stop","index":7}\n\n',
        b'event: brand_new_event\ndata: {"type":"brand_new_event","x":1}\n\n',
    ]
    reply.raw = reply.raw[:3] + extra + reply.raw[3:]
    server.script(reply)
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    chunks = [chunk async for chunk in result.stream]
    assert_balanced(chunks)
    assert "".join(d["text"] for d in of_type(chunks, "text-delta")) == "Let me look that up."
    assert len(of_type(chunks, "tool-call")) == 1


@pytest.mark.asyncio
async def test_stream_cut_mid_block_still_closes_every_part(
    server: ScriptedServer, model: AnthropicModel
) -> None:
    reply = fixture_reply("anthropic/tool-use.sse")
    reply.raw = reply.raw[:4]  # message_start, text start, ping, one delta: then EOF
    server.script(reply)
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    chunks = [chunk async for chunk in result.stream]
    assert_balanced(chunks)
    assert [c.type for c in chunks] == [
        "response-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert chunks[-1].payload["stepResult"] == {"reason": "unknown"}
