"""The request bodies of ``/v1/chat/completions`` and ``/v1/responses``.

Field names are OpenAI's. Unknown fields are allowed (clients add their own), but a field
that asks for something the agent does not do is refused with 400 naming it, never silently
ignored: client tools (the agent runs its own), more than one choice, log probabilities,
audio, a stored previous response. A ``json_schema`` response format is the run's structured
output (the answer's text is the JSON). Fields that only tune OpenAI's own service (``store``,
``service_tier``, ``user``, ``prompt_cache_key``, ...) are accepted and have no effect.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from procession.server.bodies import NonEmpty, parse_body
from procession.server.errors import HTTPError
from procession.server.openai_compat.errors import OpenAIError, invalid

__all__ = [
    "ChatCompletionBody",
    "OpenAIBody",
    "ResponsesBody",
    "StreamOptions",
    "parse_openai_body",
    "structured_schema",
]

T = TypeVar("T", bound=BaseModel)

Metadata = Annotated[dict[StrictStr, StrictStr], Field(max_length=16)]
"""OpenAI's ``metadata``: up to 16 string pairs. ``metadata.thread_id`` names the thread."""


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow")


class StreamOptions(_Body):
    """``stream_options``: ``include_usage`` adds a last chunk with the usage."""

    include_usage: StrictBool | None = None


class OpenAIBody(_Body):
    """The fields both routes take."""

    model: NonEmpty
    stream: StrictBool | None = None
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    metadata: Metadata | None = None
    user: StrictStr | None = None


class ChatCompletionBody(OpenAIBody):
    """``POST /v1/chat/completions``: ``model`` is the agent's id; ``messages`` the whole
    conversation (system, developer, user, assistant and tool messages)."""

    messages: Annotated[list[dict[str, Any]], Field(min_length=1)]
    stream_options: StreamOptions | None = None
    max_tokens: Annotated[StrictInt, Field(ge=1)] | None = None
    max_completion_tokens: Annotated[StrictInt, Field(ge=1)] | None = None
    stop: StrictStr | Annotated[list[StrictStr], Field(max_length=4)] | None = None
    seed: StrictInt | None = None
    presence_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    frequency_penalty: Annotated[float, Field(ge=-2, le=2)] | None = None
    n: Annotated[StrictInt, Field(ge=1, le=1)] | None = None


class ResponsesBody(OpenAIBody):
    """``POST /v1/responses``: ``input`` is a string or a list of message items;
    ``instructions`` adds a system message (the agent keeps its own)."""

    input: (
        Annotated[StrictStr, Field(min_length=1)]
        | Annotated[list[dict[str, Any]], Field(min_length=1)]
    )
    instructions: StrictStr | None = None
    max_output_tokens: Annotated[StrictInt, Field(ge=1)] | None = None


_CLIENT_TOOLS = "the agent runs its own tools; a client's tools are not supported"
_REFUSED_CHAT = {
    "tools": _CLIENT_TOOLS,
    "functions": _CLIENT_TOOLS,
    "tool_choice": _CLIENT_TOOLS,
    "function_call": _CLIENT_TOOLS,
    "logprobs": "log probabilities are not supported",
    "top_logprobs": "log probabilities are not supported",
    "logit_bias": "logit_bias is not supported",
    "audio": "audio output is not supported",
    "prediction": "predicted outputs are not supported",
    "web_search_options": "the agent runs its own tools; web search is not a request option",
}
_REFUSED_RESPONSES = {
    "tools": _CLIENT_TOOLS,
    "tool_choice": _CLIENT_TOOLS,
    "previous_response_id": (
        "stored responses are not supported: send the whole conversation in input, or name a "
        "thread with metadata.thread_id"
    ),
    "conversation": "conversations are not supported: name a thread with metadata.thread_id",
    "prompt": "stored prompts are not supported",
    "background": "background responses are not supported",
}
_REFUSED = {ChatCompletionBody: _REFUSED_CHAT, ResponsesBody: _REFUSED_RESPONSES}


def parse_openai_body(model: type[T], data: object) -> T:
    """Validate ``data`` as ``model``; 400 naming the first wrong or unsupported field."""
    try:
        body = parse_body(model, data)
    except HTTPError as exc:
        raise OpenAIError.of(exc) from None
    extra = body.model_extra or {}
    for name, reason in _REFUSED.get(model, {}).items():
        if extra.get(name) not in (None, False, [], {}):
            raise invalid(name, reason, code="unsupported_parameter")
    _check_formats(body, extra)
    return body


def _check_formats(body: BaseModel, extra: dict[str, Any]) -> None:
    """Only text or a JSON schema: other ``response_format`` / ``text.format`` types are 400."""
    structured_schema(body)
    if isinstance(body, ChatCompletionBody):
        modalities = extra.get("modalities")
        if modalities is not None and modalities != ["text"]:
            raise invalid("modalities", "only ['text'] is supported")


def structured_schema(body: BaseModel) -> dict[str, Any] | None:
    """The JSON schema the answer must match (``response_format`` of type ``json_schema``,
    or the Responses API's ``text.format``), or ``None`` for text."""
    extra = body.model_extra or {}
    if isinstance(body, ChatCompletionBody):
        field, value = "response_format", extra.get("response_format")
        kind = _type_of(value, field)
        holder, where = (value or {}).get("json_schema"), f"{field}.json_schema"
    else:
        text = extra.get("text")
        if text is not None and not isinstance(text, dict):
            raise invalid("text", "must be an object")
        field = "text.format"
        value = (text or {}).get("format")
        kind = _type_of(value, field)
        holder, where = value, field
    if kind in (None, "text"):
        return None
    if kind != "json_schema":
        raise invalid(f"{field}.type", f"{kind!r} is not supported: use 'text' or 'json_schema'")
    schema = holder.get("schema") if isinstance(holder, dict) else None
    if not isinstance(schema, dict) or not schema:
        raise invalid(f"{where}.schema", "must be a JSON schema object")
    return schema


def _type_of(value: object, field: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise invalid(f"{field}.type", "is required")
    kind: str = value["type"]
    return kind
