"""The reconnect routes of resumable streams: a client that lost its connection continues a
run's events from any replica (``Scaling.chunk_log``; see :mod:`procession.server.scaling`).

- ``GET /api/agents/{agentId}/stream/{runId}?after=N``: the run's Mastra chunks from event
  ``N`` (or the ``Last-Event-ID`` header);
- ``GET /chat/{agentId}/{chatId}/stream``: the AI SDK's ``reconnectToStream``, the chat's
  running run from the start, 204 when there is none.

A run is readable only by its own resource, and only through the agent that ran it (404
otherwise, so another caller cannot learn that a run id exists).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from procession.server.chunk_log import ChunkLog, RunInfo
from procession.server.errors import HTTPError
from procession.server.params import Param, check_run_id, parse_query
from procession.server.scaling import HEADERS, ResumableResponse
from procession.server.state import state_of

__all__ = [
    "AFTER",
    "RECONNECT_PARAMS",
    "RESOURCE",
    "reconnect_chat",
    "reconnect_stream",
    "resume_chat",
    "resume_stream",
]


AFTER = Param(
    "after",
    "integer",
    "The number of events already received (or the Last-Event-ID header)",
    minimum=0,
    maximum=999_999_999,
)
"""``?after=N``: where a reconnect continues."""
RESOURCE = Param("resourceId", description="The resource (default: the caller's, or 'local')")
"""``?resourceId=``: whose run it is (without credentials)."""
RECONNECT_PARAMS = (AFTER, RESOURCE)
"""The query parameters of the reconnect routes."""


async def resume_stream(request: Request) -> ResumableResponse:
    """``GET /api/agents/{agentId}/stream/{runId}``: :func:`reconnect_stream` for the
    caller's resource."""
    log, resource = _log_of(request)
    return await reconnect_stream(request, log, resource)


async def resume_chat(request: Request) -> ResumableResponse | Response:
    """``GET /chat/{agentId}/{chatId}/stream``: :func:`reconnect_chat` for the caller's
    resource."""
    log, resource = _log_of(request)
    return await reconnect_chat(request, log, resource)


def _log_of(request: Request) -> tuple[ChunkLog, str]:
    state = state_of(request)
    named = parse_query((RESOURCE,), request.query_params)["resourceId"]
    resource = state.resource(request, named)
    if state.scaling.chunk_log is None:
        raise HTTPError(404, "Resumable streams are not enabled on this server")
    return state.scaling.chunk_log, resource


async def _readable(log: ChunkLog, run_id: str, resource: str) -> RunInfo:
    info = await log.info(run_id)
    if info is None or info.resource_id != resource:
        raise HTTPError(404, f"Run {run_id} not found")
    return info


def _after(request: Request) -> int:
    raw = request.query_params.get("after") or request.headers.get("last-event-id") or "0"
    after: int = AFTER.parse(raw)
    return after


async def reconnect_stream(request: Request, log: ChunkLog, resource: str) -> ResumableResponse:
    """``GET /api/agents/{agentId}/stream/{runId}?after=N``: the run's events from ``N``."""
    info = await _readable(log, check_run_id(request.path_params["runId"]), resource)
    if info.agent_id != request.path_params["agentId"]:
        raise HTTPError(404, f"Run {info.run_id} not found")
    return ResumableResponse(log, info.run_id, _after(request), HEADERS[info.format])


async def reconnect_chat(
    request: Request, log: ChunkLog, resource: str
) -> ResumableResponse | Response:
    """``GET /chat/{agentId}/{chatId}/stream``: the AI SDK's reconnect — the chat's active
    run from the start (or ``after``), 204 when there is none."""
    info = await log.latest_on_thread(request.path_params["chatId"])
    if (
        info is None
        or info.resource_id != resource
        or info.agent_id != request.path_params["agentId"]
        or info.status != "running"
    ):
        return Response(status_code=204)
    return ResumableResponse(log, info.run_id, _after(request), HEADERS[info.format])
