"""Driving the server with ``a2a-sdk``'s own client (A2A 1.0), as another agent would."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
from a2a.client import Client, ClientConfig, ClientFactory
from a2a.types.a2a_pb2 import (
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from google.protobuf import json_format

from tests.server_clients.clients import unique
from tests.server_clients.servers import Served


def card_path(agent_id: str) -> str:
    """Where Mastra (and procession) serve an agent's card."""
    return f"/api/.well-known/{agent_id}/agent-card.json"


@contextlib.asynccontextmanager
async def a2a_client(
    served: Served,
    agent_id: str,
    *,
    headers: dict[str, str] | None = None,
    streaming: bool = True,
    polling: bool = False,
) -> AsyncIterator[Client]:
    """An ``a2a-sdk`` client of one agent, made from its card as the SDK resolves it."""
    async with httpx.AsyncClient(headers=headers or {}, timeout=30) as http:
        config = ClientConfig(streaming=streaming, polling=polling, httpx_client=http)
        client = await ClientFactory(config).create_from_url(
            served.url, relative_card_path=card_path(agent_id)
        )
        try:
            yield client
        finally:
            await client.close()


def text_message(text: str, **ids: str) -> SendMessageRequest:
    """A user's text message (``context_id=``, ``task_id=`` to continue)."""
    message = Message(role=Role.ROLE_USER, message_id=unique("a2a-msg"), parts=[Part(text=text)])
    for name, value in ids.items():
        setattr(message, name, value)
    return SendMessageRequest(message=message)


def data_message(data: dict[str, Any], **ids: str) -> SendMessageRequest:
    """A user's message with one data part (an approval's answer)."""
    part = json_format.ParseDict({"data": data}, Part())
    message = Message(role=Role.ROLE_USER, message_id=unique("a2a-msg"), parts=[part], **ids)
    return SendMessageRequest(message=message)


async def events(client: Client, request: SendMessageRequest) -> list[StreamResponse]:
    """Every event the client yields for one message."""
    return [event async for event in client.send_message(request)]


def kinds(seen: list[StreamResponse]) -> list[str]:
    """Each event's kind: ``task``, ``status_update``, ``artifact_update`` or ``message``."""
    return [str(event.WhichOneof("payload")) for event in seen]


def streamed_text(seen: list[StreamResponse]) -> str:
    """The response's text as the artifact updates carried it."""
    return "".join(
        part.text
        for event in seen
        if event.HasField("artifact_update")
        for part in event.artifact_update.artifact.parts
    )


def states(seen: list[StreamResponse]) -> list[str]:
    """The task states the events reported, in order."""
    out = []
    for event in seen:
        if event.HasField("task"):
            out.append(event.task.status.state)
        elif event.HasField("status_update"):
            out.append(event.status_update.status.state)
    return [TaskState.Name(s) for s in out]


def last_status(seen: list[StreamResponse]) -> Any:
    """The last status the events reported."""
    for event in reversed(seen):
        if event.HasField("status_update"):
            return event.status_update.status
        if event.HasField("task"):
            return event.task.status
    raise AssertionError("no status in the events")


def status_text(status: Any) -> str:
    """The text of a status's message."""
    return "".join(part.text for part in status.message.parts)
