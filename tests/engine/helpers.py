"""Helpers shared by the loop tests."""

from __future__ import annotations

from typing import Any

from procession import Agent, AgentStream, Chunk, Message
from procession.testing import Reply, ScriptedModel, ToolCallScript


async def collect(stream: AgentStream) -> list[Chunk]:
    """Every chunk of a stream."""
    return [chunk async for chunk in stream]


def types(chunks: list[Chunk]) -> list[str]:
    """The chunk types, in order."""
    return [c.type for c in chunks]


def texts(chunks: list[Chunk]) -> str:
    """The text of the text-delta chunks, joined."""
    return "".join(c.payload["text"] for c in chunks if c.type == "text-delta")


def parts(message: Message) -> list[dict[str, Any]]:
    """A message's parts in a compact form for assertions."""
    from procession import part_to_dict

    return [part_to_dict(p) for p in message.content.parts]


def tool_call(name: str, args: dict[str, Any], call_id: str = "call-1") -> Reply:
    """A reply that calls one tool."""
    return Reply(tool_calls=[ToolCallScript(name, args, call_id)])


def agent(model: ScriptedModel, **options: Any) -> Agent:
    """An agent with test defaults."""
    options.setdefault("instructions", "You are a test agent.")
    return Agent(id="test-agent", model=model, **options)
