"""The route table: every route once, with what the OpenAPI document says about it.

The same :class:`RouteSpec` builds the Starlette route and the document's operation, so
the document cannot drift from what is served.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from starlette.requests import Request

from procession.server import ag_ui_routes, reconnect
from procession.server import agent_routes as agents
from procession.server import memory_routes as memory
from procession.server.ag_ui_input import RunAgentBody
from procession.server.bodies import (
    ChatBody,
    CreateThreadBody,
    DeleteMessagesBody,
    ExecutionBody,
    ToolApprovalBody,
    UpdateThreadBody,
    WorkingMemoryBody,
)
from procession.server.config import ServerLimits
from procession.server.params import Param

__all__ = ["RECONNECT", "ROUTES", "RouteSpec"]

Endpoint = Callable[[Request], Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class RouteSpec:
    """One route: how it is served and how the OpenAPI document describes it.

    Attributes:
        method: The HTTP method.
        path: The path, with ``{name}`` parameters.
        endpoint: The Starlette endpoint.
        operation_id: The OpenAPI ``operationId``.
        summary: One line for the document.
        tag: ``Agents``, ``Memory``, ``Chat``, ``Server`` or ``Studio``.
        params: The query parameters (or a function of the limits giving them).
        body: The request body model.
        response: The name of the success response's schema, or ``"stream"`` for an event
            stream.
        errors: The error statuses the route may answer with (401 and 413 are added for
            routes that need credentials or take a body).
        public: Served without credentials.
        no_content: When the route may answer 204 (no body), why; empty when it never does.
    """

    method: str
    path: str
    endpoint: Endpoint
    operation_id: str
    summary: str
    tag: str
    params: Sequence[Param] | Callable[[ServerLimits], Sequence[Param]] = ()
    body: type[BaseModel] | None = None
    response: str = "Object"
    errors: tuple[int, ...] = field(default=())
    public: bool = False
    no_content: str = ""

    def query(self, limits: ServerLimits) -> Sequence[Param]:
        """The query parameters under ``limits``."""
        return self.params(limits) if callable(self.params) else self.params


_THREAD = "/api/memory/threads/{threadId}"
_RUN_ERRORS = (403, 404, 409, 422, 500)

ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec(
        "GET",
        "/api/agents",
        agents.list_agents,
        "listAgents",
        "List the agents",
        "Agents",
        response="AgentMap",
    ),
    RouteSpec(
        "GET",
        "/api/agents/{agentId}",
        agents.get_agent,
        "getAgent",
        "Get an agent",
        "Agents",
        response="Agent",
        errors=(404,),
    ),
    RouteSpec(
        "POST",
        "/api/agents/{agentId}/generate",
        agents.generate,
        "generate",
        "Run an agent to the end",
        "Agents",
        body=ExecutionBody,
        response="GenerateResult",
        errors=_RUN_ERRORS,
    ),
    RouteSpec(
        "POST",
        "/api/agents/{agentId}/stream",
        agents.stream,
        "stream",
        "Stream a run as Mastra chunks",
        "Agents",
        body=ExecutionBody,
        response="stream",
        errors=_RUN_ERRORS,
    ),
    RouteSpec(
        "POST",
        "/chat/{agentId}",
        agents.chat,
        "chat",
        "Stream a run as the AI SDK UI message stream",
        "Chat",
        body=ChatBody,
        response="uiStream",
        errors=_RUN_ERRORS,
    ),
    RouteSpec(
        "POST",
        "/ag-ui/{agentId}",
        ag_ui_routes.run_ag_ui,
        "runAgUi",
        "Run an agent on an AG-UI RunAgentInput and stream its AG-UI events",
        "Chat",
        body=RunAgentBody,
        response="stream",
        errors=(400, *_RUN_ERRORS),
    ),
    RouteSpec(
        "POST",
        "/api/agents/{agentId}/send-tool-approval",
        agents.send_tool_approval,
        "sendToolApproval",
        "Approve or decline a tool call a run of the caller's is waiting on",
        "Agents",
        body=ToolApprovalBody,
        response="ToolApproval",
        errors=(403, 404, 422),
    ),
    RouteSpec(
        "GET",
        "/api/memory/status",
        memory.status,
        "getMemoryStatus",
        "Whether memory is available",
        "Memory",
        params=memory.AGENT_ONLY,
        response="MemoryStatus",
        errors=(404, 422),
    ),
    RouteSpec(
        "GET",
        "/api/memory/threads",
        memory.list_threads,
        "listThreads",
        "List the caller's threads",
        "Memory",
        params=memory.thread_list_params,
        response="ThreadList",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "POST",
        "/api/memory/threads",
        memory.create_thread,
        "createThread",
        "Create a thread",
        "Memory",
        params=memory.AGENT_ONLY,
        body=CreateThreadBody,
        response="Thread",
        errors=(400, 403, 404, 409, 422),
    ),
    RouteSpec(
        "GET",
        _THREAD,
        memory.get_thread,
        "getThread",
        "Get a thread",
        "Memory",
        params=memory.AGENT_RESOURCE,
        response="Thread",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "PATCH",
        _THREAD,
        memory.update_thread,
        "updateThread",
        "Update a thread's title and metadata",
        "Memory",
        params=memory.AGENT_ONLY,
        body=UpdateThreadBody,
        response="Thread",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "DELETE",
        _THREAD,
        memory.delete_thread,
        "deleteThread",
        "Delete a thread",
        "Memory",
        params=memory.AGENT_RESOURCE,
        response="DeleteResult",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "GET",
        _THREAD + "/messages",
        memory.list_messages,
        "listMessages",
        "List a thread's messages",
        "Memory",
        params=memory.message_list_params,
        response="MessageList",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "GET",
        _THREAD + "/working-memory",
        memory.get_working_memory,
        "getWorkingMemory",
        "Get working memory",
        "Memory",
        params=memory.AGENT_RESOURCE,
        response="WorkingMemory",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "POST",
        _THREAD + "/working-memory",
        memory.update_working_memory,
        "updateWorkingMemory",
        "Replace working memory",
        "Memory",
        params=memory.AGENT_ONLY,
        body=WorkingMemoryBody,
        response="Success",
        errors=(400, 403, 404, 422),
    ),
    RouteSpec(
        "POST",
        "/api/memory/messages/delete",
        memory.delete_messages,
        "deleteMessages",
        "Delete messages of the caller's threads",
        "Memory",
        params=memory.AGENT_ONLY,
        body=DeleteMessagesBody,
        response="DeleteMessagesResult",
        errors=(400, 404, 422),
    ),
)
"""Every agent and memory route the app serves, with what the OpenAPI document says of it."""

RECONNECT: tuple[RouteSpec, ...] = (
    RouteSpec(
        "GET",
        "/api/agents/{agentId}/stream/{runId}",
        reconnect.resume_stream,
        "reconnectStream",
        "Continue a run's Mastra chunk stream after the events already received",
        "Agents",
        params=reconnect.RECONNECT_PARAMS,
        response="stream",
        errors=(403, 404, 409, 422, 500),
    ),
    RouteSpec(
        "GET",
        "/chat/{agentId}/{chatId}/stream",
        reconnect.resume_chat,
        "reconnectChat",
        "Continue the chat's running run (the AI SDK's reconnectToStream)",
        "Chat",
        params=reconnect.RECONNECT_PARAMS,
        response="uiStream",
        errors=(403, 409, 422, 500),
        no_content="The chat has no running run",
    ),
)
"""The reconnect routes of resumable streams (served when ``Scaling.chunk_log`` is set)."""
