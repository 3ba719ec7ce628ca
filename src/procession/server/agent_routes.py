"""The agent routes: Mastra's ``/api/agents`` family and the AI SDK chat route."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession.agent import Agent
from procession.approvals import LocalApprovals
from procession.chunks import Chunk
from procession.errors import ProcessionError
from procession.messages.message import new_id
from procession.server import mastra_stream, ui_stream
from procession.server.bodies import (
    ChatBody,
    ExecutionBody,
    MemoryOption,
    ToolApprovalBody,
    parse_body,
)
from procession.server.durable import approvals_for, generate_durable, respond_durable
from procession.server.encoding import dumps
from procession.server.errors import HTTPError, status_of
from procession.server.scaling import start_resumable, thread_turn
from procession.server.serialize import serialize_agent, serialize_result
from procession.server.state import ServerState, read_json, state_of
from procession.server.streaming import ClientGone, StreamResponse, until_disconnect

__all__ = ["chat", "generate", "get_agent", "list_agents", "send_tool_approval", "stream"]

_RESERVED = frozenset({"thread_id", "resource_id"})
"""Request-context keys only the server sets, dropped from a body: a client cannot name
another resource (the server sets them from the authenticated resource)."""
_SERVER_ONLY_KEYS = frozenset({"response_cache", "tool_search_key", "procession.internal"})
"""Request-context keys a request body may not set (422 naming the key): ``ResponseCache``'s
per-call scope, key and bust (``RESPONSE_CACHE``), ``ToolSearch``'s state key
(``TOOL_SEARCH_KEY``) and the internal-run marker (``INTERNAL_RUN``); so are keys starting
with ``procession.`` or ``mastra__`` (Mastra's own reserved prefix). In-process callers set
them through ``request_context=``."""
_SERVER_ONLY_PREFIXES = ("procession.", "mastra__")


def _client_context(body: ExecutionBody | ChatBody) -> dict[str, Any]:
    """The request context a body may give: its keys without the resource and thread;
    422 for a key only the server (or an in-process caller) sets."""
    context: dict[str, Any] = {}
    for key, value in (body.requestContext or {}).items():
        if key in _SERVER_ONLY_KEYS or key.startswith(_SERVER_ONLY_PREFIXES):
            raise HTTPError.invalid(
                f"requestContext.{key}", "is set by the server, not by a request body"
            )
        if key not in _RESERVED:
            context[key] = value
    return context


def _json(body: Any, status: int = 200) -> Response:
    return Response(dumps(body), status_code=status, media_type="application/json")


async def list_agents(request: Request) -> Response:
    """``GET /api/agents``: every served agent by id."""
    state = state_of(request)
    state.credential(request)
    return _json(
        {
            agent_id: await serialize_agent(agent, expose_instructions=state.expose_instructions)
            for agent_id, agent in state.agents.items()
        }
    )


async def get_agent(request: Request) -> Response:
    """``GET /api/agents/{agentId}``: one agent."""
    state = state_of(request)
    state.credential(request)
    agent = state.agent(request.path_params["agentId"])
    return _json(await serialize_agent(agent, expose_instructions=state.expose_instructions))


def _memory_ids(
    state: ServerState,
    request: Request,
    agent: Agent,
    memory: MemoryOption | None,
    body: ExecutionBody | ChatBody,
    default_thread: str | None = None,
) -> dict[str, Any]:
    thread: str | None = body.threadId
    named = body.resourceId
    if memory is not None:
        if memory.readOnly:
            raise HTTPError.invalid("memory.readOnly", "read-only runs are not supported")
        if memory.options:
            raise HTTPError.invalid("memory.options", "per-call memory options are not supported")
        thread = memory.thread if isinstance(memory.thread, str) else memory.thread.id
    resource = state.resource(request, named, memory.resource if memory is not None else None)
    ids: dict[str, Any] = {"resource_id": resource, "request_context": _client_context(body)}
    thread = thread or default_thread
    if agent.memory is not None:
        if thread is None:
            raise HTTPError.invalid(
                "memory.thread", f"agent {agent.id!r} has memory: name a thread"
            )
        ids["thread_id"] = thread
    return ids


def _options(body: ExecutionBody) -> dict[str, Any]:
    options: dict[str, Any] = {
        "instructions": body.instructions,
        "system": body.system,
        "context": body.context,
        "run_id": body.runId,
        "max_steps": body.maxSteps,
        "provider_options": body.providerOptions,
        "active_tools": body.activeTools,
    }
    if body.modelSettings is not None:
        options["model_settings"] = body.modelSettings.to_settings()
    if body.toolChoice is not None:
        choice = body.toolChoice
        options["tool_choice"] = choice if isinstance(choice, str) else choice.model_dump()
    if body.structuredOutput is not None:
        options["structured_output"] = body.structuredOutput.schema_
    if body.requireToolApproval:  # only ever asks for more approval, never less
        options["require_tool_approval"] = True
    return {k: v for k, v in options.items() if v is not None}


async def _execution(request: Request) -> tuple[Agent, ExecutionBody, dict[str, Any]]:
    state = state_of(request)
    state.credential(request)  # 401 before anything else is looked at
    agent = state.agent(request.path_params["agentId"])
    body = parse_body(ExecutionBody, await read_json(request))
    if body.inspect and request.scope.get("endpoint") is generate:
        raise HTTPError.invalid("inspect", "only the stream routes send processor notes")
    options = _options(body) | _memory_ids(state, request, agent, body.memory, body)
    if body.requireToolApproval and approvals_for(state.scaling, agent) is None:
        raise HTTPError.invalid(
            "requireToolApproval",
            f"agent {agent.id!r} has no approvals broker: give it Agent(approvals=...)",
        )
    return agent, body, options


async def _turn(agent: Agent, messages: Any, options: dict[str, Any], wait: float) -> Any:
    """A whole ``generate`` turn, holding its thread (D13; 409 when the thread stays busy)."""
    async with thread_turn(agent, options, wait):
        return await agent.generate(messages, **options)


def _claim_run_id(state: ServerState, options: dict[str, Any]) -> str | None:
    """Hold the turn's run id (the client's, else a new random one) for its resource while
    the turn runs here: 409 when another resource's live run holds it. Durable runs are
    checked against DBOS instead (``None``: nothing to release)."""
    if state.scaling.durable is not None:
        return None
    run_id: str = options.get("run_id") or new_id("run")
    state.run_ids.claim(run_id, options["resource_id"])
    options["run_id"] = run_id
    return run_id


async def generate(request: Request) -> Response:
    """``POST /api/agents/{agentId}/generate``: run to the end, answer the full output."""
    agent, body, options = await _execution(request)
    state = state_of(request)
    scaling = state.scaling
    run_id = _claim_run_id(state, options)
    if scaling.durable is not None:
        work = generate_durable(scaling.durable, agent, body.messages, options)
    else:
        work = _turn(agent, body.messages, options, scaling.lock_timeout)
    try:
        result = await until_disconnect(request.receive, work)
    except ClientGone:
        return Response(status_code=499)
    except ProcessionError as exc:
        raise status_of(exc) from None
    finally:
        if run_id is not None:
            state.run_ids.release(run_id)
    return _json(serialize_result(result))


async def _respond(
    request: Request,
    agent: Agent,
    messages: Any,
    options: dict[str, Any],
    fmt: str,
    encode: Callable[[Chunk], bytes | None],
    close: Callable[[], bytes],
) -> Any:
    """Start the turn and answer with its stream: followed in the chunk log when streams are
    resumable, else driven by the request (a disconnect cancels it, D32). Either way the
    turn holds its thread until it ends (409 when the thread stays busy), and its run id
    while it runs."""
    state = state_of(request)
    scaling = state.scaling
    headers = mastra_stream.HEADERS if fmt == "mastra" else ui_stream.HEADERS
    run_id = _claim_run_id(state, options)
    held = [run_id] if run_id is not None else []

    def free() -> None:  # once, whichever path ends the run
        while held:
            state.run_ids.release(held.pop())

    try:
        if scaling.durable is not None:
            return await respond_durable(scaling, agent, messages, options, fmt, encode, close)
        if scaling.chunk_log is not None:
            return await start_resumable(
                scaling.chunk_log,
                agent,
                messages,
                options,
                resource_id=options["resource_id"],
                fmt=fmt,
                encode=encode,
                close=close,
                lock_timeout=scaling.lock_timeout,
                ended=free,
            )
        turn = thread_turn(agent, options, scaling.lock_timeout)
        await turn.__aenter__()
        try:
            run = agent.stream(messages, **options)  # options are checked now (D35)
        except BaseException:
            await turn.__aexit__(None, None, None)
            raise
    except ProcessionError as exc:
        free()
        raise status_of(exc) from None
    except BaseException:
        free()
        raise

    async def release() -> None:
        free()
        await turn.__aexit__(None, None, None)

    return StreamResponse(run, encode, close, headers, release)


async def stream(request: Request) -> Any:
    """``POST /api/agents/{agentId}/stream``: Mastra's chunk stream (live unless the body
    asks for ``release: "step"``), with processor notes when it asks for ``inspect``."""
    agent, body, options = await _execution(request)
    options |= {"release": body.release or "live"}
    if state_of(request).inspect(body.inspect):
        options["inspect"] = True
    return await _respond(
        request,
        agent,
        body.messages,
        options,
        "mastra",
        mastra_stream.encode_chunk,
        lambda: mastra_stream.DONE,
    )


def _chat_input(agent: Agent, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the run takes of the page's messages: all of them, or, when the agent remembers
    the thread, the ones after the last assistant message (the rest is in memory)."""
    if agent.memory is None:
        return messages
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    return messages[last + 1 :] or messages[-1:]


async def chat(request: Request) -> Any:
    """``POST /chat/{agentId}``: the AI SDK UI message stream ``useChat`` reads, held per
    step (D31) unless the body asks for ``release: "live"``."""
    state = state_of(request)
    state.credential(request)
    agent = state.agent(request.path_params["agentId"])
    body = parse_body(ChatBody, await read_json(request))
    options = _memory_ids(state, request, agent, body.memory, body, default_thread=body.id)
    messages = _chat_input(agent, body.messages)
    options |= {"release": body.release or "step"}
    if state.inspect(body.inspect):
        options["inspect"] = True
    encoder = ui_stream.UIStreamEncoder()
    return await _respond(request, agent, messages, options, "ui", encoder.encode, encoder.close)


async def send_tool_approval(request: Request) -> Response:
    """``POST /api/agents/{agentId}/send-tool-approval``: approve or decline a tool call the
    caller's run is waiting on (the agent's broker; for durable runs, through DBOS from any
    replica); its stream goes on."""
    state = state_of(request)
    state.credential(request)
    agent = state.agent(request.path_params["agentId"])
    body = parse_body(ToolApprovalBody, await read_json(request))
    resource = state.resource(request, body.resourceId)
    broker: Any = approvals_for(state.scaling, agent)
    call = await _waiting_call(broker, body.runId, body.toolCallId, resource)
    if call is None or call.resource_id != resource:
        raise HTTPError(404, "No tool call of yours is waiting for approval with this id")
    mine = {"resource_id": resource} if isinstance(broker, LocalApprovals) else {}
    if body.approved:
        answered = broker.approve(call.run_id, call.tool_call_id, **mine)
    else:
        answered = broker.decline(call.run_id, call.tool_call_id, body.reason, **mine)
    if inspect.isawaitable(answered):  # a durable broker answers through its database
        await answered
    return _json({"accepted": True, "runId": call.run_id, "toolCallId": call.tool_call_id})


async def _waiting_call(broker: Any, run_id: str | None, tool_call_id: str, resource: str) -> Any:
    """The caller's request waiting for a decision: the broker's ``find`` (sync or async),
    or without a run id, the first of its ``pending`` calls with this tool call id. The
    built-in brokers are asked for the caller's resource's call only."""
    if broker is None:
        return None
    mine = {"resource_id": resource} if isinstance(broker, LocalApprovals) else {}
    if run_id is not None and callable(getattr(broker, "find", None)):
        found = broker.find(run_id, tool_call_id, **mine)
        return await found if inspect.isawaitable(found) else found
    pending = getattr(broker, "pending", None)
    calls = pending(run_id, **mine) if callable(pending) else []
    return next(
        (c for c in calls if c.tool_call_id == tool_call_id and c.resource_id == resource), None
    )
