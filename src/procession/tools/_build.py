"""Building a :class:`Tool` from a typed function: the argument schema and the description.

Parameters become a pydantic model (the JSON schema the model sees and the validator of its
arguments); the docstring's prose becomes the description and its documented parameters the
schema's per-property descriptions. A tool the model would see without any description is
reported when it is built (:class:`ToolDescriptionWarning` and a log line).
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any, get_type_hints

from procession.errors import ConfigurationError
from procession.tools._docstring import parse_docstring
from procession.tools._types import Tool, ToolContext, ToolFunction

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["ToolDescriptionWarning", "build_tool"]

logger = logging.getLogger("procession.tools")

_PACKAGE_DIR = os.path.dirname(os.path.dirname(__file__)) + os.sep
"""procession's own files: code objects carry the same path form as ``__file__``."""


class ToolDescriptionWarning(UserWarning):
    """A tool built from a function has no description, or its docstring documents a parameter
    the function does not have. The model chooses tools by their descriptions: add a docstring
    (or pass ``description=``)."""


def build_tool(function: ToolFunction, name: str | None, description: str | None) -> Tool:
    """Make a :class:`Tool` from a typed function (see :func:`procession.tool`)."""
    from pydantic import create_model

    _check_options(function, name, description)
    tool_name = name or getattr(function, "__name__", None) or repr(function)
    fields, context_parameter, model_parameter = _fields(function, tool_name)
    if model_parameter is not None:
        if fields:
            raise ConfigurationError(
                f"tool {tool_name!r}: a tool taking a pydantic model takes no other arguments"
            )
        args_model: type[BaseModel] = model_parameter
    else:
        args_model = create_model(f"{tool_name}_args", **fields)
    schema = args_model.model_json_schema()
    schema.pop("title", None)
    docstring = parse_docstring(inspect.getdoc(function) or "")
    _describe_properties(function, schema, docstring.params, model_parameter is None, tool_name)
    if description is None:
        description = docstring.description
        if not description:
            _warn(
                f"tool {tool_name!r} has no description: the model sees only its name and "
                "parameters. Give the function a docstring, or pass description=...",
            )
    return Tool(
        name=tool_name,
        description=description,
        input_schema=schema,
        function=function,
        args_model=args_model,
        pass_model=model_parameter is not None,
        context_parameter=context_parameter,
        is_async=inspect.iscoroutinefunction(function),
    )


def _check_options(function: object, name: object, description: object) -> None:
    if not callable(function):
        raise ConfigurationError(f"tool: expected a function, got {function!r}")
    if name is not None and (not isinstance(name, str) or not name):
        raise ConfigurationError(f"tool name: expected a non-empty string, got {name!r}")
    if description is not None and not isinstance(description, str):
        raise ConfigurationError(f"tool description: expected a string, got {description!r}")


def _fields(
    function: ToolFunction, tool_name: str
) -> tuple[dict[str, Any], str | None, type[BaseModel] | None]:
    """The argument fields, the context parameter's name, and a lone pydantic-model parameter."""
    from pydantic import BaseModel

    hints = _parameter_hints(function, tool_name)
    fields: dict[str, Any] = {}
    context_parameter: str | None = None
    model_parameter: type[BaseModel] | None = None
    for parameter in inspect.signature(function).parameters.values():
        annotation = hints.get(parameter.name, Any)
        if annotation is ToolContext:
            context_parameter = parameter.name
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise ConfigurationError(f"tool {tool_name!r}: *args and **kwargs are not supported")
        if inspect.isclass(annotation) and issubclass(annotation, BaseModel):
            model_parameter = annotation
            continue
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    return fields, context_parameter, model_parameter


def _describe_properties(
    function: ToolFunction,
    schema: dict[str, Any],
    documented: dict[str, str],
    from_parameters: bool,
    tool_name: str,
) -> None:
    """Give each property its docstring description, unless its annotation already has one.

    ``from_parameters`` is false for a tool whose schema is a pydantic model's: its
    properties are the model's fields, described by the model itself.
    """
    parameters = inspect.signature(function).parameters
    properties = schema.get("properties", {}) if from_parameters else {}
    for parameter, text in documented.items():
        if parameter.lstrip("*") not in parameters:
            _warn(
                f"tool {tool_name!r}: the docstring documents {parameter!r}, which is not "
                "a parameter of the function",
            )
            continue
        prop = properties.get(parameter)
        if prop is not None and "description" not in prop:
            prop["description"] = text


def _warn(message: str) -> None:
    """Warn (pointing at the caller's code, outside procession) and log the same line."""
    warnings.warn(message, ToolDescriptionWarning, stacklevel=_caller_stacklevel())
    logger.warning(message)


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of the first frame outside the procession package."""
    frame = sys._getframe(2)  # the caller of _warn: stacklevel 2 as seen from _warn
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level


def _parameter_hints(function: ToolFunction, tool_name: str) -> dict[str, Any]:
    """Resolve parameter annotations; the return annotation is not needed, so a local class
    named there (under ``from __future__ import annotations``) does no harm."""
    try:
        return get_type_hints(function, include_extras=True)
    except NameError:
        pass
    annotations = dict(getattr(function, "__annotations__", {}))
    annotations.pop("return", None)
    namespace = getattr(function, "__globals__", {})
    hints: dict[str, Any] = {}
    for name, annotation in annotations.items():
        if not isinstance(annotation, str):
            hints[name] = annotation
            continue
        try:
            hints[name] = eval(annotation, namespace)
        except NameError as error:
            raise ConfigurationError(
                f"tool {tool_name!r}: cannot resolve the annotation of {name!r} ({error}); "
                "define the type at module level"
            ) from None
    return hints
