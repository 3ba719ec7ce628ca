"""The chunk vocabulary: what a stream carries, in Mastra's wire shapes (D22).

An ordinary chunk is ``{type, runId, from, payload}`` with Mastra's payload fields (camelCase,
since the payload *is* the wire form); a ``data-*`` chunk is ``{type, data, id?, transient?}``.
One slotted class, :class:`Chunk`, holds both, so the per-chunk path allocates one object.

Types a model stream produces: ``response-metadata``, ``text-start``/``-delta``/``-end``,
``reasoning-start``/``-delta``/``-end``, ``source``, ``file``,
``tool-call-input-streaming-start``, ``tool-call-delta``, ``tool-call-input-streaming-end``,
``tool-call``, ``tool-result`` (provider-executed tools), ``finish`` and ``error``. The loop adds
``start``, ``step-start``, ``tool-call-approval``, ``tool-result``, ``tool-error``,
``tool-output-denied``, ``step-finish``, ``finish``,
``tripwire``, ``object``, ``abort`` and ``data-*``.
"""

from __future__ import annotations

from typing import Any

from procession._records import record

__all__ = ["Chunk", "Usage", "check_chunk", "finish_chunk", "is_data_chunk"]


class Chunk:
    """One stream chunk.

    Attributes:
        type: The chunk type, such as ``"text-delta"`` or ``"data-progress"``.
        payload: Mastra's payload fields (``{"id": ..., "text": ...}`` for a text delta).
        run_id: The run this chunk belongs to.
        from_: Who produced it (``"AGENT"``); ``from`` on the wire.
        data: The data of a ``data-*`` chunk.
        id: The id of a ``data-*`` chunk, if any.
        transient: A ``data-*`` chunk that is streamed but never stored.
        metadata: Optional chunk metadata.
        execution_args: For a ``tool-call`` chunk, the arguments the tool runs with when they
            differ from ``payload["args"]``: a processor that redacts a call's arguments for
            display (client, messages, store) keeps the real ones here. ``None`` means
            ``payload["args"]``. Never serialised.
    """

    __slots__ = (
        "data",
        "execution_args",
        "from_",
        "id",
        "metadata",
        "payload",
        "run_id",
        "transient",
        "type",
    )

    def __init__(
        self,
        type: str,
        payload: dict[str, Any] | None = None,
        run_id: str = "",
        *,
        from_: str = "AGENT",
        data: Any = None,
        id: str | None = None,
        transient: bool = False,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.type = type
        self.payload: dict[str, Any] = payload if payload is not None else {}
        self.run_id = run_id
        self.from_ = from_
        self.data = data
        self.id = id
        self.transient = transient
        self.metadata = metadata
        self.execution_args: Any = None

    @classmethod
    def data_chunk(
        cls, type: str, data: Any, *, id: str | None = None, transient: bool = False
    ) -> Chunk:
        """A custom ``data-*`` chunk; ``type`` must start with ``data-``."""
        if not type.startswith("data-"):
            raise ValueError(f"a data chunk's type must start with 'data-' (got {type!r})")
        return cls(type, None, data=data, id=id, transient=transient)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Chunk:
        """Read a chunk from its wire form (either shape)."""
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise ValueError(f"a chunk needs a string 'type' (got {kind!r})")
        if kind.startswith("data-"):
            return cls(
                kind,
                None,
                data=obj.get("data"),
                id=obj.get("id"),
                transient=bool(obj.get("transient", False)),
            )
        payload = obj.get("payload")
        if payload is None and kind in ("object", "object-result"):
            payload = {"object": obj.get("object")}
        return cls(
            kind,
            dict(payload) if isinstance(payload, dict) else {},
            obj.get("runId", ""),
            from_=obj.get("from", "AGENT"),
            metadata=obj.get("metadata"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The wire form: Mastra's chunk shape."""
        if self.type.startswith("data-"):
            out: dict[str, Any] = {"type": self.type, "data": self.data}
            if self.id is not None:
                out["id"] = self.id
            if self.transient:
                out["transient"] = True
            return out
        if self.type in ("object", "object-result"):
            out = {"type": self.type, "runId": self.run_id, "from": self.from_}
            out["object"] = self.payload.get("object")
            return out
        out = {"type": self.type, "runId": self.run_id, "from": self.from_, "payload": self.payload}
        if self.metadata is not None:
            out["metadata"] = self.metadata
        return out

    def copy(self, **changes: Any) -> Chunk:
        """A shallow copy (the payload dict is copied too) with attributes replaced."""
        clone = Chunk(
            self.type,
            dict(self.payload),
            self.run_id,
            from_=self.from_,
            data=self.data,
            id=self.id,
            transient=self.transient,
            metadata=self.metadata,
        )
        clone.execution_args = self.execution_args
        for name, value in changes.items():
            setattr(clone, name, value)
        return clone

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Chunk):
            return NotImplemented
        return (
            self.type == other.type
            and self.payload == other.payload
            and self.data == other.data
            and self.id == other.id
            and self.transient == other.transient
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        if self.type.startswith("data-"):
            return f"Chunk({self.type!r}, data={self.data!r})"
        return f"Chunk({self.type!r}, {self.payload!r})"


_STR = (str,)
_REQUIRED: dict[str, tuple[tuple[str, tuple[type, ...]], ...]] = {
    "text-delta": (("text", _STR),),
    "reasoning-delta": (("text", _STR),),
    "tool-call": (("toolCallId", _STR), ("toolName", _STR)),
    "tool-call-delta": (("toolCallId", _STR), ("argsTextDelta", _STR)),
    "tool-call-input-streaming-start": (("toolCallId", _STR), ("toolName", _STR)),
    "tool-call-input-streaming-end": (("toolCallId", _STR),),
    "tool-result": (("toolCallId", _STR), ("toolName", _STR)),
    "tool-error": (("toolCallId", _STR), ("toolName", _STR)),
    "object": (),
}


def check_chunk(chunk: Chunk) -> str | None:
    """What is wrong with a chunk's shape for its type (D33), or ``None`` when it is fine.

    Checks the fields the runtime reads: ``type`` is a string, ``payload`` a dict, and the
    payload fields each known type needs (``text`` of a ``text-delta``, ``toolCallId`` and
    ``toolName`` of a ``tool-call``, ...) are present with the right type.
    """
    kind = chunk.type
    if type(kind) is not str or not kind:
        return f"'type' must be a non-empty string, got {kind!r}"
    if kind.startswith("data-"):
        return None
    payload = chunk.payload
    if type(payload) is not dict:
        return f"a {kind!r} chunk's payload must be a dict, got {type(payload).__name__}"
    for name, kinds in _REQUIRED.get(kind, ()):
        value = payload.get(name)
        if not isinstance(value, kinds):
            expected = " or ".join(k.__name__ for k in kinds)
            return f"a {kind!r} chunk needs payload[{name!r}] as {expected}, got {value!r}"
    return None


def is_data_chunk(chunk: Chunk) -> bool:
    """Whether a chunk is a custom ``data-*`` chunk."""
    return chunk.type.startswith("data-")


@record(slots=True)
class Usage:
    """Token usage of a step or a run. ``None`` means the provider did not say."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            _add(self.input_tokens, other.input_tokens),
            _add(self.output_tokens, other.output_tokens),
            _add(self.total_tokens, other.total_tokens),
            _add(self.reasoning_tokens, other.reasoning_tokens),
            _add(self.cached_input_tokens, other.cached_input_tokens),
        )

    def to_dict(self) -> dict[str, int | None]:
        """The wire form (``inputTokens``, ...); unknown optional fields are left out."""
        out: dict[str, int | None] = {
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "totalTokens": self.total_tokens,
        }
        if self.reasoning_tokens is not None:
            out["reasoningTokens"] = self.reasoning_tokens
        if self.cached_input_tokens is not None:
            out["cachedInputTokens"] = self.cached_input_tokens
        return out

    @classmethod
    def from_dict(cls, obj: dict[str, Any] | None) -> Usage:
        """Read the wire form."""
        if not obj:
            return cls()
        return cls(
            obj.get("inputTokens"),
            obj.get("outputTokens"),
            obj.get("totalTokens"),
            obj.get("reasoningTokens"),
            obj.get("cachedInputTokens"),
        )


def _add(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def finish_chunk(
    reason: str,
    usage: Usage | None = None,
    *,
    provider_metadata: dict[str, Any] | None = None,
    raw_reason: str | None = None,
) -> Chunk:
    """The ``finish`` chunk a model stream ends with.

    ``reason`` is one of ``stop``, ``length``, ``content-filter``, ``tool-calls``, ``error``,
    ``other`` or ``unknown``.
    """
    step_result: dict[str, Any] = {"reason": reason}
    if raw_reason is not None:
        step_result["rawReason"] = raw_reason
    payload: dict[str, Any] = {
        "stepResult": step_result,
        "output": {"usage": (usage or Usage()).to_dict()},
        "metadata": {"providerMetadata": provider_metadata} if provider_metadata else {},
    }
    if provider_metadata:
        payload["providerMetadata"] = provider_metadata
    return Chunk("finish", payload)
