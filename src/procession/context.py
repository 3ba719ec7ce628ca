"""Per-request context handed to every hook: ``RequestContext`` and ``TracingContext``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Generic, TypeVar, overload

from procession._records import record

__all__ = ["ContextKey", "RequestContext", "TracingContext"]

T = TypeVar("T")

THREAD_ID = "thread_id"
RESOURCE_ID = "resource_id"


@record(frozen=True, slots=True)
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


class TracingContext:
    """The run's identity and its current span, handed to every hook for observability.

    With OpenTelemetry configured, ``span`` is the span of the hook being called (for
    ``process_output_stream``, the step's span) and :meth:`start_span` opens a child of it, so a
    processor's own work shows under its hook in a trace. Without it, ``span`` is ``None`` and
    :meth:`start_span` costs nothing.

    Attributes:
        run_id: The run's id.
        agent_id: The agent's id.
        span: The current OpenTelemetry span, or ``None`` when tracing is off.
    """

    __slots__ = ("agent_id", "run_id", "span", "tracer")

    def __init__(self, run_id: str, agent_id: str, span: Any = None, tracer: Any = None) -> None:
        self.run_id = run_id
        self.agent_id = agent_id
        self.span = span
        self.tracer = tracer
        """The run's OpenTelemetry tracer, when tracing is on."""

    @property
    def trace_id(self) -> str | None:
        """The current trace's id (32 hex digits), when tracing is on."""
        return None if self.span is None else f"{self.span.get_span_context().trace_id:032x}"

    @property
    def parent_span_id(self) -> str | None:
        """The current span's id (16 hex digits), when tracing is on."""
        return None if self.span is None else f"{self.span.get_span_context().span_id:016x}"

    def start_span(
        self, name: str, attributes: Mapping[str, Any] | None = None
    ) -> AbstractContextManager[Any]:
        """A child span of the current one (a context manager), or a no-op without tracing."""
        if self.span is None or self.tracer is None:
            return nullcontext()
        from opentelemetry import trace

        context = trace.set_span_in_context(self.span)
        started: AbstractContextManager[Any] = self.tracer.start_as_current_span(
            name, context=context, attributes=attributes
        )
        return started

    def __repr__(self) -> str:
        return f"TracingContext(run_id={self.run_id!r}, agent_id={self.agent_id!r})"
