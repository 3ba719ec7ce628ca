"""Request bodies: pydantic models (which also give the OpenAPI schemas) and their checks.

Field names are Mastra's (camelCase), so ``@mastra/client-js`` bodies validate unchanged;
unknown fields are allowed, as Mastra allows them. A field procession cannot honour
(client-side tools, per-request models, tool approval, ...) is refused with 422 when it asks
for something, rather than silently ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)

from procession.server.errors import HTTPError, Issue, issue
from procession.server.params import control_character, run_id_problem

__all__ = [
    "ChatBody",
    "CreateThreadBody",
    "DeleteMessagesBody",
    "ExecutionBody",
    "UpdateThreadBody",
    "WorkingMemoryBody",
    "ToolApprovalBody",
    "parse_body",
]

T = TypeVar("T", bound=BaseModel)


def _no_control(value: str) -> str:
    index = control_character(value)
    if index is not None:
        raise ValueError(f"must not hold control characters ({value[index]!r} at {index})")
    return value


def _run_id(value: str) -> str:
    problem = run_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


NonEmpty = Annotated[StrictStr, Field(min_length=1, max_length=1024), AfterValidator(_no_control)]
"""An id or a name a request gives: 1 to 1024 characters, no control characters."""
RunId = Annotated[StrictStr, AfterValidator(_run_id)]
"""A run id a request gives (:func:`~procession.server.params.run_id_problem`)."""
JSONObject = dict[str, Any]


class _Body(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=False)


class ThreadRef(_Body):
    """A thread given as an object: ``{"id": "..."}``."""

    id: NonEmpty


class MemoryOption(_Body):
    """Mastra's ``memory`` option: which thread the run reads and extends."""

    thread: NonEmpty | ThreadRef
    resource: NonEmpty | None = None
    options: JSONObject | None = None
    readOnly: StrictBool | None = None  # noqa: N815 - Mastra's wire name


class ModelSettingsBody(BaseModel):
    """Call settings, Mastra's names (``maxOutputTokens``...)."""

    model_config = ConfigDict(extra="forbid")

    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    maxOutputTokens: Annotated[StrictInt, Field(ge=1)] | None = None  # noqa: N815
    topP: Annotated[float, Field(ge=0, le=1)] | None = None  # noqa: N815
    topK: Annotated[StrictInt, Field(ge=1)] | None = None  # noqa: N815
    presencePenalty: float | None = None  # noqa: N815
    frequencyPenalty: float | None = None  # noqa: N815
    stopSequences: list[StrictStr] | None = None  # noqa: N815
    seed: StrictInt | None = None
    maxRetries: Annotated[StrictInt, Field(ge=0, le=10)] | None = None  # noqa: N815

    def to_settings(self) -> dict[str, Any]:
        """procession's ``model_settings`` (snake_case)."""
        names = {
            "maxOutputTokens": "max_output_tokens",
            "topP": "top_p",
            "topK": "top_k",
            "presencePenalty": "presence_penalty",
            "frequencyPenalty": "frequency_penalty",
            "stopSequences": "stop_sequences",
            "maxRetries": "max_retries",
        }
        return {names.get(k, k): v for k, v in self.model_dump(exclude_none=True).items()}


class ToolChoiceTool(BaseModel):
    """``{"type": "tool", "toolName": "..."}``: the model must call that tool."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tool"]
    toolName: NonEmpty  # noqa: N815


class StructuredOutputBody(_Body):
    """``structuredOutput``: a JSON schema the final answer must match."""

    schema_: Annotated[JSONObject, Field(alias="schema", min_length=1)]


Messages = (
    Annotated[StrictStr, Field(min_length=1)] | Annotated[list[JSONObject], Field(min_length=1)]
)
Instructions = StrictStr | list[StrictStr]


class ExecutionBody(_Body):
    """The body of ``generate`` and ``stream``: Mastra's ``agentExecutionBodySchema``, plus
    ``release`` (``"live"`` or ``"step"``, D31) and ``inspect`` (``stream`` only: add the
    ``data-procession-hook`` notes of what each processor did, where the server allows it)."""

    messages: Messages
    instructions: Instructions | None = None
    system: Instructions | None = None
    context: list[JSONObject] | None = None
    memory: MemoryOption | None = None
    resourceId: NonEmpty | None = None  # noqa: N815
    threadId: NonEmpty | None = None  # noqa: N815
    runId: RunId | None = None  # noqa: N815
    requestContext: JSONObject | None = None  # noqa: N815
    maxSteps: Annotated[StrictInt, Field(ge=1, le=1000)] | None = None  # noqa: N815
    providerOptions: dict[str, JSONObject] | None = None  # noqa: N815
    modelSettings: ModelSettingsBody | None = None  # noqa: N815
    activeTools: list[StrictStr] | None = None  # noqa: N815
    toolChoice: Literal["auto", "none", "required"] | ToolChoiceTool | None = None  # noqa: N815
    structuredOutput: StructuredOutputBody | None = None  # noqa: N815
    release: Literal["live", "step"] | None = None
    inspect: StrictBool | None = None
    requireToolApproval: StrictBool | None = None  # noqa: N815


class ChatBody(_Body):
    """What the AI SDK's ``DefaultChatTransport`` posts: the chat ``id``, its UI
    ``messages``, the ``trigger`` and ``messageId``, plus whatever the page's ``body`` adds
    (``memory``, ``resourceId``, ``requestContext``, ``release``, ``inspect``)."""

    id: NonEmpty | None = None
    messages: Annotated[list[JSONObject], Field(min_length=1)]
    trigger: Literal["submit-message", "regenerate-message"] | None = None
    messageId: StrictStr | None = None  # noqa: N815
    memory: MemoryOption | None = None
    resourceId: NonEmpty | None = None  # noqa: N815
    threadId: NonEmpty | None = None  # noqa: N815
    requestContext: JSONObject | None = None  # noqa: N815
    release: Literal["live", "step"] | None = None
    inspect: StrictBool | None = None


class CreateThreadBody(_Body):
    """``POST /api/memory/threads``."""

    resourceId: NonEmpty | None = None  # noqa: N815
    threadId: NonEmpty | None = None  # noqa: N815
    title: StrictStr | None = None
    metadata: JSONObject | None = None


class UpdateThreadBody(_Body):
    """``PATCH /api/memory/threads/{threadId}``."""

    resourceId: NonEmpty | None = None  # noqa: N815
    title: StrictStr | None = None
    metadata: JSONObject | None = None


class WorkingMemoryBody(_Body):
    """``POST /api/memory/threads/{threadId}/working-memory``."""

    workingMemory: StrictStr  # noqa: N815
    resourceId: NonEmpty | None = None  # noqa: N815


class ToolApprovalBody(_Body):
    """``POST /api/agents/{agentId}/send-tool-approval``: a decision on a waiting tool call."""

    toolCallId: NonEmpty  # noqa: N815
    approved: StrictBool
    reason: StrictStr | None = None
    runId: RunId | None = None  # noqa: N815
    resourceId: NonEmpty | None = None  # noqa: N815
    threadId: NonEmpty | None = None  # noqa: N815


class MessageRef(BaseModel):
    """A message given as an object: ``{"id": "..."}``."""

    id: NonEmpty


class DeleteMessagesBody(_Body):
    """``POST /api/memory/messages/delete``: one id, ids, or ``{id}`` objects."""

    messageIds: NonEmpty | MessageRef | list[NonEmpty | MessageRef]  # noqa: N815

    def ids(self) -> list[str]:
        """The ids, as strings."""
        items = self.messageIds if isinstance(self.messageIds, list) else [self.messageIds]
        return [item if isinstance(item, str) else item.id for item in items]


_UNSUPPORTED = {
    "clientTools": "client-side tools are not supported",
    "toolsets": "toolsets are not supported; give the agent its tools",
    "model": "the model is chosen by the agent, not per request",
    "untilIdle": "streaming until idle is not supported",
    "savePerStep": "a run is stored once, when it completes (D13)",
    "output": "use structuredOutput",
    "experimental_output": "use structuredOutput",
}


def parse_body(model: type[T], data: object) -> T:
    """Validate ``data`` as ``model``; ``HTTPError(422)`` naming every wrong field."""
    if not isinstance(data, dict):
        raise HTTPError.invalid("body", "must be a JSON object")
    try:
        body = model.model_validate(data)
    except ValidationError as exc:
        issues = [issue(_path(e["loc"]), e["msg"]) for e in exc.errors(include_url=False)]
        raise HTTPError(422, f"Invalid request: {_summary(issues)}", issues=issues) from None
    extra = body.model_extra or {}
    refused = [
        issue(name, reason)
        for name, reason in _UNSUPPORTED.items()
        if extra.get(name) not in (None, False, {}, [])
    ]
    if refused:
        raise HTTPError(422, f"Invalid request: {_summary(refused)}", issues=refused)
    return body


_TAGS = frozenset({"str", "int", "float", "bool", "dict", "list"})


def _path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _TAGS or "[" in part or "-" in part or part[:1].isupper():
            continue  # pydantic names the union member it tried; the field is what matters
        else:
            out += f".{part}" if out else str(part)
    return out or "body"


def _summary(issues: list[Issue]) -> str:
    first = issues[0]
    more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
    return f"{first['field']}: {first['message']}{more}"
