"""Tools: a typed Python function or a pydantic model, with a JSON schema for the model.

Pydantic is imported only when a tool is built, so ``import procession`` stays fast.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias, overload

from procession.errors import ConfigurationError, ToolError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from procession.context import RequestContext
    from procession.signals import AbortSignal

__all__ = [
    "Tool",
    "ToolContext",
    "ToolWriter",
    "Tools",
    "to_jsonable",
    "tool",
    "toolset",
]


class ToolWriter:
    """The writer a tool receives (D27): ``writer.custom({...})`` emits a ``data-*`` chunk."""

    __slots__ = ("_emit",)

    def __init__(self, emit: Callable[[Any, str | None], Awaitable[None]]) -> None:
        self._emit = emit

    def custom(self, chunk: Any, message_id: str | None = None) -> Awaitable[None]:
        """Enqueue a ``data-*`` chunk at once; the returned awaitable may be awaited or not."""
        return self._emit(chunk, message_id)


@dataclass(slots=True)
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


@dataclass(slots=True)
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


@overload
def tool(function: ToolFunction, /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, requires_approval: bool = False
) -> Callable[[ToolFunction], Tool]: ...
def tool(
    function: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a tool from a typed function (sync or async).

    Parameters become the argument schema (validated with pydantic). The docstring's prose
    (summary and body) is the description, and the parameters it documents (Google, NumPy or
    Sphinx style) describe the schema's properties; a description given in the annotation
    (``Annotated[str, Field(description=...)]``) wins. A tool left without a description is
    reported with a :class:`ToolDescriptionWarning` and a log line. A single parameter
    annotated with a pydantic model makes that model the schema, and the function receives the
    validated instance. A parameter annotated :class:`ToolContext` receives the tool's context
    (its ``writer``, the request context...). ``requires_approval=True`` makes every call wait
    for a decision from the run's approval broker (``procession.approvals``).

    Example::

        @tool
        async def lookup_user(id: int) -> dict[str, str]:
            \"\"\"Look up a user.

            Args:
                id: The user's numeric id.
            \"\"\"
            return {"name": "Ada"}
    """
    from procession.tools._build import build_tool

    flag: object = requires_approval
    if type(flag) is not bool:
        from procession.errors import ConfigurationError

        raise ConfigurationError(
            f"tool: requires_approval must be True or False, got {requires_approval!r}"
        )

    def make(f: ToolFunction) -> Tool:
        built = build_tool(f, name, description)
        built.requires_approval = requires_approval
        return built

    return make(function) if function is not None else make


Tools: TypeAlias = "Mapping[str, Tool | ToolFunction] | list[Tool | ToolFunction]"


def toolset(tools: object) -> dict[str, Tool]:
    """Normalise a list or mapping of tools (or plain functions) to ``{name: Tool}``."""
    if tools is None:
        return {}
    items: list[tuple[str | None, object]]
    if isinstance(tools, Mapping):
        items = list(tools.items())
    elif isinstance(tools, list | tuple):
        items = [(None, t) for t in tools]
    else:
        raise ConfigurationError(f"tools: expected a list or a mapping, got {tools!r}")
    from procession.tools._build import build_tool

    out: dict[str, Tool] = {}
    for key, value in items:
        if isinstance(value, Tool):
            built = value
        elif callable(value):
            built = build_tool(value, key, None)
        else:
            raise ConfigurationError(f"tools: {value!r} is neither a Tool nor a function")
        name = key or built.name
        if name in out:
            raise ConfigurationError(f"tools: two tools are named {name!r}")
        out[name] = built if built.name == name else dataclasses.replace(built, name=name)
    return out
