"""Tools a provider runs itself, through the public API from loopback, and the next turn.

Groq's compound models report ``executed_tools``; the Responses API's remote MCP servers
give ``mcp_list_tools``, ``mcp_call`` and ``mcp_approval_request`` items. Each becomes a
provider-executed ``tool-call`` / ``tool-result`` pair (as Mastra and the AI SDK report them),
and the next request carries what the provider needs of it. The fixtures are written to the
documented shapes (``fixtures/README.md`` says which).
"""

from __future__ import annotations

from typing import Any

import pytest
from openai import AsyncOpenAI

from procession import Agent, tool
from procession.chunks import Chunk
from procession.messages.parts import ToolInvocationPart
from procession.models.openai import OpenAIChatModel, OpenAIResponsesModel
from tests.models.helpers import of_type
from tests.models.openai_server import OpenAIServer, fixture_events, fixture_reply


@tool
def weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "sky": "clear"}


def _executed(chunks: list[Chunk], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in of_type(chunks, kind) if c.payload.get("providerExecuted")]


def _groq(client: AsyncOpenAI) -> OpenAIChatModel:
    return OpenAIChatModel("groq/compound", client=client, provider="groq")


@pytest.mark.asyncio
async def test_groq_executed_tools_become_provider_executed_calls_and_results(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    name = "groq-compound-executed-tools.sse"
    server.reply(fixture_reply(name))
    agent = Agent(id="hours", model=_groq(client))
    stream = agent.stream("When is the library open?")
    chunks = [chunk async for chunk in stream]
    result = await stream.result()
    calls = _executed(chunks, "tool-call")
    results = _executed(chunks, "tool-result")
    assert [(c["toolName"], c["args"]) for c in calls] == [
        ("search", {"query": "Oslo public library opening hours"}),
        ("python", {"code": "print(22 - 8)"}),
    ]
    assert [r["toolCallId"] for r in results] == [c["toolCallId"] for c in calls]
    assert len({c["toolCallId"] for c in calls}) == 2
    search = fixture_events(name)[3]["choices"][0]["delta"]["executed_tools"][0]
    assert results[0]["result"] == {
        "output": search["output"],
        "search_results": search["search_results"],
    }
    assert results[1]["result"]["output"] == "14\n"
    assert [c.payload["url"] for c in of_type(chunks, "source")] == [
        "https://example.org/deichman",
        "https://example.org/oslo-libraries",
    ]
    # the tools ran at Groq: the run ends with the answer, no step waits for them
    assert result.text == "The main library is open 14 hours a day on weekdays."
    assert result.finish_reason == "stop"
    stored = [
        (part.tool_invocation.tool_name, part.tool_invocation.state)
        for part in result.messages[-1].content.parts
        if isinstance(part, ToolInvocationPart) and part.provider_executed
    ]
    assert stored == [("search", "result"), ("python", "result")]


@pytest.mark.asyncio
async def test_groq_executed_tools_leave_no_dangling_call_on_the_next_turn(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(fixture_reply("groq-compound-executed-tools.sse"))
    agent = Agent(id="hours", model=_groq(client))
    question = {"role": "user", "content": "When is the library open?"}
    first = await agent.generate([question])
    await agent.generate([question, *first.messages, {"role": "user", "content": "Sunday?"}])
    sent = server.requests[1].body["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1] == {
        "role": "assistant",
        "content": "The main library is open 14 hours a day on weekdays.",
    }


def _responses_agent(client: AsyncOpenAI, **options: Any) -> Agent:
    return Agent(
        id="docs",
        model=OpenAIResponsesModel("gpt-5-mini", client=client),
        tools=[weather],
        provider_options={"openai": options} if options else None,
    )


@pytest.mark.asyncio
async def test_responses_mcp_items_become_provider_executed_chunks(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(fixture_reply("openai-responses-mcp-call.sse"))
    stream = _responses_agent(client).stream("Are you open, and what is the weather?")
    chunks = [chunk async for chunk in stream]
    await stream.result()
    calls = _executed(chunks, "tool-call")
    assert [(c["toolName"], c["args"]) for c in calls] == [
        ("mcp_list_tools", {}),
        ("ask_question", {"question": "opening hours"}),
    ]
    assert [c["providerMetadata"]["openai"] for c in calls] == [
        {
            "itemId": "mcpl_0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789aa01",
            "itemType": "mcp_list_tools",
            "serverLabel": "docs",
        },
        {
            "itemId": "mcp_0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789bb02",
            "itemType": "mcp_call",
            "serverLabel": "docs",
        },
    ]
    results = _executed(chunks, "tool-result")
    assert results[0]["result"]["tools"][0]["name"] == "ask_question"
    assert results[1]["result"] == "Open 9 to 17 on weekdays."
    # the function call still runs here: one client tool call, one step after it
    client_calls = [c.payload["toolName"] for c in of_type(chunks, "tool-call")]
    assert client_calls.count("weather") == 1
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_responses_mcp_items_go_back_as_item_references_when_stored(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(fixture_reply("openai-responses-mcp-call.sse"))
    await _responses_agent(client).generate("Are you open, and what is the weather?")
    items = server.requests[1].body["input"]
    assert [item.get("type", item.get("role")) for item in items] == [
        "user",
        "item_reference",
        "item_reference",
        "function_call",
        "function_call_output",
    ]
    assert [item["id"] for item in items[1:3]] == [
        "mcpl_0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789aa01",
        "mcp_0a1b2c3d4e5f60718293a4b5c6d7e8f90123456789bb02",
    ]


@pytest.mark.asyncio
async def test_responses_mcp_items_are_rebuilt_when_not_stored(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    name = "openai-responses-mcp-call.sse"
    server.reply(fixture_reply(name))
    await _responses_agent(client, store=False).generate("Are you open?")
    items = server.requests[1].body["input"]
    listed, called = fixture_events(name)[5]["item"], fixture_events(name)[11]["item"]
    assert items[1] == {
        "type": "mcp_list_tools",
        "id": listed["id"],
        "server_label": "docs",
        "tools": listed["tools"],
    }
    assert items[2] == {
        "type": "mcp_call",
        "id": called["id"],
        "server_label": "docs",
        "name": "ask_question",
        "arguments": '{"question": "opening hours"}',
        "output": "Open 9 to 17 on weekdays.",
    }


@pytest.mark.asyncio
async def test_responses_mcp_approval_request_waits_and_its_answer_goes_back(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(fixture_reply("openai-responses-mcp-approval.sse"))
    question = {"role": "user", "content": "Delete page 3 of the docs."}
    first = await _responses_agent(client).generate([question])
    approval_id = "mcpr_0f9e8d7c6b5a49382716a5b4c3d2e1f0fedcba9876dd04"
    assert first.finish_reason == "stop"
    assert len(server.requests) == 1  # nothing ran: the call waits for the user
    follow_up = _responses_agent(client, mcp_approvals={approval_id: True})
    await follow_up.generate([question, *first.messages])
    items = server.requests[1].body["input"]
    assert items[-2:] == [
        {"type": "item_reference", "id": approval_id},
        {"type": "mcp_approval_response", "approval_request_id": approval_id, "approve": True},
    ]
    assert "mcp_approvals" not in server.requests[1].body
