"""The exception tree.

Every error procession raises on purpose derives from :class:`ProcessionError`, so callers can
catch one name. Control flow is kept apart: :class:`TripWire` (raised by a processor's
``abort()``) is not an error and does not derive from it.

::

    ProcessionError
    ├── MessageError            a message, part or MessageList call was malformed
    ├── ConfigurationError      an Agent, a lane or a tool was set up wrongly
    ├── ProcessorError          a processor raised, or returned something it may not return
    ├── ModelError
    │   ├── APICallError        the provider rejected the call or the transport failed
    │   └── UnknownModelError   a "provider/model" id that no provider answers to
    ├── ToolError               a tool raised, or received arguments that do not validate
    │   └── MCPConnectionError  an MCP server could not be started or reached, or went away
    ├── StructuredOutputError   the model's final output does not match the requested schema
    └── StorageError            a memory storage backend failed or refused a call
        ├── ThreadOwnershipError  a thread (or message) belongs to another resource
        ├── MessageThreadError    a message id is already stored in another thread
        ├── InvalidRecordError    a record storage will not write (also a MessageError)
        └── CorruptRecordError    a stored row does not decode; names thread and message
    TripWire                    raised by ``abort()``; ends the run or asks for a retry
"""

from __future__ import annotations

import math
import time
import typing
from collections.abc import Mapping
from datetime import UTC
from typing import TYPE_CHECKING, Any, Generic

__all__ = [
    "APICallError",
    "ConfigurationError",
    "CorruptRecordError",
    "InvalidRecordError",
    "MCPConnectionError",
    "MessageError",
    "MessageThreadError",
    "ModelError",
    "ProcessionError",
    "ProcessorError",
    "StorageError",
    "StructuredOutputError",
    "ThreadBusyError",
    "ThreadLockLostError",
    "ThreadOwnershipError",
    "ToolError",
    "TripWire",
    "UnknownModelError",
    "short_repr",
]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    MetadataT = TypeVar("MetadataT", default=Any)
    """The type of a tripwire's metadata (``Any`` unless narrowed)."""
else:  # the default is for type checkers: no typing_extensions at run time (0381)
    MetadataT = typing.TypeVar("MetadataT")


class ProcessionError(Exception):
    """Base class of every error procession raises on purpose."""


class MessageError(ProcessionError, ValueError):
    """A message, a part or a MessageList operation was malformed.

    The text names the field (as a path such as ``content.parts[2].toolInvocation.state``)
    and the offending value.
    """

    def __init__(self, path: str, problem: str, value: object = ...) -> None:
        self.path = path
        self.problem = problem
        self.value = value
        text = f"{path}: {problem}" if path else problem
        if value is not ...:
            text += f" (got {short_repr(value)})"
        super().__init__(text)


class ConfigurationError(ProcessionError, ValueError):
    """An agent, a processor lane, a tool or a model was configured wrongly."""


class ModelSetupError(ConfigurationError):
    """An agent's model cannot be built where it runs: its provider key is not set, its SDK
    is not installed. The server's mistake, never the caller's (a server answers 500)."""


class ProcessorError(ProcessionError):
    """A processor raised, or returned a value its hook may not return.

    Attributes:
        processor_id: The id of the processor at fault.
        hook: The hook's snake_case name, such as ``process_output_stream``.
    """

    def __init__(self, processor_id: str, hook: str, problem: str) -> None:
        self.processor_id = processor_id
        self.hook = hook
        self.problem = problem
        super().__init__(f"processor {processor_id!r} in {hook}: {problem}")


class ModelError(ProcessionError):
    """Something went wrong talking to a language model."""


class UnknownModelError(ModelError, LookupError):
    """A ``"provider/model"`` id that no registered provider answers to."""


class APICallError(ModelError):
    """The provider rejected a model call, or the transport failed.

    The shape follows the AI SDK's ``APICallError`` so error processors written against Mastra
    read the same fields.

    Attributes:
        status_code: The HTTP status, or ``None`` for transport failures. For an error reported
            inside a stream (HTTP 200), the status its code stands for when the adapter knows
            it (OpenRouter's numeric ``code: 502``, OpenAI's ``rate_limit_exceeded`` -> 429).
        response_body: The raw response body, when there was one.
        response_headers: The response headers (lower-case names).
        is_retryable: Whether the model layer may retry the call by itself. Unless the adapter
            decides, the server's ``x-should-retry: true|false`` header decides, else the
            status: 408, 409, 429, 5xx and transport failures are retryable.
        url: The URL that was called, when known.
        request_body: The request body that was sent, when known.
        data: Provider-specific error data parsed from the body, when known.
        retry_after: The delay (seconds) named in the response body, such as Gemini's
            ``RetryInfo.retryDelay``; it wins over the ``Retry-After`` headers.
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        response_body: str | None = None,
        response_headers: Mapping[str, str] | None = None,
        is_retryable: bool | None = None,
        url: str | None = None,
        request_body: object = None,
        data: object = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.response_body = response_body
        self.response_headers: dict[str, str] = {
            k.lower(): v for k, v in (response_headers or {}).items()
        }
        if is_retryable is None:
            is_retryable = _default_retryable(status_code, self.response_headers)
        self.is_retryable = is_retryable
        self.url = url
        self.request_body = request_body
        self.data = data
        self._retry_after = retry_after

    @property
    def retry_after(self) -> float | None:
        """Seconds the provider asked us to wait, or ``None``.

        An explicit ``retry_after`` given to the constructor (a delay read from the response
        body, such as Gemini's ``RetryInfo``) wins; else the ``retry-after-ms`` header, else
        ``retry-after`` as seconds or as an HTTP date (the time left until it, at least 0).
        """
        if self._retry_after is not None:
            return self._retry_after
        return _retry_after_from_headers(self.response_headers)

    def __repr__(self) -> str:
        return f"APICallError({self.message!r}, status_code={self.status_code!r})"


def _default_retryable(status_code: int | None, headers: Mapping[str, str]) -> bool:
    should = headers.get("x-should-retry", "").strip().lower()
    if should == "true":
        return True
    if should == "false":
        return False
    return status_code is None or status_code in (408, 409, 429) or status_code >= 500


def _retry_after_from_headers(
    headers: Mapping[str, str], *, now: float | None = None
) -> float | None:
    """The delay a response's ``retry-after-ms`` / ``retry-after`` headers ask for, in seconds.

    ``headers`` must have lower-case names. ``retry-after`` may be a number of seconds or an
    HTTP date (RFC 9110); a date in the past gives ``0.0``. Unreadable or negative values give
    ``None``. ``now`` (a Unix time) is for tests.
    """
    millis = _non_negative(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _non_negative(value)
    if seconds is not None:
        return seconds
    try:
        import email.utils  # only for an HTTP-date Retry-After; costs milliseconds to import

        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is always GMT
        when = when.replace(tzinfo=UTC)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def _non_negative(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None


class ToolError(ProcessionError):
    """A tool raised, or was called with arguments that do not validate.

    Inside a run this never escapes: it becomes a ``tool-error`` chunk and an
    ``output-error`` tool part, and the model sees the error text.
    """


class MCPConnectionError(ToolError, ConnectionError):
    """An MCP server could not be started or reached, or its connection was lost.

    Raised by ``MCPClient`` when it connects; inside a run, a tool call that meets it becomes a
    ``tool-error`` like any :class:`ToolError`. The text names the server and, for a server
    run over stdio, ends with the last lines it wrote to stderr.
    """


class StructuredOutputError(ProcessionError, ValueError):
    """The model's final output does not match the requested structured-output schema."""


class StorageError(ProcessionError):
    """A memory storage backend failed, or refused a call (see :mod:`procession.memory`)."""


class ThreadOwnershipError(StorageError, PermissionError):
    """A call named a thread or message that belongs to another resource.

    Nothing of the other resource's thread is read or changed.

    Attributes:
        thread_id: The thread (or, for a message, its id) the call named.
        resource_id: The resource the call was made for.
        owner_resource_id: The resource that owns the thread.
        kind: ``"thread"``, or ``"message"`` when ``thread_id`` is a message's id.
    """

    def __init__(
        self, thread_id: str, resource_id: str, owner_resource_id: str, *, kind: str = "thread"
    ) -> None:
        self.kind = kind
        self.thread_id = thread_id
        self.resource_id = resource_id
        self.owner_resource_id = owner_resource_id
        super().__init__(
            f"{kind} {thread_id!r} belongs to resource {owner_resource_id!r}, "
            f"not to resource {resource_id!r}"
        )


class ThreadBusyError(StorageError):
    """Another turn held the thread for longer than this turn would wait (the server answers
    409): turns on one thread never interleave, in one process or across replicas.

    Attributes:
        thread_id: The thread.
        timeout: How long the turn waited (seconds).
    """

    def __init__(self, thread_id: str, timeout: float) -> None:
        self.thread_id = thread_id
        self.timeout = timeout
        super().__init__(
            f"thread {thread_id!r} is busy: another turn held it for more than {timeout:g} s"
        )


class ThreadLockLostError(StorageError):
    """A turn lost its thread's lock before it was stored (the lock connection dropped, or
    another turn took the thread since): nothing of the turn is stored (D13), and the server
    answers 409 or ends the stream with an error chunk naming the thread.

    Attributes:
        thread_id: The thread.
    """

    def __init__(self, thread_id: str) -> None:
        self.thread_id = thread_id
        super().__init__(
            f"thread {thread_id!r}: this turn lost its thread lock (another turn may have "
            "taken the thread); nothing of it was stored, send it again"
        )


class MessageThreadError(StorageError):
    """A message id is already stored in another thread of the resource (D34).

    A stored message never moves between threads: nothing of the call is written.

    Attributes:
        message_id: The message id.
        thread_id: The thread the call named.
        stored_thread_id: The thread that holds the message.
    """

    def __init__(self, message_id: str, thread_id: str, stored_thread_id: str) -> None:
        self.message_id = message_id
        self.thread_id = thread_id
        self.stored_thread_id = stored_thread_id
        super().__init__(
            f"message {message_id!r} is stored in thread {stored_thread_id!r}, not in thread "
            f"{thread_id!r}: a stored message never moves between threads"
        )


class InvalidRecordError(StorageError, MessageError):
    """A record storage will not write, so nothing of the call is written.

    Either a later run could not load it back (a field the codec would refuse on read, D30), or
    it holds a value some backend cannot store, such as a NUL character (D34): every backend
    refuses the same values with this error. It is both a ``StorageError`` and a
    ``MessageError``.

    Attributes:
        thread_id: The thread of the record, when known.
        message_id: The message of the record, when it is a message.
        path: The field, such as ``content.parts[0].text`` (``thread_id`` for an id).
        problem: What is wrong with it.
        value: The offending value.
    """

    def __init__(
        self,
        path: str,
        problem: str,
        value: object = ...,
        *,
        thread_id: str | None = None,
        message_id: str | None = None,
    ) -> None:
        MessageError.__init__(self, path, problem, value)
        self.thread_id = thread_id
        self.message_id = message_id
        where = [f"thread {thread_id!r}"] if thread_id is not None else []
        if message_id is not None:
            where.append(f"message {message_id!r}")
        if where:
            self.args = (f"{', '.join(where)}: {self.args[0]}",)


class CorruptRecordError(StorageError):
    """A stored row could not be decoded.

    Attributes:
        thread_id: The thread the row belongs to.
        message_id: The message id of the row, or ``None`` for a thread or resource row.
        problem: What was wrong with it.
    """

    def __init__(self, thread_id: str, message_id: str | None, problem: str) -> None:
        self.thread_id = thread_id
        self.message_id = message_id
        self.problem = problem
        where = f"thread {thread_id!r}"
        if message_id is not None:
            where += f", message {message_id!r}"
        super().__init__(f"corrupt stored row ({where}): {problem}")


class TripWire(Exception, Generic[MetadataT]):  # noqa: N818 - the seed's name
    """Raised by a processor's ``abort()`` to stop the run, or to ask for a retry.

    Processors normally call ``abort(reason, retry=..., metadata=...)``; raising ``TripWire``
    directly works too (the runner then fills in the processor id).

    Attributes:
        reason: Human-readable explanation, reported as ``tripwire.payload.reason``.
        retry: Ask the agent to retry the step with ``reason`` as feedback.
        metadata: Structured data for downstream consumers.
        processor_id: The processor that aborted.
    """

    def __init__(
        self,
        reason: str,
        *,
        retry: bool = False,
        metadata: MetadataT | None = None,
        processor_id: str | None = None,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry = retry
        self.metadata = metadata
        self.processor_id = processor_id
        self.hook: str | None = None
        """The hook that raised it, filled in by the runner."""

    def payload(self) -> dict[str, Any]:
        """The tripwire payload in Mastra's wire shape."""
        return {
            "reason": self.reason,
            "retry": self.retry,
            "metadata": self.metadata,
            "processorId": self.processor_id,
        }


def short_repr(value: object, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
