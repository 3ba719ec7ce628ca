"""``create_app``: a Starlette app serving agents over Mastra's routes and the AI SDK's."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from procession._checks import check_flag, wrong
from procession.agent import Agent
from procession.errors import ProcessionError
from procession.memory.memory import Memory
from procession.server.a2a import A2A_ROUTES
from procession.server.auth import Auth
from procession.server.config import CORS, ServerLimits
from procession.server.durable import check_durable, install_observer
from procession.server.encoding import dumps
from procession.server.errors import HTTPError, error_body, status_of
from procession.server.guard import RequestGuard, check_allowed_hosts
from procession.server.limits import BodyLimit
from procession.server.openai_compat import OPENAI_ROUTES, OpenAIErrorShape, with_openai_schemas
from procession.server.openapi import openapi_document
from procession.server.routes import RECONNECT, ROUTES, RouteSpec
from procession.server.scaling import Scaling
from procession.server.state import ServerState
from procession.server.studio import check_traces, inspect_allowed, studio_routes

__all__ = ["create_app"]

logger = logging.getLogger("procession.server")


def _agents(agents: Agent | Iterable[Agent] | Mapping[str, Agent]) -> dict[str, Agent]:
    if isinstance(agents, Agent):
        agents = [agents]
    if isinstance(agents, Mapping):
        pairs = list(agents.items())
    elif isinstance(agents, Iterable):
        pairs = [(getattr(a, "id", None), a) for a in agents]
    else:
        raise wrong("agents", agents, "an Agent, a list of Agents or a mapping of id to Agent")
    out: dict[str, Agent] = {}
    for key, agent in pairs:
        if not isinstance(agent, Agent):
            raise wrong(f"agents[{key!r}]", agent, "an Agent")
        if not isinstance(key, str) or not key or "/" in key:
            raise wrong("agent id", key, "a non-empty string without '/'")
        if key in out:
            raise wrong("agents", key, "unique agent ids")
        out[key] = agent
    if not out:
        raise wrong("agents", agents, "at least one Agent")
    return out


def _json(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Response:
    return Response(dumps(body), status_code=status, media_type="application/json", headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPError)
    return _json(exc.status, exc.body(), exc.headers)


async def _procession_error(request: Request, exc: Exception) -> Response:
    failure = status_of(exc)
    if failure.status >= 500:
        logger.error("%s %s failed: %s", request.method, request.url.path, exc)
    return _json(failure.status, failure.body(), failure.headers)


async def _starlette_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    return _json(exc.status_code, error_body(exc.detail), exc.headers)


async def _unexpected(request: Request, exc: Exception) -> Response:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return _json(500, error_body(f"Internal server error: {type(exc).__name__}"))


def create_app(
    agents: Agent | Iterable[Agent] | Mapping[str, Agent],
    *,
    memory: Memory | None = None,
    auth: Auth | None = None,
    limits: ServerLimits | None = None,
    cors: CORS | None = None,
    expose_instructions: bool = False,
    scaling: Scaling | None = None,
    traces: Any = None,
    studio: bool = True,
    allow_inspect: bool | None = None,
    allowed_hosts: Sequence[str] | None = None,
) -> Starlette:
    """An ASGI app serving ``agents`` (and their memory) as Mastra's server does.

    Routes: Mastra's ``/api/agents`` and ``/api/memory``, the AI SDK UI message stream at
    ``POST /chat/{agentId}``, AG-UI at ``POST /ag-ui/{agentId}``, A2A at ``/api/a2a/{agentId}``
    (and its agent cards), the OpenAI API under ``/v1``, the OpenAPI document at
    ``/api/openapi.json``, ``/health`` and Studio at ``/studio``. See ``docs/server.md`` (a
    page per protocol) and ``docs/studio.md``.

    Args:
        agents: An agent, a list of agents (served under their ids) or ``{id: agent}``.
        memory: The memory the memory routes use when the request names no ``agentId``
            (default: the agents' memory, when they share one).
        auth: The accepted credentials; ``None`` serves every request as the resource its
            body names (or ``local``) — only for a server on loopback.
        limits: Request limits (:class:`ServerLimits`; 1 MiB bodies by default).
        cors: Cross-origin settings (:class:`CORS`); ``None`` sends no CORS headers. Its
            origins are also the only other origins allowed to change anything (a
            ``POST``/``PUT``/``PATCH``/``DELETE`` with another ``Origin`` is 403).
        allowed_hosts: The ``Host`` names the app answers (400 for others, against DNS
            rebinding): loopback names by default; a deployment names its own, such as
            ``["api.example.com", "*.example.com"]``, or ``["*"]`` when a proxy in front
            already checks them.
        traces: The trace store (``procession.tracing.trace_store(...)``) Studio reads
            runs and timelines from; the app only reads it (the tracer provider writes it).
        studio: Serve Studio at ``/studio`` and its routes under ``/api/studio``
            (``docs/studio.md``).
        allow_inspect: Honour ``"inspect": true`` on the stream routes: notes of what each
            processor did, *including the text it removed*. Default: only without ``auth``
            (a server on loopback); with credentials every caller could read what the
            guardrails hid from it, so it must be asked for.
        expose_instructions: Include each agent's instructions (its system prompt) in the
            agent routes, as Mastra does. Off by default: the prompt is the server's.
        scaling: Replicas (:class:`~procession.server.scaling.Scaling`): how long a turn
            waits for its thread (409 after), resumable streams through a chunk log (with
            its reconnect routes) and durable runs (``docs/scaling.md``). The app opens and
            closes the chunk log and launches and closes the durable runs.

    Raises:
        ConfigurationError: an argument of the wrong type (naming it and the value).
    """
    served = _agents(agents)
    limits, scaling = _checked(memory, auth, cors, limits, scaling)
    if scaling.durable is not None:
        check_durable(scaling.durable, served)
        install_observer(scaling.durable, scaling.chunk_log)
    state = ServerState(
        served,
        memory,
        auth,
        limits,
        check_flag("expose_instructions", expose_instructions),
        scaling,
        allow_inspect=inspect_allowed(allow_inspect, auth),
        traces=check_traces(traces),
    )
    specs = _route_specs(scaling)
    document = openapi_document(specs, limits=limits, agent_ids=list(served), auth=auth is not None)
    document = with_openai_schemas(document)

    async def openapi(request: Request) -> Response:
        return _json(200, document)

    async def health(request: Request) -> Response:
        return _json(200, {"status": "ok"})

    routes = [Route(r.path, r.endpoint, methods=[r.method]) for r in specs]
    routes += [Route("/api/openapi.json", openapi), Route("/health", health)]
    middleware = _middleware(limits, cors, check_allowed_hosts(allowed_hosts))
    lifespan = _lifespan(scaling, memory, served)
    if check_flag("studio", studio):
        routes += studio_routes(document, limits, list(served), auth is not None)
    app = Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            HTTPError: _http_error,
            ProcessionError: _procession_error,
            StarletteHTTPException: _starlette_error,
            Exception: _unexpected,
        },
        lifespan=lifespan,
    )
    app.state.procession = state
    return app


def _route_specs(scaling: Scaling) -> tuple[RouteSpec, ...]:
    """Every route of the app: Mastra's, the AI SDK's, A2A's and the OpenAI API's, and the
    reconnect routes when there is a chunk log."""
    reconnect = RECONNECT if scaling.chunk_log is not None else ()
    return ROUTES + A2A_ROUTES + OPENAI_ROUTES + reconnect


def _checked(
    memory: object, auth: object, cors: object, limits: object, scaling: object
) -> tuple[ServerLimits, Scaling]:
    """``create_app``'s typed arguments checked; the limits and scaling, defaults filled in."""
    if memory is not None and not isinstance(memory, Memory):
        raise wrong("memory", memory, "a procession Memory")
    if auth is not None and not isinstance(auth, Auth):
        raise wrong("auth", auth, "an Auth")
    if cors is not None and not isinstance(cors, CORS):
        raise wrong("cors", cors, "a CORS")
    limits = ServerLimits() if limits is None else limits
    if not isinstance(limits, ServerLimits):
        raise wrong("limits", limits, "a ServerLimits")
    scaling = Scaling() if scaling is None else scaling
    if not isinstance(scaling, Scaling):
        raise wrong("scaling", scaling, "a Scaling")
    return limits, scaling


def _middleware(
    limits: ServerLimits, cors: CORS | None, hosts: tuple[str, ...]
) -> list[Middleware]:
    origins = list(cors.allow_origins) if cors is not None else []
    middleware = [
        Middleware(OpenAIErrorShape),
        Middleware(RequestGuard, allowed_hosts=hosts, allowed_origins=origins),
        Middleware(BodyLimit, max_bytes=limits.max_body_bytes, timeout=limits.body_timeout),
    ]
    if cors is not None:
        middleware.insert(
            2,
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors.allow_origins),
                allow_methods=["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
                allow_headers=list(cors.allow_headers),
                allow_credentials=cors.allow_credentials,
                expose_headers=["x-vercel-ai-ui-message-stream"],
                max_age=cors.max_age,
            ),
        )
    return middleware


def _lifespan(
    scaling: Scaling, memory: Memory | None, served: Mapping[str, Agent]
) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
    """Opens the chunk log and launches the durable runs; closes them (runs still executing
    are resumed by another replica) and every memory the app serves."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        log, durable = scaling.chunk_log, scaling.durable
        if log is not None:
            await log.open()
        try:
            if durable is not None:
                await durable.launch()
            try:
                yield
            finally:
                if durable is not None:
                    await durable.close()
        finally:
            if log is not None:
                await log.close()
        memories = {id(m): m for m in (memory, *(a.memory for a in served.values()))}
        for owned in memories.values():
            if isinstance(owned, Memory):
                await owned.close()

    return lifespan
