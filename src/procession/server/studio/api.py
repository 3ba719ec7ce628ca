"""Studio's JSON routes: who the page is, and runs with their timelines from the trace store.

Threads, messages and the chat go through the API's own routes (``/api/memory``,
``/api/agents/{agentId}/stream``); these add what the API has no route for. They take the same
credentials as the API: with :class:`~procession.server.Auth` a caller lists and opens only
its own resource's runs (another resource's run is 404, like a missing one); without it (a
server on loopback) every run, or one resource's when the query names it.

Times go out as ISO 8601 strings, never as nanosecond integers, which JavaScript cannot hold.

A run's timeline hands the caller only what a client of the run was allowed to see: a span's
status message is its error's type (``error.type``), never the message, and exception events
lose their message and stack trace, even when the trace store holds them (content capture is
for the operator's telemetry, not for Studio's callers).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession._version import __version__
from procession.server.encoding import dumps
from procession.server.errors import HTTPError
from procession.server.params import Param, parse_query
from procession.server.routes import RouteSpec
from procession.server.state import ServerState, state_of
from procession.server.studio.asked import asked_texts

__all__ = [
    "RUN_LIST_PARAMS",
    "STUDIO_ROUTES",
    "STUDIO_SCHEMAS",
    "get_run",
    "list_runs",
    "run_json",
    "session",
]

_OUTCOMES = ("finish", "tripwire", "abort", "error")

RUN_LIST_PARAMS = (
    Param("agentId", description="Only this agent's runs"),
    Param("threadId", description="Only runs on this thread"),
    Param("resourceId", description="Only this resource's runs (with credentials: the caller's)"),
    Param("outcome", enum=_OUTCOMES, description="Only runs that ended this way"),
    Param("before", description="ISO 8601 time: runs that started before it (to page on)"),
    Param("limit", "integer", "Most runs returned", minimum=1, maximum=500, default=50),
)
"""The query parameters of ``GET /api/studio/runs``."""


def _json(body: Any) -> Response:
    return Response(dumps(body), media_type="application/json")


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _before(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise HTTPError.invalid("before", "must be an ISO 8601 time") from None


def _store(state: ServerState) -> Any:
    if state.traces is None:
        raise HTTPError(404, "This server keeps no traces: create_app(traces=trace_store(...))")
    return state.traces


def _scope(state: ServerState, request: Request, named: str | None) -> str | None:
    """The resource whose runs the caller may see: its credential's (403 when the query names
    another), else the one the query names, else every resource (loopback only)."""
    credential = state.credential(request)
    if credential is None:
        return named
    if named is not None and named != credential:
        raise HTTPError(403, "The resource named in the request is not the caller's")
    return credential


def run_json(run: Any) -> dict[str, Any]:
    """A :class:`~procession.tracing.RunSummary` as Studio reads it."""
    return {
        "runId": run.run_id,
        "traceId": run.trace_id,
        "agentId": run.agent_id,
        "agentName": run.agent_name,
        "resourceId": run.resource_id,
        "threadId": run.thread_id,
        "outcome": run.outcome,
        "internal": run.internal,
        "parentRunId": run.parent_run_id,
        "start": _iso(run.start),
        "durationMs": round(run.duration_ms, 3),
        "status": run.status,
    }


_CONTENT = frozenset({"exception.message", "exception.stacktrace"})
"""Span and event attributes that carry content (what the output lane may have hidden)."""


def _attributes(values: Mapping[str, Any]) -> dict[str, Any]:
    return {
        k: list(v) if isinstance(v, tuple) else v for k, v in values.items() if k not in _CONTENT
    }


def _status_message(span: Any) -> str | None:
    """The span's error type, never its message (which may quote hidden content)."""
    if span.status_message is None:
        return None
    kind = span.attributes.get("error.type")
    return str(kind) if kind is not None else "error"


def _span_json(entry: Any, run_start_ns: int) -> dict[str, Any]:
    span = entry.span
    return {
        "spanId": span.span_id,
        "parentSpanId": span.parent_span_id,
        "name": span.name,
        "kind": span.kind,
        "depth": entry.depth,
        "offsetMs": round(entry.offset_ms, 3),
        "durationMs": round(span.duration_ms, 3),
        "status": span.status,
        "statusMessage": _status_message(span),
        "attributes": _attributes(span.attributes),
        "events": [
            {
                "name": event.name,
                "offsetMs": round((event.time_ns - run_start_ns) / 1e6, 3),
                "attributes": _attributes(event.attributes),
            }
            for event in span.events
        ],
    }


def _hook_json(call: Any) -> dict[str, Any]:
    return {
        "spanId": call.span.span_id,
        "processorId": call.processor_id,
        "processorName": call.processor_name,
        "processorIndex": call.processor_index,
        "hook": call.hook,
        "outcome": call.outcome,
        "dataChunks": call.data_chunks,
        "calls": call.calls,
        "kept": call.kept,
        "replaced": call.replaced,
        "dropped": call.dropped,
        "stepNumber": call.step_number,
        "attempt": call.attempt,
        "offsetMs": round(call.offset_ms, 3),
        "durationMs": round(call.duration_ms, 3),
    }


async def session(request: Request) -> Response:
    """``GET /api/studio/session``: the caller's resource and what this server offers."""
    state = state_of(request)
    resource = state.credential(request)
    return _json(
        {
            "resourceId": resource,
            "auth": state.auth is not None,
            "traces": state.traces is not None,
            "inspect": state.allow_inspect,
            "version": __version__,
        }
    )


async def list_runs(request: Request) -> Response:
    """``GET /api/studio/runs``: the caller's runs, newest first (page on with ``before``),
    each with what it was asked (``asked``: the first user text it stored, shortened)."""
    state = state_of(request)
    query = parse_query(RUN_LIST_PARAMS, request.query_params)
    resource = _scope(state, request, query["resourceId"])
    store = _store(state)
    limit = query["limit"]
    runs = await store.list_runs(
        agent_id=query["agentId"],
        thread_id=query["threadId"],
        resource_id=resource,
        outcome=query["outcome"],
        until=_before(query["before"]),
        limit=limit + 1,
    )
    shown = runs[:limit]
    asked = await asked_texts(state, shown)
    listed = [{**run_json(r), "asked": asked.get(r.run_id)} for r in shown]
    return _json({"runs": listed, "hasMore": len(runs) > limit})


async def get_run(request: Request) -> Response:
    """``GET /api/studio/runs/{runId}``: one run's timeline (every span under it, depth first)
    and its hook calls with durations and outcomes, plus the judge runs it started."""
    state = state_of(request)
    resource = _scope(state, request, None)
    store = _store(state)
    run_id = request.path_params["runId"]
    timeline = await store.run_timeline(run_id)
    if timeline is None or (resource is not None and timeline.run.resource_id != resource):
        raise HTTPError(404, "Run not found (its spans may still be on their way to the store)")
    inner = await store.list_runs(parent_run_id=run_id, include_internal=True, limit=100)
    start = timeline.run.start_ns
    asked = await asked_texts(state, [timeline.run])
    return _json(
        {
            "run": {**run_json(timeline.run), "asked": asked.get(run_id)},
            "spans": [_span_json(entry, start) for entry in timeline.entries],
            "hookCalls": [_hook_json(call) for call in timeline.hook_calls()],
            "internalRuns": [run_json(r) for r in inner],
        }
    )


def _obj(required: tuple[str, ...], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


_STR = {"type": "string"}
_NSTR = {"type": ["string", "null"]}
_NUM = {"type": "number"}
_RUN = _obj(
    ("runId", "traceId", "outcome", "start", "durationMs"),
    runId=_STR,
    traceId=_STR,
    agentId=_NSTR,
    agentName=_NSTR,
    resourceId=_NSTR,
    threadId=_NSTR,
    outcome=_NSTR,
    internal={"type": "boolean"},
    parentRunId=_NSTR,
    start={"type": "string", "format": "date-time"},
    durationMs=_NUM,
    status=_STR,
    asked=_NSTR,
)
_RUN_REF = {"$ref": "#/components/schemas/StudioRun"}

STUDIO_SCHEMAS: dict[str, Any] = {
    "StudioSession": _obj(
        ("resourceId", "auth", "traces", "inspect", "version"),
        resourceId=_NSTR,
        auth={"type": "boolean"},
        traces={"type": "boolean"},
        inspect={"type": "boolean"},
        version=_STR,
    ),
    "StudioRun": _RUN,
    "StudioRunList": _obj(
        ("runs", "hasMore"), runs={"type": "array", "items": _RUN_REF}, hasMore={"type": "boolean"}
    ),
    "StudioTimeline": _obj(
        ("run", "spans", "hookCalls", "internalRuns"),
        run=_RUN_REF,
        spans={"type": "array", "items": {"type": "object"}},
        hookCalls={"type": "array", "items": {"type": "object"}},
        internalRuns={"type": "array", "items": _RUN_REF},
    ),
}
"""The OpenAPI schemas of Studio's routes."""

STUDIO_ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec(
        "GET",
        "/api/studio/session",
        session,
        "getStudioSession",
        "The caller's resource and what the server offers Studio",
        "Studio",
        response="StudioSession",
    ),
    RouteSpec(
        "GET",
        "/api/studio/runs",
        list_runs,
        "listStudioRuns",
        "The caller's runs from the trace store, newest first",
        "Studio",
        params=RUN_LIST_PARAMS,
        response="StudioRunList",
        errors=(403, 404, 422),
    ),
    RouteSpec(
        "GET",
        "/api/studio/runs/{runId}",
        get_run,
        "getStudioRun",
        "A run's timeline: every span, every hook call with its duration and outcome",
        "Studio",
        response="StudioTimeline",
        errors=(404,),
    ),
)
"""Studio's JSON routes, described in the app's OpenAPI document."""
