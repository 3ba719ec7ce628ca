"""Configuration of :class:`~procession.memory.Memory`: working memory and semantic recall."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from procession.errors import ConfigurationError
from procession.memory import _options as opt
from procession.memory.embedding import Embedder

__all__ = ["DEFAULT_TEMPLATE", "MemoryScope", "SemanticRecallConfig", "WorkingMemoryConfig"]

MemoryScope = Literal["thread", "resource"]
"""Who shares working memory or recall: one ``thread``, or every thread of a ``resource``."""

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
        _check_scope("WorkingMemoryConfig", self.scope)
        if self.template is not None and not isinstance(self.template, str):
            raise ConfigurationError(
                "WorkingMemoryConfig: template must be Markdown text or None "
                f"(got {self.template!r})"
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
        owner = "SemanticRecallConfig"
        opt.integer(owner, "top_k", self.top_k, 1)
        _check_scope(owner, self.scope)
        _range(self.message_range)
        if self.threshold is not None:
            opt.number(owner, "threshold", self.threshold, -1.0, 1.0)
        if self.embedder is not None and not isinstance(self.embedder, Embedder):
            raise ConfigurationError(
                f"{owner}: embedder must have `dimensions` and `async embed(texts)` "
                f"(got {self.embedder!r})"
            )

    @property
    def range(self) -> tuple[int, int]:
        """``(before, after)``."""
        return _range(self.message_range)


def _check_scope(owner: str, scope: object) -> None:
    if scope not in ("thread", "resource"):
        raise ConfigurationError(f"{owner}: scope must be 'thread' or 'resource' (got {scope!r})")


def _range(value: object) -> tuple[int, int]:
    """``message_range`` as ``(before, after)``: an int, or a pair of ints, each >= 0."""
    pair = value if isinstance(value, tuple) and len(value) == 2 else (value, value)
    ints = [v for v in pair if isinstance(v, int) and not isinstance(v, bool) and v >= 0]
    if len(ints) != 2:
        raise ConfigurationError(
            "SemanticRecallConfig: message_range must be an int >= 0 or a pair (before, after) "
            f"of ints >= 0 (got {value!r})"
        )
    return (ints[0], ints[1])
