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
    ├── StructuredOutputError   the model's final output does not match the requested schema
    └── StorageError            a memory storage backend failed or refused a call
        ├── ThreadOwnershipError  a thread (or message) belongs to another resource
        ├── MessageThreadError    a message id is already stored in another thread
        ├── InvalidRecordError    a record storage will not write (also a MessageError)
        └── CorruptRecordError    a stored row does not decode; names thread and message
    TripWire                    raised by ``abort()``; ends the run or asks for a retry
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Generic

from typing_extensions import TypeVar

__all__ = [
    "APICallError",
    "ConfigurationError",
    "CorruptRecordError",
    "InvalidRecordError",
    "MessageError",
    "MessageThreadError",
    "ModelError",
    "ProcessionError",
    "ProcessorError",
    "StorageError",
    "StructuredOutputError",
    "ThreadOwnershipError",
    "ToolError",
    "TripWire",
    "UnknownModelError",
]

MetadataT = TypeVar("MetadataT", default=Any)


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
            text += f" (got {_short_repr(value)})"
        super().__init__(text)


class ConfigurationError(ProcessionError, ValueError):
    """An agent, a processor lane, a tool or a model was configured wrongly."""


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
        status_code: The HTTP status, or ``None`` for transport failures.
        response_body: The raw response body, when there was one.
        response_headers: The response headers (lower-case names).
        is_retryable: Whether the model layer may retry the call by itself.
        url: The URL that was called, when known.
        request_body: The request body that was sent, when known.
        data: Provider-specific error data parsed from the body, when known.
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
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code
        self.response_body = response_body
        self.response_headers: dict[str, str] = {
            k.lower(): v for k, v in (response_headers or {}).items()
        }
        if is_retryable is None:
            is_retryable = (
                status_code is None or status_code in (408, 409, 429) or (status_code >= 500)
            )
        self.is_retryable = is_retryable
        self.url = url
        self.request_body = request_body
        self.data = data

    @property
    def retry_after(self) -> float | None:
        """Seconds the provider asked us to wait (``retry-after`` or ``retry-after-ms``)."""
        headers = self.response_headers
        if "retry-after-ms" in headers:
            try:
                return float(headers["retry-after-ms"]) / 1000.0
            except ValueError:
                return None
        if "retry-after" in headers:
            try:
                return float(headers["retry-after"])
            except ValueError:
                return None
        return None

    def __repr__(self) -> str:
        return f"APICallError({self.message!r}, status_code={self.status_code!r})"


class ToolError(ProcessionError):
    """A tool raised, or was called with arguments that do not validate.

    Inside a run this never escapes: it becomes a ``tool-error`` chunk and an
    ``output-error`` tool part, and the model sees the error text.
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
    """

    def __init__(
        self, thread_id: str, resource_id: str, owner_resource_id: str, *, kind: str = "thread"
    ) -> None:
        self.thread_id = thread_id
        self.resource_id = resource_id
        self.owner_resource_id = owner_resource_id
        super().__init__(
            f"{kind} {thread_id!r} belongs to resource {owner_resource_id!r}, "
            f"not to resource {resource_id!r}"
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


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
