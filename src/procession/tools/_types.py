"""The tool value: what the model may call, the context a call receives, and how a result
becomes JSON. Building one from a function is :mod:`procession.tools._build`'s job.

Pydantic is imported only when a tool validates or converts, so ``import procession`` stays
fast.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any, TypeAlias

from procession._records import record
from procession.errors import ToolError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from procession.context import RequestContext
    from procession.signals import AbortSignal

__all__ = ["Tool", "ToolContext", "ToolFunction", "ToolWriter", "to_jsonable"]


class ToolWriter:
    """The writer a tool receives (D27): ``writer.custom({...})`` emits a ``data-*`` chunk,
    ``writer.write(value)`` a ``tool-output`` chunk carrying ``value`` (Mastra's)."""

    __slots__ = ("_emit", "_write")

    def __init__(
        self,
        emit: Callable[[Any, str | None], Awaitable[None]],
        write: Callable[[Any], Awaitable[None]] | None = None,
    ) -> None:
        self._emit = emit
        self._write = write

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Enqueue a ``data-*`` chunk at once; the returned awaitable may be awaited or not."""
        return self._emit(chunk, message_id)

    def write(self, value: Any) -> Awaitable[None]:
        """Enqueue a ``tool-output`` chunk, ``{"output": value, "toolCallId", "toolName"}``,
        for the output processors and the client (Mastra's ``writer.write``); a sub-agent's
        chunks travel this way (D9). The returned awaitable may be awaited or not."""
        if self._write is None:
            raise RuntimeError("writer.write: this writer belongs to no tool call")
        return self._write(value)


@record(slots=True)
class ToolContext:
    """What a tool may ask for by declaring a parameter annotated ``ToolContext``."""

    tool_call_id: str
    tool_name: str
    writer: ToolWriter
    request_context: RequestContext
    abort_signal: AbortSignal | None = None
    messages: list[Any] = field(default_factory=list)
    run_id: str = ""
    """The run's id."""

    @property
    def idempotency_key(self) -> str:
        """A key that is the same when a durable run executes this call again (the run id
        and the tool call id): a tool with side effects can use it to do them once."""
        return f"{self.run_id}:{self.tool_call_id}"


ToolFunction: TypeAlias = Callable[..., Any]


@record(slots=True)
class Tool:
    """A tool the model may call.

    Attributes:
        name: The name the model sees.
        description: What the tool does, for the model.
        input_schema: JSON schema of the arguments.
        function: The callable (sync or async) that runs the tool.
        args_model: The pydantic model that validates arguments; ``None`` for a tool whose
            arguments are checked elsewhere (an MCP server validates its own): the arguments
            then stay the model's JSON object, a ``dict``.
        pass_model: Call ``function`` with the validated model instance (a tool built from a
            pydantic model), or the arguments ``dict`` when ``args_model`` is ``None``, as its
            one positional argument instead of keyword arguments.
        context_parameter: Name of the parameter that receives the :class:`ToolContext`.
        is_async: ``function`` is a coroutine function (its result is awaited).
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    function: ToolFunction
    args_model: type[BaseModel] | None = None
    pass_model: bool = False
    context_parameter: str | None = None
    is_async: bool = False
    requires_approval: bool = False
    """Wait for a decision before each call (``procession.approvals``)."""

    def definition(self) -> dict[str, Any]:
        """The function-tool definition sent to the model."""
        return {
            "type": "function",
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
        }

    def validate(self, args: object) -> Any:
        """Validate the model's arguments; raise :class:`ToolError` naming what is wrong."""
        from pydantic import ValidationError

        if not isinstance(args, dict):
            raise ToolError(f"tool {self.name!r}: arguments must be a JSON object, got {args!r}")
        if self.args_model is None:
            return args
        try:
            return self.args_model.model_validate(args)
        except ValidationError as error:
            raise ToolError(f"tool {self.name!r}: invalid arguments: {error}") from None

    async def execute(self, args: object, context: ToolContext) -> Any:
        """Validate ``args``, run the tool and return its JSON-serializable result."""
        validated = self.validate(args)
        if self.pass_model:
            call_args: tuple[Any, ...] = (validated,)
            kwargs: dict[str, Any] = {}
        elif self.args_model is None:
            call_args, kwargs = (), dict(validated)
        else:
            call_args = ()
            kwargs = {name: getattr(validated, name) for name in type(validated).model_fields}
        if self.context_parameter is not None:
            kwargs[self.context_parameter] = context
        result = self.function(*call_args, **kwargs)
        if self.is_async or inspect.isawaitable(result):
            result = await result
        return to_jsonable(result)


def to_jsonable(value: Any) -> Any:
    """Make a tool result JSON-serializable (pydantic models, dataclasses, datetimes, ...)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)
