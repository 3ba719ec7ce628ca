"""The provider-neutral streaming model interface, modelled on the AI SDK's LanguageModelV2.

A model takes :class:`ModelCallOptions` (prompt, tools, tool choice, provider options and
settings) and returns a :class:`StreamResult` whose ``stream`` yields :class:`~procession.Chunk`
objects in procession's vocabulary (see :mod:`procession.chunks`), ending with a ``finish``
chunk. A rejected call raises :class:`~procession.errors.APICallError`, before the stream or
from inside it; a model may also yield an ``error`` chunk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import field
from typing import Any, Literal, Protocol, TypeAlias, TypedDict, runtime_checkable

from procession._records import record
from procession.chunks import Chunk
from procession.messages.formats import Prompt
from procession.signals import AbortSignal

__all__ = [
    "LanguageModel",
    "ModelCallOptions",
    "ModelSettings",
    "ResponseFormat",
    "StreamResult",
    "ToolChoice",
    "ToolDefinition",
    "normalize_tool_choice",
]


class ToolDefinition(TypedDict):
    """A function tool as the model sees it."""

    type: Literal["function"]
    name: str
    description: str
    inputSchema: dict[str, Any]


ToolChoice: TypeAlias = str | dict[str, Any]
"""``"auto"``, ``"none"``, ``"required"`` or ``{"type": "tool", "toolName": name}``."""


class ModelSettings(TypedDict, total=False):
    """Call settings (the AI SDK's ``CallSettings``, snake_case)."""

    temperature: float
    max_output_tokens: int
    top_p: float
    top_k: int
    presence_penalty: float
    frequency_penalty: float
    stop_sequences: list[str]
    seed: int
    max_retries: int
    headers: dict[str, str]


class ResponseFormat(TypedDict, total=False):
    """Ask for JSON output, optionally against a JSON schema (native structured output)."""

    type: Literal["json", "text"]
    schema: dict[str, Any]
    name: str
    description: str


@record(slots=True, kw_only=True)
class ModelCallOptions:
    """Everything one model call receives."""

    prompt: Prompt
    tools: list[ToolDefinition] = field(default_factory=list)
    tool_choice: dict[str, Any] = field(default_factory=lambda: {"type": "auto"})
    provider_options: dict[str, Any] = field(default_factory=dict)
    settings: ModelSettings = field(default_factory=lambda: ModelSettings())
    response_format: ResponseFormat | None = None
    abort_signal: AbortSignal | None = None


@record(slots=True, kw_only=True)
class StreamResult:
    """What :meth:`LanguageModel.do_stream` returns."""

    stream: AsyncIterator[Chunk]
    request: dict[str, Any] = field(default_factory=dict)
    """The request as sent, e.g. ``{"body": ...}``."""
    response: dict[str, Any] = field(default_factory=dict)
    """Response details known before the stream, e.g. ``{"headers": ...}``."""
    warnings: list[dict[str, Any]] = field(default_factory=list)


@runtime_checkable
class LanguageModel(Protocol):
    """A streaming language model.

    Attributes:
        provider: The provider name, such as ``"openai"``.
        model_id: The provider's model id, such as ``"gpt-5-mini"``.
        specification_version: Always ``"v2"`` for now.
        supports_structured_output: Whether ``response_format`` with a schema is honoured
            natively; otherwise the agent instructs the model and validates.
    """

    provider: str
    model_id: str
    specification_version: str
    supports_structured_output: bool

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed call."""
        ...


def normalize_tool_choice(choice: object) -> dict[str, Any]:
    """``"auto"`` and friends to the AI SDK's ``{"type": ...}`` form; a tool name string that
    is not a keyword means that tool."""
    if isinstance(choice, dict):
        kind = choice.get("type")
        if kind in ("auto", "none", "required"):
            return {"type": kind}
        if kind == "tool" and isinstance(choice.get("toolName"), str):
            return {"type": "tool", "toolName": choice["toolName"]}
        raise ValueError(f"tool_choice: unknown form {choice!r}")
    if choice is None:
        return {"type": "auto"}
    if choice in ("auto", "none", "required"):
        return {"type": choice}
    if isinstance(choice, str):
        return {"type": "tool", "toolName": choice}
    raise ValueError(f"tool_choice: must be 'auto', 'none', 'required' or a tool (got {choice!r})")
