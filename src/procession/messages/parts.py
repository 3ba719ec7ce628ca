"""Message parts: the typed pieces of a stored message's ``content.parts``.

Parts are slotted, **mutable** dataclasses with a ``type`` tag (D24): a processor may edit
``part.text`` in place and the change is seen downstream and persisted. Field names are the
snake_case forms of Mastra's; the codec (:mod:`procession.messages.codec`) maps them to
Mastra's camelCase JSON. Keys this library does not model are kept in ``extra`` so a message
read from Mastra is written back unchanged.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from procession.messages._tracking import tracked

__all__ = [
    "DataPart",
    "ErrorPart",
    "FilePart",
    "Part",
    "ReasoningPart",
    "SourceDocumentPart",
    "SourcePart",
    "StepStartPart",
    "TextPart",
    "ToolInvocation",
    "ToolInvocationPart",
    "ToolInvocationState",
    "UnknownPart",
]

JSON: TypeAlias = Any
ProviderMetadata: TypeAlias = dict[str, dict[str, Any]]

ToolInvocationState: TypeAlias = Literal[
    "partial-call",
    "call",
    "result",
    "output-error",
    "approval-requested",
    "approval-responded",
    "output-denied",
]
"""The states of a tool invocation part (the AI SDK's): streamed arguments, a call, its result,
its error, and the approval states."""
TOOL_INVOCATION_STATES: frozenset[str] = frozenset(
    (
        "partial-call",
        "call",
        "result",
        "output-error",
        "approval-requested",
        "approval-responded",
        "output-denied",
    )
)


@tracked(kw_only=True)
class TextPart:
    """Plain text."""

    text: str
    type: Literal["text"] = "text"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    """Epoch milliseconds, when the part records it."""
    extra: dict[str, Any] | None = None
    """Keys of the stored form that procession does not model, kept for round trips."""


@tracked(kw_only=True)
class ReasoningPart:
    """The model's reasoning, with provider details such as signatures or redacted blocks.

    ``details`` holds ``{"type": "text", "text": ..., "signature"?: ...}`` and
    ``{"type": "redacted", "data": ...}`` entries, as Mastra stores them.
    """

    reasoning: str
    details: list[dict[str, Any]]
    type: Literal["reasoning"] = "reasoning"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class ToolInvocation:
    """One tool call and, once it ran, its result or error."""

    state: ToolInvocationState
    tool_call_id: str
    tool_name: str
    args: JSON
    result: JSON = None
    """The tool's JSON-serializable result (state ``result``)."""
    is_error: bool | None = None
    error_text: str | None = None
    """The error message (state ``output-error``)."""
    raw_input: JSON = None
    approval: dict[str, Any] | None = None
    step: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class ToolInvocationPart:
    """A tool call made by the model, carrying its result once the tool ran."""

    tool_invocation: ToolInvocation
    type: Literal["tool-invocation"] = "tool-invocation"
    provider_executed: bool | None = None
    title: str | None = None
    preliminary: bool | None = None
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class SourcePart:
    """A URL source the model cited: ``{"sourceType": "url", "id", "url", "title"?}``."""

    source: dict[str, Any]
    type: Literal["source"] = "source"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class SourceDocumentPart:
    """A document source the model cited."""

    source_id: str
    media_type: str
    title: str
    filename: str | None = None
    type: Literal["source-document"] = "source-document"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class FilePart:
    """A file: ``data`` is base64 text or a URL."""

    mime_type: str
    data: str
    type: Literal["file"] = "file"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class StepStartPart:
    """Marks where a new step of the agentic loop begins inside a response message."""

    model: str | None = None
    type: Literal["step-start"] = "step-start"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class ErrorPart:
    """A terminal model failure recorded on the assistant message: ``{"name", "message"}``."""

    error: dict[str, Any]
    type: Literal["error"] = "error"
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked(kw_only=True)
class DataPart:
    """A custom ``data-*`` part, stored from a non-transient data chunk."""

    type: str
    """Always starts with ``data-``."""
    data: JSON
    id: str | None = None
    provider_metadata: ProviderMetadata | None = None
    created_at: int | None = None
    extra: dict[str, Any] | None = None


@tracked()
class UnknownPart:
    """A part of a type procession does not know, kept opaque so it round-trips unchanged (D24).

    ``raw`` is the part's stored JSON object, ``type`` included.
    """

    type: str
    raw: dict[str, Any]


Part: TypeAlias = (
    TextPart
    | ReasoningPart
    | ToolInvocationPart
    | SourcePart
    | SourceDocumentPart
    | FilePart
    | StepStartPart
    | ErrorPart
    | DataPart
    | UnknownPart
)
"""Every part a stored message may hold."""
