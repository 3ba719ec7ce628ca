"""Running an agent for an OpenAI-compatible request: which agent, resource, thread and
options, and the run itself (the same ``Agent.stream`` / ``Agent.generate`` and stream
response as the other routes).

* ``model`` is the agent's id (404 ``model_not_found`` for another).
* The resource is always the credential's (``local`` on a server without credentials):
  nothing in the body names one.
* Memory is used only when the request names a thread, as ``metadata.thread_id``: the
  client sends the whole conversation every call, so the run then takes the messages after
  the last assistant message and the rest from memory. Without a thread an agent with memory
  runs as if it had none (nothing read, nothing stored). A thread of another resource is 404,
  as on every route.
* The stream is released per step (D31): a rejected attempt never reaches the client.
* These routes run in the request: no chunk log or durable run (their clients cannot
  reconnect to a stream), while a named thread's turn still holds the thread's lock.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession.agent import Agent
from procession.chunks import Chunk
from procession.errors import ProcessionError
from procession.messages.message import new_id
from procession.results import AgentResult
from procession.server.errors import status_of
from procession.server.openai_compat.bodies import OpenAIBody, structured_schema
from procession.server.openai_compat.errors import OpenAIError, invalid
from procession.server.params import control_character
from procession.server.scaling import thread_turn
from procession.server.state import ServerState, read_json, state_of
from procession.server.streaming import ClientGone, StreamResponse, until_disconnect

__all__ = [
    "SSE_HEADERS",
    "THREAD_KEY",
    "Turn",
    "agent_of",
    "prepare",
    "request_json",
    "respond_stream",
    "run_to_end",
]

THREAD_KEY = "thread_id"
"""The ``metadata`` key naming the memory thread."""

SSE_HEADERS = {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
}
"""The response headers of a streamed answer (``stream: true``)."""


@dataclass(slots=True)
class Turn:
    """One request's run: the agent (without memory unless a thread is named), its
    messages and options."""

    agent: Agent
    messages: list[dict[str, Any]]
    options: dict[str, Any]
    model: str

    @property
    def run_id(self) -> str:
        """The run's id (random, 128 bits)."""
        run_id: str = self.options["run_id"]
        return run_id


async def request_json(request: Request) -> tuple[ServerState, Any]:
    """The state, after the credential (401 first), and the body as JSON."""
    state = state_of(request)
    state.credential(request)
    return state, await read_json(request)


def agent_of(state: ServerState, model: str) -> Agent:
    """The agent served as ``model``; 404 ``model_not_found`` for another id."""
    agent = state.agents.get(model)
    if agent is None:
        raise OpenAIError(
            404,
            f"The model {model!r} does not exist: the models are this server's agents "
            "(GET /v1/models)",
            param="model",
            code="model_not_found",
        )
    return agent


def _settings(body: OpenAIBody, max_tokens: int | None) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "temperature": body.temperature,
        "top_p": body.top_p,
        "max_output_tokens": max_tokens,
    }
    for name in ("seed", "presence_penalty", "frequency_penalty"):
        settings[name] = getattr(body, name, None)
    stop = getattr(body, "stop", None)
    settings["stop_sequences"] = [stop] if isinstance(stop, str) else stop
    return {k: v for k, v in settings.items() if v is not None}


def prepare(
    state: ServerState,
    request: Request,
    body: OpenAIBody,
    messages: list[dict[str, Any]],
    *,
    max_tokens: int | None,
    system: str | None = None,
) -> Turn:
    """The run a request asks for (module docs)."""
    agent = agent_of(state, body.model)
    resource = state.resource(request)
    options: dict[str, Any] = {
        "resource_id": resource,
        "release": "step",
        "run_id": new_id("run"),
    }
    settings = _settings(body, max_tokens)
    if settings:
        options["model_settings"] = settings
    if system:
        options["system"] = system
    schema = structured_schema(body)
    if schema is not None:
        options["structured_output"] = schema
    thread = (body.metadata or {}).get(THREAD_KEY)
    if thread is not None:
        if agent.memory is None:
            raise invalid(f"metadata.{THREAD_KEY}", f"agent {agent.id!r} has no memory")
        if not thread or len(thread) > 512 or control_character(thread) is not None:
            raise invalid(
                f"metadata.{THREAD_KEY}", "must be 1 to 512 characters, no control characters"
            )
        options["thread_id"] = thread
        messages = _after_last_answer(messages)
    elif agent.memory is not None:
        agent = copy.copy(agent)
        agent.memory = None  # a one-off run: nothing read from memory, nothing stored
    if not messages:
        raise invalid("messages", "holds no message to answer")
    return Turn(agent, messages, options, body.model)


def _after_last_answer(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """With memory, the history is stored: the messages after the last assistant one."""
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    rest = messages[last + 1 :]
    system = [m for m in messages[: last + 1] if m["role"] == "system"]
    return system + rest


def _claim(state: ServerState, turn: Turn) -> str:
    run_id: str = turn.options["run_id"]
    state.run_ids.claim(run_id, turn.options["resource_id"])
    return run_id


async def run_to_end(request: Request, state: ServerState, turn: Turn) -> AgentResult | Response:
    """The whole run (``generate``), holding its thread; 499 when the client left."""
    run_id = _claim(state, turn)

    async def work() -> AgentResult:
        async with thread_turn(turn.agent, turn.options, state.scaling.lock_timeout):
            result: AgentResult = await turn.agent.generate(turn.messages, **turn.options)
            return result

    try:
        return await until_disconnect(request.receive, work())
    except ClientGone:
        return Response(status_code=499)
    except ProcessionError as exc:
        raise OpenAIError.of(status_of(exc)) from None
    finally:
        state.run_ids.release(run_id)


async def respond_stream(
    state: ServerState,
    turn: Turn,
    encode: Callable[[Chunk], bytes | None],
    close: Callable[[], bytes],
) -> StreamResponse:
    """The run as an event stream through ``encode``; the thread is held until it ends."""
    run_id = _claim(state, turn)
    lock = thread_turn(turn.agent, turn.options, state.scaling.lock_timeout)
    try:
        await lock.__aenter__()
        try:
            run = turn.agent.stream(turn.messages, **turn.options)  # options checked now (D35)
        except BaseException:
            await lock.__aexit__(None, None, None)
            raise
    except ProcessionError as exc:
        state.run_ids.release(run_id)
        raise OpenAIError.of(status_of(exc)) from None
    except BaseException:
        state.run_ids.release(run_id)
        raise

    async def release() -> None:
        state.run_ids.release(run_id)
        await lock.__aexit__(None, None, None)

    return StreamResponse(run, encode, close, SSE_HEADERS, release)
