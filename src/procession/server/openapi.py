"""The OpenAPI 3.1 document of one app, built from the route table.

Request bodies come from the pydantic models that validate them; query parameters from the
same declarations the routes parse; ``agentId`` is an enum of the served agents. Every
error is the one JSON shape of :mod:`procession.server.errors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from procession._version import __version__
from procession.server.config import ServerLimits
from procession.server.routes import RouteSpec

__all__ = ["openapi_document"]

_OBJ: dict[str, Any] = {"type": "object"}
_STR: dict[str, Any] = {"type": "string"}
_INT: dict[str, Any] = {"type": "integer", "minimum": 0}


def _obj(required: Sequence[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": properties}


_PAGE = {"total": _INT, "page": _INT, "perPage": _INT, "hasMore": {"type": "boolean"}}
_THREAD = _obj(
    ("id", "resourceId", "createdAt", "updatedAt", "metadata"),
    id=_STR,
    resourceId=_STR,
    title=_STR,
    createdAt={"type": "string", "format": "date-time"},
    updatedAt={"type": "string", "format": "date-time"},
    metadata=_OBJ,
)
_AGENT = _obj(
    ("id", "name", "tools", "inputProcessors", "outputProcessors"),
    id=_STR,
    name=_STR,
    description=_STR,
    instructions={"anyOf": [_STR, {"type": "array", "items": _STR}]},
    tools={
        "type": "object",
        "additionalProperties": _obj(("id",), id=_STR, description=_STR, inputSchema=_STR),
    },
    inputProcessors={"type": "array", "items": _obj(("id", "name"), id=_STR, name=_STR)},
    outputProcessors={"type": "array", "items": _obj(("id", "name"), id=_STR, name=_STR)},
    provider=_STR,
    modelId=_STR,
    supportsMemory={"type": "boolean"},
)
_ISSUE = _obj(("field", "message"), field=_STR, message=_STR)

SCHEMAS: dict[str, Any] = {
    "Error": _obj(("error",), error=_STR, issues={"type": "array", "items": _ISSUE}),
    "Object": _OBJ,
    "Agent": _AGENT,
    "AgentMap": {"type": "object", "additionalProperties": {"$ref": "#/components/schemas/Agent"}},
    "GenerateResult": _obj(
        (
            "runId",
            "text",
            "finishReason",
            "usage",
            "steps",
            "toolCalls",
            "toolResults",
            "response",
            "messages",
        ),
        runId=_STR,
        text=_STR,
        finishReason=_STR,
        usage=_OBJ,
        totalUsage=_OBJ,
        steps={"type": "array", "items": _OBJ},
        toolCalls={"type": "array", "items": _OBJ},
        toolResults={"type": "array", "items": _OBJ},
        response=_OBJ,
        messages={"type": "array", "items": _OBJ},
        tripwire={"anyOf": [_OBJ, {"type": "null"}]},
    ),
    "Chunk": {
        "anyOf": [
            _obj(("type", "runId", "from", "payload"), type=_STR, runId=_STR, payload=_OBJ),
            _obj(("type", "data"), type={"type": "string", "pattern": "^data-"}),
        ]
    },
    "UIChunk": _obj(("type",), type=_STR),
    "ToolApproval": _obj(
        ("accepted", "runId", "toolCallId"), accepted={"const": True}, runId=_STR, toolCallId=_STR
    ),
    "MemoryStatus": _obj(("result",), result={"type": "boolean"}),
    "Thread": _THREAD,
    "ThreadList": _obj(("threads", *_PAGE), threads={"type": "array", "items": _THREAD}, **_PAGE),
    "MessageList": _obj(
        ("messages", "uiMessages", *_PAGE),
        messages={"type": "array", "items": _OBJ},
        uiMessages={"type": "array", "items": _OBJ},
        **_PAGE,
    ),
    "WorkingMemory": _obj(
        ("workingMemory", "source", "workingMemoryTemplate", "threadExists"),
        workingMemory={"type": ["string", "null"]},
        source={"enum": ["thread", "resource"]},
        workingMemoryTemplate={"anyOf": [_OBJ, {"type": "null"}]},
        threadExists={"type": "boolean"},
    ),
    "Success": _obj(("success",), success={"type": "boolean"}),
    "DeleteResult": _obj(("result",), result=_STR),
    "DeleteMessagesResult": _obj(("success", "message"), success={"type": "boolean"}, message=_STR),
}

_REASONS = {
    400: "A Host that is not allowed, control characters in the path, or no memory for this "
    "request",
    401: "Missing or invalid credentials",
    403: "The request names a resource other than the caller's, or comes from an origin "
    "that is not allowed",
    408: "The request body did not arrive in time",
    404: "No such agent or thread (another resource's thread is not found either)",
    409: "The id is taken",
    413: "The request body is larger than the server's limit",
    415: "The request body is not JSON",
    422: "The request is malformed; `issues` names the fields",
    500: "The run failed on the server's side (a provider, tool or processor)",
}


def _event(chunk: dict[str, Any]) -> dict[str, Any]:
    """One server-sent event: ``data`` is a chunk's JSON, or ``[DONE]`` at the end."""
    json_data = {"type": "string", "contentMediaType": "application/json", "contentSchema": chunk}
    data = {"anyOf": [{"const": "[DONE]"}, json_data]}
    return _obj(("data",), data=data, event=_STR, id=_STR)


def _error(status: int) -> dict[str, Any]:
    return {
        "description": _REASONS[status],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _success(route: RouteSpec) -> dict[str, Any]:
    if route.response in ("stream", "uiStream"):
        ui = route.response == "uiStream"
        description = (
            "The AI SDK UI message stream: `data: <chunk>` events, then `data: [DONE]`"
            if ui
            else "Mastra's chunk stream: `data: <chunk>` events, then `data: [DONE]`"
        )
        headers = {"x-vercel-ai-ui-message-stream": {"schema": {"const": "v1"}}} if ui else {}
        chunk = {"$ref": f"#/components/schemas/{'UIChunk' if ui else 'Chunk'}"}
        out: dict[str, Any] = {
            "description": description,
            "content": {"text/event-stream": {"schema": _event(chunk)}},
        }
        if headers:
            out["headers"] = headers
        return out
    schema = {"$ref": f"#/components/schemas/{route.response}"}
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _parameters(
    route: RouteSpec, limits: ServerLimits, agent_ids: Sequence[str]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if "{agentId}" in route.path:
        schema = {"type": "string", "enum": list(agent_ids)} if agent_ids else _STR
        out.append({"name": "agentId", "in": "path", "required": True, "schema": schema})
    for name in ("threadId", "runId", "chatId"):
        if "{" + name + "}" in route.path:
            schema = {"type": "string", "minLength": 1}
            out.append({"name": name, "in": "path", "required": True, "schema": schema})
    for param in route.query(limits):
        entry = {"name": param.name, "in": "query", "required": False, "schema": param.schema()}
        if param.description:
            entry["description"] = param.description
        out.append(entry)
    return out


def _operation(
    route: RouteSpec, limits: ServerLimits, agent_ids: Sequence[str], auth: bool
) -> dict[str, Any]:
    errors = set(route.errors) | {400}  # the Host and path checks of every route
    if route.body is not None:
        errors |= {403, 408, 413, 415, 422}
    if auth and not route.public:
        errors.add(401)
    operation: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "parameters": _parameters(route, limits, agent_ids),
        "responses": {"200": _success(route)} | {str(s): _error(s) for s in sorted(errors)},
    }
    if route.no_content:
        operation["responses"]["204"] = {"description": route.no_content}
    if route.body is not None:
        schema = route.body.model_json_schema(ref_template="#/components/schemas/{model}")
        operation["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{route.body.__name__}"}
                }
            },
        }
        operation["x-body-schema"] = schema
    if auth and not route.public:
        operation["security"] = [{"bearer": []}, {"apiKey": []}]
    return operation


def openapi_document(
    routes: Sequence[RouteSpec], *, limits: ServerLimits, agent_ids: Sequence[str], auth: bool
) -> dict[str, Any]:
    """The OpenAPI 3.1 document of an app serving ``agent_ids``."""
    schemas = dict(SCHEMAS)
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        operation = _operation(route, limits, agent_ids, auth)
        body_schema = operation.pop("x-body-schema", None)
        if body_schema is not None:
            schemas.update(body_schema.pop("$defs", {}))
            schemas[route.body.__name__] = body_schema  # type: ignore[union-attr]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "procession", "version": __version__},
        "paths": paths,
        "components": {"schemas": schemas},
    }
    if auth:
        document["components"]["securitySchemes"] = {
            "bearer": {"type": "http", "scheme": "bearer"},
            "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
        }
    return document
