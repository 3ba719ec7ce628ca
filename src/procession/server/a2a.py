"""The Agent2Agent (A2A) routes: each agent's card and its JSON-RPC endpoint, at Mastra's paths.

``GET /api/.well-known/{agentId}/agent-card.json`` answers the agent card
(:mod:`~procession.server.a2a_card`); ``POST /api/a2a/{agentId}`` takes JSON-RPC 2.0 requests
in A2A 1.0 (``SendMessage``, ``SendStreamingMessage``, ``GetTask``, ``ListTasks``,
``CancelTask``, ``SubscribeToTask``) and in A2A 0.3 (``message/send``, ``message/stream``,
``tasks/get``, ``tasks/cancel``, ``tasks/resubscribe``). ``A2A-Version`` picks the dialect
when sent; without it the method's name does. Both routes need the caller's credential as
every other route does, and the caller's resource owns the tasks it starts: another
resource's task is not found. ``contextId`` is the memory thread of an agent with memory.
See ``docs/server-a2a.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict
from starlette.requests import Request
from starlette.responses import Response

from procession.agent import Agent
from procession.approvals import LocalApprovals
from procession.messages.message import new_id
from procession.server.a2a_card import agent_card
from procession.server.a2a_tasks import (
    A2ATask,
    Artifact,
    Follower,
    TaskStore,
    drive,
    new_task_id,
)
from procession.server.a2a_tasks import now as timestamp
from procession.server.a2a_wire import (
    DIALECTS,
    INTERRUPTED,
    TERMINAL,
    V03,
    V10,
    Dialect,
    RpcError,
    Said,
    Status,
    TaskView,
    parse_message,
)
from procession.server.durable import approvals_for
from procession.server.encoding import dumps
from procession.server.errors import HTTPError, status_of
from procession.server.params import check_json_depth
from procession.server.routes import RouteSpec
from procession.server.state import ServerState, state_of
from procession.server.streaming import ClientGone, until_disconnect

__all__ = ["A2A_ROUTES", "A2ARequest", "card", "rpc"]

_HOLE = "\x00procession-a2a-text\x00"
_HOLE_JSON = dumps(_HOLE)
SSE_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"x-accel-buffering", b"no"),
]


class A2ARequest(BaseModel):
    """A JSON-RPC 2.0 request to an agent's A2A endpoint (validated by the endpoint, which
    answers JSON-RPC errors)."""

    model_config = ConfigDict(extra="allow")

    jsonrpc: str
    method: str
    id: str | int | None = None
    params: dict[str, Any] | None = None


def _json(body: Any) -> Response:
    return Response(dumps(body), media_type="application/json")


def _version(request: Request) -> str | None:
    """The ``major.minor`` of ``A2A-Version``, or ``None`` when it was not sent."""
    sent = request.headers.get("a2a-version")
    if sent is None or not sent.strip():
        return None
    return ".".join(sent.strip().split(".")[:2])


async def card(request: Request) -> Response:
    """``GET /api/.well-known/{agentId}/agent-card.json``: the agent card (1.0's shape when
    the request says ``A2A-Version: 1.0``, else 0.3's)."""
    state = state_of(request)
    state.credential(request)
    agent_id = request.path_params["agentId"]
    agent = state.agent(agent_id)
    version = "1.0" if _version(request) == "1.0" else "0.3"
    return _json(agent_card(request, agent_id, agent, state.auth, version))


def tasks_of(request: Request) -> TaskStore:
    """The app's task store (made on first use)."""
    store: TaskStore | None = getattr(request.app.state, "procession_a2a_tasks", None)
    if store is None:
        store = TaskStore()
        request.app.state.procession_a2a_tasks = store
    return store


@dataclass(slots=True)
class Call:
    """One JSON-RPC call: who is calling which agent, in which dialect."""

    request: Request
    state: ServerState
    agent_id: str
    agent: Agent
    resource: str
    dialect: Dialect
    request_id: Any
    store: TaskStore

    def task(self, params: Any) -> A2ATask:
        """The caller's task named by ``params.id``; ``TaskNotFound`` otherwise."""
        if not isinstance(params, Mapping) or not isinstance(params.get("id"), str):
            raise RpcError.invalid("params.id", "expected the task's id")
        found = self.store.get(params["id"], self.resource, self.agent_id)
        if found is None:
            raise RpcError(RpcError.TASK_NOT_FOUND, f"Task not found: {params['id']}")
        return found

    def result(self, value: Any) -> Response:
        """The JSON-RPC success response."""
        return _json({"jsonrpc": "2.0", "id": self.request_id, "result": value})


def _envelope(data: Any) -> tuple[Any, str, Any]:
    """The id, method and params of a JSON-RPC request; ``InvalidRequest`` otherwise."""
    if not isinstance(data, dict):
        raise RpcError(RpcError.INVALID_REQUEST, "Invalid Request: expected a JSON-RPC object")
    request_id = data.get("id")
    if request_id is not None and (
        isinstance(request_id, bool) or not isinstance(request_id, str | int)
    ):
        raise RpcError(RpcError.INVALID_REQUEST, "Invalid Request: id must be a string or number")
    if data.get("jsonrpc") != "2.0":
        raise RpcError(RpcError.INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"')
    method = data.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(RpcError.INVALID_REQUEST, "Invalid Request: method must be a string")
    params = data.get("params")
    if params is not None and not isinstance(params, dict):
        raise RpcError(RpcError.INVALID_REQUEST, "Invalid Request: params must be an object")
    return request_id, method, params


async def _body(request: Request) -> Any:
    raw = await request.body()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise RpcError(RpcError.PARSE, f"Parse error: {exc}") from None
    try:
        return check_json_depth(data, "body")
    except HTTPError as exc:
        raise RpcError(RpcError.INVALID_REQUEST, f"Invalid Request: {exc.message}") from None


async def rpc(request: Request) -> Any:
    """``POST /api/a2a/{agentId}``: one JSON-RPC request (errors answer ``200`` with a
    JSON-RPC error, as JSON-RPC over HTTP does; a missing credential is still ``401``)."""
    state = state_of(request)
    resource = state.resource(request)  # 401 before anything else is looked at
    agent_id = request.path_params["agentId"]
    agent = state.agent(agent_id)
    request_id: Any = None
    try:
        request_id, method, params = _envelope(await _body(request))
        dialect, handler = _method(_version(request), method)
        call = Call(
            request, state, agent_id, agent, resource, dialect, request_id, tasks_of(request)
        )
        return await handler(call, params)
    except RpcError as error:
        return _json(error.response(request_id))


Handler = Callable[[Call, Any], Awaitable[Any]]


def _method(version: str | None, method: str) -> tuple[Dialect, Handler]:
    if version is not None and version not in DIALECTS:
        raise RpcError(RpcError.VERSION, f"Version not supported: A2A-Version {version}")
    for dialect in (V10, V03) if version is None else (DIALECTS[version],):
        handler = METHODS[dialect.version].get(method)
        if handler is not None:
            return dialect, handler
    said = f" in A2A {version}" if version is not None else ""
    raise RpcError(RpcError.METHOD_NOT_FOUND, f"Method not found{said}: {method}")


def _config(params: Mapping[str, Any]) -> tuple[int | None, bool]:
    """``configuration``'s history length and whether the client asked not to wait."""
    config = params.get("configuration")
    if config is None:
        return None, False
    if not isinstance(config, Mapping):
        raise RpcError.invalid("params.configuration", "expected an object")
    length = _history_length(config, "params.configuration.historyLength")
    background = config.get("returnImmediately") is True or config.get("blocking") is False
    return length, background


def _history_length(params: Mapping[str, Any], where: str) -> int | None:
    length = params.get("historyLength")
    if length is None:
        return None
    if isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise RpcError.invalid(where, "expected an integer ≥ 0")
    return length


def _prompt(said: Said) -> str:
    """What the model reads of a message: its text, and its data parts as JSON."""
    pieces = [p["text"] if "text" in p else json.dumps(p["data"]) for p in said.parts]
    return "\n".join(pieces)


def _start_error(error: BaseException) -> RpcError:
    """The JSON-RPC error of a run that failed before it started."""
    failure = status_of(error, field="params.message")
    if failure.status == 404:  # a thread of another resource: not found, never forbidden
        return RpcError.invalid("params.message.contextId", "no such context")
    code = RpcError.INTERNAL if failure.status >= 500 else RpcError.INVALID_PARAMS
    return RpcError(code, failure.message)


Followed = tuple[A2ATask, Follower, TaskView]
"""A task, a queue of its events and what it was when the queue began."""


async def _start(call: Call, said: Said, background: bool) -> Followed:
    """A new task running the agent on ``said``, and a queue following it."""
    agent = call.agent
    if call.store.running(call.resource) >= call.store.max_running:
        raise RpcError(
            RpcError.UNSUPPORTED,
            f"Too many tasks running: {call.store.max_running} of yours have not ended; "
            "wait for one or cancel it",
        )
    context = said.context_id or new_task_id()
    task_id, run_id = new_task_id(), new_id("run")
    said.context_id, said.task_id = context, task_id
    status = Status("submitted", None, timestamp())
    task = A2ATask(task_id, context, call.agent_id, call.resource, run_id, status, [said])
    task.background = background
    task.started = asyncio.get_running_loop().create_future()
    options: dict[str, Any] = {
        "resource_id": call.resource,
        "run_id": run_id,
        "release": "step",
    }
    if agent.memory is not None:
        options["thread_id"] = context
    run_ids = call.state.run_ids
    run_ids.claim(run_id, call.resource)
    queue, snapshot = task.follow(), task.view()
    messages = [{"role": "user", "content": _prompt(said)}]
    lock = call.state.scaling.lock_timeout
    done = lambda: run_ids.release(run_id)  # noqa: E731
    task.runner = asyncio.create_task(drive(task, agent, messages, options, lock, done))
    failed = await task.started
    if failed is not None:
        task.leave(queue)
        raise _start_error(failed)
    call.store.add(task)
    return task, queue, snapshot


def _decision(said: Said, task: A2ATask) -> tuple[bool, str | None]:
    for part in said.parts:
        data = part.get("data")
        if isinstance(data, Mapping) and isinstance(data.get("approved"), bool):
            reason = data.get("reason")
            if reason is not None and not isinstance(reason, str):
                raise RpcError.invalid("params.message.parts.data.reason", "expected a string")
            return data["approved"], reason
    raise RpcError.invalid(
        "params.message.parts",
        f"task {task.id} waits for a tool approval: answer with a data part "
        '{"approved": true} or {"approved": false, "reason": "..."}',
    )


async def _answer(call: Call, task: A2ATask, approved: bool, reason: str | None) -> None:
    """Approve or decline the call the task's run waits on, through the agent's broker."""
    broker: Any = approvals_for(call.state.scaling, call.agent)
    if broker is None or task.waiting is None:
        raise RpcError(RpcError.UNSUPPORTED, f"Task {task.id} has no call waiting")
    run_id, tool_call_id = task.waiting
    mine = {"resource_id": call.resource} if isinstance(broker, LocalApprovals) else {}
    answered = (
        broker.approve(run_id, tool_call_id, **mine)
        if approved
        else broker.decline(run_id, tool_call_id, reason, **mine)
    )
    if inspect.isawaitable(answered):
        await answered


async def _continue(call: Call, said: Said) -> Followed:
    """Answer a task waiting for input with the client's next message."""
    task = call.task({"id": said.task_id})
    if said.context_id and said.context_id != task.context_id:
        raise RpcError.invalid("params.message.contextId", "is not the task's context")
    if task.status.state != "input-required":
        state = task.status.state
        hint = "send a message without taskId" if state in TERMINAL else "wait until it ends"
        raise RpcError(RpcError.UNSUPPORTED, f"Task {task.id} is {state}: {hint}")
    approved, reason = _decision(said, task)
    said.context_id = task.context_id
    queue, snapshot = task.follow(), task.view()
    try:
        await _answer(call, task, approved, reason)
    except BaseException:
        task.leave(queue)
        raise
    task.waiting = None
    task.history.append(said)
    if task.status.state == "input-required":  # an async broker: the run may have gone on
        task.set_state("working")
    return task, queue, snapshot


async def _send(call: Call, params: Any, *, stream: bool) -> Any:
    said = parse_message(params)
    history_length, background = _config(params)
    background = background and not stream
    if said.task_id:
        task, queue, snapshot = await _continue(call, said)
    else:
        task, queue, snapshot = await _start(call, said, background)
    if stream:
        return TaskStream(task, queue, snapshot, call.dialect, call.request_id)
    try:
        if not background:
            await until_disconnect(call.request.receive, _until_paused(queue, task))
    except ClientGone:
        _cancel_unless_paused(task)
        return Response(status_code=499)
    finally:
        task.leave(queue)
    return call.result(call.dialect.send_result(task.view(), history_length))


async def _until_paused(queue: Follower, task: A2ATask) -> None:
    while not task.paused:
        await queue.get()


def _cancel_unless_paused(task: A2ATask) -> None:
    """D32: a run whose client left is cancelled (unless it runs in the background)."""
    if not task.paused and not task.background and task.runner is not None:
        task.runner.cancel()


async def send_message(call: Call, params: Any) -> Any:
    """``SendMessage`` / ``message/send``: start or continue a task; answer it once it ended
    or waits for input (at once with ``returnImmediately``/``blocking: false``)."""
    return await _send(call, params, stream=False)


async def stream_message(call: Call, params: Any) -> Any:
    """``SendStreamingMessage`` / ``message/stream``: the same, answered as the task's
    events while it runs."""
    return await _send(call, params, stream=True)


async def get_task(call: Call, params: Any) -> Any:
    """``GetTask`` / ``tasks/get``."""
    task = call.task(params)
    return call.result(call.dialect.task(task.view(), _history_length(params, "params")))


async def cancel_task(call: Call, params: Any) -> Any:
    """``CancelTask`` / ``tasks/cancel``: cancel the run (D32: nothing is stored)."""
    task = call.task(params)
    if task.status.state in TERMINAL:
        message = f"Task cannot be canceled: it is {task.status.state}"
        raise RpcError(RpcError.TASK_NOT_CANCELABLE, message)
    runner = task.runner
    if runner is not None and not runner.done():
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner
    if task.status.state not in TERMINAL:
        task.set_state("canceled", "Task canceled")
    return call.result(call.dialect.task(task.view()))


async def list_tasks(call: Call, params: Any) -> Any:
    """``ListTasks`` (1.0): the caller's tasks with this agent, newest first."""
    params = params or {}
    tasks = call.store.of(call.resource, call.agent_id)
    context = params.get("contextId")
    if context is not None:
        tasks = [t for t in tasks if t.context_id == context]
    wanted = params.get("status")
    if wanted not in (None, "", "TASK_STATE_UNSPECIFIED"):
        tasks = [t for t in tasks if call.dialect.state(t.status.state) == wanted]
    size = params.get("pageSize") or 50
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 100:
        raise RpcError.invalid("params.pageSize", "expected an integer from 1 to 100")
    token = params.get("pageToken") or "0"
    if not isinstance(token, str) or not token.isdigit():
        raise RpcError.invalid("params.pageToken", "expected a token from an earlier page")
    start = int(token)
    page = tasks[start : start + size]
    length = _history_length(params, "params")
    result = {
        "tasks": [call.dialect.task(t.view(), length) for t in page],
        "nextPageToken": str(start + size) if start + size < len(tasks) else "",
        "pageSize": size,
        "totalSize": len(tasks),
    }
    return call.result(result)


async def subscribe(call: Call, params: Any) -> Any:
    """``SubscribeToTask`` / ``tasks/resubscribe``: the task, then its events until it ends
    or waits for input."""
    task = call.task(params)
    queue, snapshot = task.follow(), task.view()
    return TaskStream(task, queue, snapshot, call.dialect, call.request_id, leaving_cancels=False)


async def no_push(call: Call, params: Any) -> Any:
    """Push notifications are not offered (the card says so)."""
    raise RpcError(RpcError.PUSH_NOT_SUPPORTED, "Push Notification is not supported")


async def no_extended_card(call: Call, params: Any) -> Any:
    """There is no extended card (the card says so)."""
    raise RpcError(RpcError.EXTENDED_CARD, "Authenticated Extended Card is not configured")


class TaskStream:
    """The SSE answer of a streaming method: the task, then its events as JSON-RPC results,
    until it ends or waits for input. A client leaving a task it started cancels its run
    (D32)."""

    __slots__ = ("dialect", "leaving_cancels", "queue", "request_id", "snapshot", "task")

    def __init__(
        self,
        task: A2ATask,
        queue: Follower,
        snapshot: TaskView,
        dialect: Dialect,
        request_id: Any,
        *,
        leaving_cancels: bool = True,
    ) -> None:
        self.task = task
        self.queue = queue
        self.snapshot = snapshot
        self.dialect = dialect
        self.request_id = request_id
        self.leaving_cancels = leaving_cancels

    def _event(self, result: Any) -> bytes:
        data = dumps({"jsonrpc": "2.0", "id": self.request_id, "result": result})
        return b"data: " + data + b"\n\n"

    def _templates(self, view: TaskView) -> dict[tuple[bool, bool], tuple[bytes, bytes]]:
        """The artifact-update event for each (append, last), encoded once around its text:
        a text delta then costs one string's encoding (the hot path)."""
        out = {}
        for flags in ((False, False), (True, False), (False, True), (True, True)):
            result = self.dialect.artifact_event(view, _HOLE, append=flags[0], last=flags[1])
            head, _, tail = self._event(result).rpartition(_HOLE_JSON)  # the text is last
            out[flags] = (head, tail)
        return out

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Stream until the task pauses or the client leaves."""
        try:
            await until_disconnect(receive, self._pump(send))
        except ClientGone:
            if self.leaving_cancels:
                _cancel_unless_paused(self.task)
        finally:
            self.task.leave(self.queue)

    async def _pump(self, send: Any) -> None:
        task, dialect = self.task, self.dialect
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        body = self._event(dialect.task_event(self.snapshot))
        await send({"type": "http.response.body", "body": body, "more_body": True})
        view = self.snapshot  # the events use only its ids
        pieces = self._templates(view)
        while not (task.paused and self.queue.empty()):
            event = await self.queue.get()
            if isinstance(event, Artifact):
                head, tail = pieces[event.append, event.last]
                body = head + dumps(event.text) + tail
            else:
                body = self._event(dialect.status_event(view, event))
            await send({"type": "http.response.body", "body": body, "more_body": True})
            if isinstance(event, Status) and (
                event.state in TERMINAL or event.state in INTERRUPTED
            ):
                break
        await send({"type": "http.response.body", "body": b"", "more_body": False})


METHODS: dict[str, dict[str, Handler]] = {
    "1.0": {
        "SendMessage": send_message,
        "SendStreamingMessage": stream_message,
        "GetTask": get_task,
        "ListTasks": list_tasks,
        "CancelTask": cancel_task,
        "SubscribeToTask": subscribe,
        "CreateTaskPushNotificationConfig": no_push,
        "GetTaskPushNotificationConfig": no_push,
        "ListTaskPushNotificationConfigs": no_push,
        "DeleteTaskPushNotificationConfig": no_push,
        "GetExtendedAgentCard": no_extended_card,
    },
    "0.3": {
        "message/send": send_message,
        "message/stream": stream_message,
        "tasks/get": get_task,
        "tasks/cancel": cancel_task,
        "tasks/resubscribe": subscribe,
        "tasks/pushNotificationConfig/set": no_push,
        "tasks/pushNotificationConfig/get": no_push,
        "tasks/pushNotificationConfig/list": no_push,
        "tasks/pushNotificationConfig/delete": no_push,
        "agent/getAuthenticatedExtendedCard": no_extended_card,
    },
}
"""The methods of each dialect."""

A2A_ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec(
        "GET",
        "/api/.well-known/{agentId}/agent-card.json",
        card,
        "getA2AAgentCard",
        "The agent's A2A agent card (A2A-Version: 1.0 for 1.0's shape, else 0.3's)",
        "A2A",
        errors=(404,),
    ),
    RouteSpec(
        "POST",
        "/api/a2a/{agentId}",
        rpc,
        "a2aRpc",
        "A2A JSON-RPC 2.0: send or stream a message, get, list, cancel or follow a task",
        "A2A",
        body=A2ARequest,
        errors=(404,),
    ),
)
"""The A2A routes, served by every app."""
