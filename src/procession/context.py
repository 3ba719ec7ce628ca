"""Per-request context handed to every hook: ``RequestContext`` and ``TracingContext``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, overload

__all__ = ["ContextKey", "RequestContext", "TracingContext"]

T = TypeVar("T")

THREAD_ID = "thread_id"
RESOURCE_ID = "resource_id"


@dataclass(frozen=True, slots=True)
class ContextKey(Generic[T]):
    """A typed key for :class:`RequestContext`: ``BLOCKED = ContextKey[list[str]]("blocked")``."""

    name: str


class RequestContext:
    """A key/value store scoped to one request, carried through the whole run.

    It holds the run's ``thread_id`` and ``resource_id`` and anything the caller puts in.
    Keys are strings or :class:`ContextKey` objects (which carry the value's type).
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        self._values: dict[str, Any] = {**(values or {}), **kwargs}

    @overload
    def get(self, key: ContextKey[T]) -> T | None: ...
    @overload
    def get(self, key: ContextKey[T], default: T) -> T: ...
    @overload
    def get(self, key: str, default: Any = None) -> Any: ...
    def get(self, key: str | ContextKey[Any], default: Any = None) -> Any:
        """The value under ``key``, or ``default``."""
        name = key.name if isinstance(key, ContextKey) else key
        return self._values.get(name, default)

    def set(self, key: str | ContextKey[T], value: T) -> None:
        """Store ``value`` under ``key``."""
        self._values[key.name if isinstance(key, ContextKey) else key] = value

    def delete(self, key: str | ContextKey[Any]) -> None:
        """Remove ``key`` if present."""
        self._values.pop(key.name if isinstance(key, ContextKey) else key, None)

    def __contains__(self, key: object) -> bool:
        name = key.name if isinstance(key, ContextKey) else key
        return name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def to_dict(self) -> dict[str, Any]:
        """A shallow copy of every key and value."""
        return dict(self._values)

    @property
    def thread_id(self) -> str | None:
        """The memory thread of this request, if any."""
        value = self._values.get(THREAD_ID)
        return value if isinstance(value, str) else None

    @thread_id.setter
    def thread_id(self, value: str | None) -> None:
        self._values[THREAD_ID] = value

    @property
    def resource_id(self) -> str | None:
        """The resource (user, tenant) that owns the thread, if any."""
        value = self._values.get(RESOURCE_ID)
        return value if isinstance(value, str) else None

    @resource_id.setter
    def resource_id(self, value: str | None) -> None:
        self._values[RESOURCE_ID] = value

    def __repr__(self) -> str:
        return f"RequestContext({self._values!r})"


@dataclass(frozen=True, slots=True)
class TracingContext:
    """The run's identity, handed to every hook for observability.

    Spans are added by the tracing integration; until then this carries the ids a hook needs
    to correlate its own logs.
    """

    run_id: str
    agent_id: str
    trace_id: str | None = None
    parent_span_id: str | None = None
