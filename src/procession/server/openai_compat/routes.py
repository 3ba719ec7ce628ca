"""The OpenAI-compatible routes' table and what the OpenAPI document says of them."""

from __future__ import annotations

from typing import Any

from procession.server.openai_compat.bodies import ChatCompletionBody, ResponsesBody
from procession.server.openai_compat.chat import chat_completions
from procession.server.openai_compat.models import get_model, list_models
from procession.server.openai_compat.responses import create_response
from procession.server.routes import RouteSpec

__all__ = ["OPENAI_ROUTES", "with_openai_schemas"]

_TAG = "OpenAI"
_RUN_ERRORS = (400, 404, 409, 500)

OPENAI_ROUTES: tuple[RouteSpec, ...] = (
    RouteSpec(
        "POST",
        "/v1/chat/completions",
        chat_completions,
        "createChatCompletion",
        "OpenAI Chat Completions: the agent named by `model` answers (streamed when asked)",
        _TAG,
        body=ChatCompletionBody,
        response="ChatCompletion",
        errors=_RUN_ERRORS,
    ),
    RouteSpec(
        "POST",
        "/v1/responses",
        create_response,
        "createResponse",
        "OpenAI Responses: the agent named by `model` answers `input` (streamed when asked)",
        _TAG,
        body=ResponsesBody,
        response="Response",
        errors=_RUN_ERRORS,
    ),
    RouteSpec(
        "GET",
        "/v1/models",
        list_models,
        "listModels",
        "The agents, as models",
        _TAG,
        response="ModelList",
    ),
    RouteSpec(
        "GET",
        "/v1/models/{agentId}",
        get_model,
        "retrieveModel",
        "One agent, as a model",
        _TAG,
        response="Model",
        errors=(404,),
    ),
)
"""The OpenAI-compatible routes (``docs/server-openai.md``)."""

_STR: dict[str, Any] = {"type": "string"}
_OBJ: dict[str, Any] = {"type": "object"}
_MODEL = {
    "type": "object",
    "required": ["id", "object", "created", "owned_by"],
    "properties": {
        "id": _STR,
        "object": {"const": "model"},
        "created": {"type": "integer"},
        "owned_by": _STR,
    },
}
_NULLABLE_STR = {"type": ["string", "null"]}
SCHEMAS: dict[str, Any] = {
    "OpenAIError": {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["message", "type", "param", "code"],
                "properties": {
                    "message": _STR,
                    "type": _STR,
                    "param": _NULLABLE_STR,
                    "code": _NULLABLE_STR,
                },
            }
        },
    },
    "Model": _MODEL,
    "ModelList": {
        "type": "object",
        "required": ["object", "data"],
        "properties": {"object": {"const": "list"}, "data": {"type": "array", "items": _MODEL}},
    },
    "ChatCompletion": {
        "type": "object",
        "required": ["id", "object", "created", "model", "choices", "usage"],
        "properties": {
            "id": _STR,
            "object": {"const": "chat.completion"},
            "model": _STR,
            "created": {"type": "integer"},
            "choices": {"type": "array"},
            "usage": _OBJ,
        },
    },
    "Response": {
        "type": "object",
        "required": ["id", "object", "created_at", "status", "model", "output"],
        "properties": {
            "id": _STR,
            "object": {"const": "response"},
            "status": _STR,
            "model": _STR,
            "created_at": {"type": "integer"},
            "output": {"type": "array"},
            "usage": _OBJ,
        },
    },
}

_STREAMS = {
    "createChatCompletion": "With `stream: true`: `data: <chat.completion.chunk>` events, then "
    "`data: [DONE]`",
    "createResponse": "With `stream: true`: `event: <type>` / `data: <event>` pairs, ending "
    "with `response.completed`, `response.incomplete` or `response.failed`",
}


def with_openai_schemas(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the OpenAI routes' schemas: their answers, their error shape and
    the event stream a ``stream: true`` request gets."""
    document["components"]["schemas"].update(SCHEMAS)
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/OpenAIError"}}}
    for route in OPENAI_ROUTES:
        operation = document["paths"].get(route.path, {}).get(route.method.lower())
        if operation is None:
            continue
        operation["responses"].pop("422", None)  # a malformed body is OpenAI's 400
        for status, answer in operation["responses"].items():
            if status != "200":
                answer["content"] = error
        stream = _STREAMS.get(route.operation_id)
        if stream is not None:
            ok = operation["responses"]["200"]
            ok["description"] = f"The answer; {stream}"
            ok["content"]["text/event-stream"] = {"schema": _STR}
    return document
