"""Configuration of :class:`~procession.memory.Memory`: working memory and semantic recall."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from procession.errors import ConfigurationError
from procession.memory.embedding import Embedder

__all__ = ["DEFAULT_TEMPLATE", "MemoryScope", "SemanticRecallConfig", "WorkingMemoryConfig"]

MemoryScope = Literal["thread", "resource"]

DEFAULT_TEMPLATE = """# User Information
- **First Name**:
- **Last Name**:
- **Location**:
- **Occupation**:
- **Interests**:
- **Goals**:
- **Events**:
- **Facts**:
- **Projects**:
"""
"""The working-memory template used when neither ``template`` nor ``schema`` is given
(Mastra's)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkingMemoryConfig:
    """Working memory: notes the model keeps up to date with the ``update_working_memory`` tool.

    Attributes:
        scope: ``"resource"`` (default, as Mastra: shared by every thread of the resource) or
            ``"thread"`` (one per thread).
        template: Markdown the notes follow (default :data:`DEFAULT_TEMPLATE`). The model
            replaces the whole text on each update.
        schema: A pydantic model class or a JSON schema: the notes are a JSON object, validated
            on every update (the tool refuses an invalid one and the model sees why). Exclusive
            with ``template``.
    """

    scope: MemoryScope = "resource"
    template: str | None = None
    schema: Any = None

    def __post_init__(self) -> None:
        if self.scope not in ("thread", "resource"):
            raise ConfigurationError(
                f"WorkingMemoryConfig: scope must be 'thread' or 'resource' (got {self.scope!r})"
            )
        if self.template is not None and self.schema is not None:
            raise ConfigurationError("WorkingMemoryConfig: give a template or a schema, not both")
        if self.schema is not None and not _is_schema(self.schema):
            raise ConfigurationError(
                "WorkingMemoryConfig: schema must be a pydantic model class or a JSON schema "
                f"dict (got {self.schema!r})"
            )


def _is_schema(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(value)
    return isinstance(value, type) and callable(getattr(value, "model_json_schema", None))


@dataclass(frozen=True, slots=True, kw_only=True)
class SemanticRecallConfig:
    """Semantic recall: stored messages similar to the latest user message join the prompt.

    Attributes:
        top_k: How many similar messages to recall (default 4).
        message_range: Neighbours recalled around each match: ``n`` for ``n`` before and
            after, or ``(before, after)`` (default 1).
        scope: Search every thread of the resource (``"resource"``, default, as Mastra) or
            only the current thread (``"thread"``).
        threshold: Minimum cosine similarity of a match (default: none).
        embedder: The :class:`~procession.memory.embedding.Embedder` (default: the offline
            MiniLM embedder).
    """

    top_k: int = 4
    message_range: int | tuple[int, int] = 1
    scope: MemoryScope = "resource"
    threshold: float | None = None
    embedder: Embedder | None = None

    def __post_init__(self) -> None:
        if self.top_k < 1:
            raise ConfigurationError("SemanticRecallConfig: top_k must be at least 1")
        if self.scope not in ("thread", "resource"):
            raise ConfigurationError(
                f"SemanticRecallConfig: scope must be 'thread' or 'resource' (got {self.scope!r})"
            )
        before, after = self.range
        if before < 0 or after < 0:
            raise ConfigurationError("SemanticRecallConfig: message_range must not be negative")
        if self.embedder is not None and not isinstance(self.embedder, Embedder):
            raise ConfigurationError(
                "SemanticRecallConfig: embedder must have `dimensions` and `async embed(texts)`"
            )

    @property
    def range(self) -> tuple[int, int]:
        """``(before, after)``."""
        value = self.message_range
        if isinstance(value, int):
            return (value, value)
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
            return value
        raise ConfigurationError(
            f"SemanticRecallConfig: message_range must be an int or (before, after) (got {value!r})"
        )
