"""The memory routes: Mastra's ``/api/memory`` family, scoped to the request's resource.

A caller only ever sees and changes its own resource's threads: another resource's thread
answers 404, exactly like a missing one (never 403, which would say it exists).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from procession.errors import StorageError, ThreadOwnershipError
from procession.memory.memory import Memory
from procession.memory.storage import Thread
from procession.messages.codec import message_to_dict
from procession.messages.formats import to_ui_messages
from procession.server.bodies import (
    CreateThreadBody,
    DeleteMessagesBody,
    UpdateThreadBody,
    WorkingMemoryBody,
    parse_body,
)
from procession.server.config import ServerLimits
from procession.server.encoding import dumps
from procession.server.errors import HTTPError
from procession.server.params import Param, check_json_depth, parse_query
from procession.server.serialize import serialize_thread
from procession.server.state import ServerState, read_json, state_of

__all__ = [
    "AGENT_ONLY",
    "AGENT_RESOURCE",
    "message_list_params",
    "thread_list_params",
]

AGENT = Param("agentId", description="The agent whose memory to use (default: the app's)")
RESOURCE = Param("resourceId", description="The resource (default: the caller's, or 'local')")
PAGE = Param("page", "integer", "Zero-based page number", minimum=0, maximum=1_000_000, default=0)
DIRECTION = Param("orderBy[direction]", enum=("ASC", "DESC"), description="Sort direction")
THREAD_FIELD = Param("orderBy[field]", enum=("createdAt", "updatedAt"), description="Sort key")
METADATA = Param("metadata", description="A JSON object: threads whose metadata holds it")


AGENT_ONLY = (AGENT,)
"""The query parameters of a memory route that only names its agent."""
AGENT_RESOURCE = (AGENT, RESOURCE)
"""The query parameters of a memory route that names its agent and resource."""


ORDER_JSON = Param("orderBy", description='JSON {"field": "createdAt", "direction": "ASC"}')


def per_page(default: int, maximum: int) -> Param:
    """The ``perPage`` parameter (``false``: one page of the server's page limit)."""
    return Param(
        "perPage",
        "integer",
        "Items per page, or false for all",
        minimum=0,
        maximum=maximum,
        default=default,
        false_means_all=True,
    )


def thread_list_params(limits: ServerLimits) -> tuple[Param, ...]:
    """The query parameters of ``GET /api/memory/threads``."""
    size = per_page(100, limits.max_page_size)
    return (AGENT, RESOURCE, PAGE, size, THREAD_FIELD, DIRECTION, METADATA)


def message_list_params(limits: ServerLimits) -> tuple[Param, ...]:
    """The query parameters of ``GET /api/memory/threads/{threadId}/messages``."""
    return (AGENT, RESOURCE, PAGE, per_page(40, limits.max_page_size), DIRECTION, ORDER_JSON)


def _json(body: Any) -> Response:
    return Response(dumps(body), media_type="application/json")


def _context(request: Request, params: Sequence[Param]) -> tuple[ServerState, dict[str, Any]]:
    state = state_of(request)
    state.credential(request)
    return state, parse_query(params, request.query_params)


async def _thread(memory: Memory, thread_id: str, resource: str) -> Thread:
    try:
        thread = await memory.get_thread(thread_id, resource_id=resource)
    except ThreadOwnershipError:
        thread = None
    if thread is None:
        raise HTTPError(404, "Thread not found")
    return thread


def _page(
    items: list[Any], page: int, size: int | None, limit: int
) -> tuple[list[Any], dict[str, Any]]:
    if size is None:  # perPage=false: everything, as one page of at most the server's limit
        page, size = 0, limit
    start = page * size
    chunk = items[start : start + size]
    info = {
        "total": len(items),
        "page": page,
        "perPage": size,
        "hasMore": start + size < len(items),
    }
    return chunk, info


def _descending(query: dict[str, Any]) -> bool:
    """``orderBy[direction]=DESC``, or client-js's ``orderBy={"direction": "DESC"}``."""
    if query.get("orderBy[direction]") is not None:
        return bool(query["orderBy[direction]"] == "DESC")
    raw = query.get("orderBy")
    if raw is None:
        return False
    try:
        order = orjson.loads(raw)  # bounded depth: a deep one is not JSON here
    except orjson.JSONDecodeError:
        order = None
    if not isinstance(order, dict) or order.get("direction", "ASC") not in ("ASC", "DESC"):
        raise HTTPError.invalid("orderBy", 'must be JSON like {"direction": "DESC"}')
    return bool(order.get("direction") == "DESC")


async def status(request: Request) -> Response:
    """``GET /api/memory/status``: whether memory routes can serve the agent."""
    state, query = _context(request, AGENT_ONLY)
    try:
        state.memory_for(query["agentId"])
    except HTTPError as exc:
        if exc.status != 400:
            raise
        return _json({"result": False})
    return _json({"result": True})


def _metadata_filter(raw: str | None) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        value = orjson.loads(raw)  # its own depth bound: no RecursionError
    except orjson.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise HTTPError.invalid("metadata", "must be a JSON object")
    checked: dict[str, Any] = check_json_depth(value, "metadata")
    return checked


async def list_threads(request: Request) -> Response:
    """``GET /api/memory/threads``: the resource's threads, newest first by default."""
    state, query = _context(request, thread_list_params(state_of(request).limits))
    resource = state.resource(request, query["resourceId"])
    memory = state.memory_for(query["agentId"])
    wanted = _metadata_filter(query["metadata"])
    threads = await memory.list_threads(resource)
    threads = [t for t in threads if all(t.metadata.get(k) == v for k, v in wanted.items())]
    field = "created_at" if query["orderBy[field]"] == "createdAt" else "updated_at"
    threads.sort(key=lambda t: getattr(t, field), reverse=query["orderBy[direction]"] != "ASC")
    chunk, info = _page(threads, query["page"], query["perPage"], state.limits.max_page_size)
    return _json({"threads": [serialize_thread(t) for t in chunk], **info})


async def create_thread(request: Request) -> Response:
    """``POST /api/memory/threads``: a new thread of the caller's resource."""
    state, query = _context(request, AGENT_ONLY)
    body = parse_body(CreateThreadBody, await read_json(request))
    resource = state.resource(request, body.resourceId)
    memory = state.memory_for(query["agentId"])
    try:
        thread = await memory.create_thread(
            resource_id=resource, thread_id=body.threadId, title=body.title, metadata=body.metadata
        )
    except StorageError:
        raise HTTPError(409, "A thread with this id already exists") from None
    return _json(serialize_thread(thread))


async def get_thread(request: Request) -> Response:
    """``GET /api/memory/threads/{threadId}``."""
    state, query = _context(request, AGENT_RESOURCE)
    resource = state.resource(request, query["resourceId"])
    memory = state.memory_for(query["agentId"])
    return _json(serialize_thread(await _thread(memory, request.path_params["threadId"], resource)))


async def update_thread(request: Request) -> Response:
    """``PATCH /api/memory/threads/{threadId}``: title and metadata (merged)."""
    state, query = _context(request, AGENT_ONLY)
    body = parse_body(UpdateThreadBody, await read_json(request))
    resource = state.resource(request, body.resourceId)
    memory = state.memory_for(query["agentId"])
    thread = await _thread(memory, request.path_params["threadId"], resource)
    updated = await memory.storage.update_thread(
        thread.id, resource_id=resource, title=body.title, metadata=body.metadata
    )
    return _json(serialize_thread(updated))


async def delete_thread(request: Request) -> Response:
    """``DELETE /api/memory/threads/{threadId}``: the thread, its messages and vectors."""
    state, query = _context(request, AGENT_RESOURCE)
    resource = state.resource(request, query["resourceId"])
    memory = state.memory_for(query["agentId"])
    thread = await _thread(memory, request.path_params["threadId"], resource)
    await memory.delete_thread(thread.id, resource_id=resource)
    return _json({"result": "Thread deleted"})


async def list_messages(request: Request) -> Response:
    """``GET /api/memory/threads/{threadId}/messages``: stored and UI forms, oldest first."""
    state, query = _context(request, message_list_params(state_of(request).limits))
    resource = state.resource(request, query["resourceId"])
    memory = state.memory_for(query["agentId"])
    thread = await _thread(memory, request.path_params["threadId"], resource)
    messages = await memory.list_messages(thread.id, resource_id=resource)
    if _descending(query):
        messages.reverse()
    chunk, info = _page(messages, query["page"], query["perPage"], state.limits.max_page_size)
    return _json(
        {
            "messages": [message_to_dict(m) for m in chunk],
            "uiMessages": to_ui_messages(chunk),
            **info,
        }
    )


def _scope(memory: Memory) -> str:
    return memory.working_memory_config.scope


async def get_working_memory(request: Request) -> Response:
    """``GET /api/memory/threads/{threadId}/working-memory``."""
    state, query = _context(request, AGENT_RESOURCE)
    resource = state.resource(request, query["resourceId"])
    memory = state.memory_for(query["agentId"])
    thread_id = request.path_params["threadId"]
    try:
        thread = await memory.get_thread(thread_id, resource_id=resource)
    except ThreadOwnershipError:
        raise HTTPError(404, "Thread not found") from None
    scope = _scope(memory)
    if scope == "thread" and thread is None:
        text = None
    else:
        text = await memory.get_working_memory(resource_id=resource, thread_id=thread_id)
    template = memory.working_memory_config.template
    return _json(
        {
            "workingMemory": text,
            "source": scope,
            "workingMemoryTemplate": {"format": "markdown", "content": template}
            if template
            else None,
            "threadExists": thread is not None,
        }
    )


async def update_working_memory(request: Request) -> Response:
    """``POST /api/memory/threads/{threadId}/working-memory``: replace it."""
    state, query = _context(request, AGENT_ONLY)
    body = parse_body(WorkingMemoryBody, await read_json(request))
    resource = state.resource(request, body.resourceId)
    memory = state.memory_for(query["agentId"])
    thread_id = request.path_params["threadId"]
    if _scope(memory) == "thread":
        await _thread(memory, thread_id, resource)
    try:
        await memory.set_working_memory(
            body.workingMemory, resource_id=resource, thread_id=thread_id
        )
    except StorageError as exc:
        raise HTTPError.invalid("workingMemory", str(exc)) from None
    return _json({"success": True})


async def delete_messages(request: Request) -> Response:
    """``POST /api/memory/messages/delete``: the caller's messages with these ids."""
    state, query = _context(request, AGENT_ONLY)
    body = parse_body(DeleteMessagesBody, await read_json(request))
    resource = state.resource(request)
    memory = state.memory_for(query["agentId"])
    count = await memory.storage.delete_messages(body.ids(), resource_id=resource)
    noun = "message" if count == 1 else "messages"
    return _json({"success": True, "message": f"{count} {noun} deleted successfully"})
