"""``AgentSpec``: what the engine runs, a frozen value checked once.

``Agent`` checks its arguments into one (:func:`check_spec`, each bad argument a
``ConfigurationError`` naming it, D35) and hands it to the engine with each call; built-ins that
make a sub-run (the judge, the structuring model) build their own. The engine reads nothing
else about an agent, so it never imports ``Agent``.

A lane is a list of processors (checked when given, D25), a factory of the request context
returning one (checked when it returns, D20), or ``None``. A processor may sit in several lanes
and agents; ``processor_index`` is then ``None`` (D28, :func:`place_lanes`).
"""

from __future__ import annotations

import contextlib
import inspect
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any, TypeAlias

from procession._checks import check_int, check_mapping, check_optional_int, check_type, wrong
from procession._records import record
from procession.approvals import ApprovalBroker
from procession.context import RequestContext
from procession.errors import ConfigurationError
from procession.memory.base import AgentMemory
from procession.models.base import LanguageModel, normalize_tool_choice
from procession.processors.base import (
    LANE_HOOKS,
    ErrorProcessor,
    InputProcessor,
    OutputProcessor,
)
from procession.tools._tool import Tool, toolset

__all__ = [
    "AgentSpec",
    "ErrorLane",
    "InputLane",
    "Instructions",
    "LaneFactory",
    "LaneSpec",
    "OutputLane",
    "check_approvals",
    "check_id",
    "check_instructions",
    "check_lane",
    "check_lane_spec",
    "check_option",
    "check_spec",
    "check_structured_shortcut",
    "factory_call",
    "place_lanes",
]

LaneFactory: TypeAlias = Callable[..., Any]
"""A function of the request context returning a lane's processors (sync or async, D20)."""
LaneSpec: TypeAlias = Sequence[Any] | LaneFactory | None
"""A lane as given: a list of processors, a factory, or ``None``."""
InputLane: TypeAlias = tuple[InputProcessor, ...] | LaneFactory | None
OutputLane: TypeAlias = tuple[OutputProcessor, ...] | LaneFactory | None
ErrorLane: TypeAlias = tuple[ErrorProcessor, ...] | LaneFactory | None
Instructions: TypeAlias = str | list[str] | Callable[[RequestContext], Any] | None
"""A system prompt: a string, a list of strings, or a function of the request context."""


@record(frozen=True, slots=True, kw_only=True)
class AgentSpec:
    """Everything the engine reads about an agent, checked (D35). Immutable: changing an
    agent's option replaces its spec."""

    id: str
    name: str
    description: str | None = None
    instructions: Instructions = None
    model: LanguageModel | str | None = None
    """A model object or ``"provider/model"``; ``None``: the embedded default."""
    tools: dict[str, Tool] = field(default_factory=dict)
    input_processors: InputLane = None
    output_processors: OutputLane = None
    error_processors: ErrorLane = None
    max_processor_retries: int | None = None
    max_retries: int | None = None
    max_steps: int = 5
    tool_choice: Any = "auto"
    provider_options: dict[str, Any] = field(default_factory=dict)
    model_settings: dict[str, Any] = field(default_factory=dict)
    memory: AgentMemory | None = None
    approvals: ApprovalBroker | None = None

    def lane(self, lane: str) -> tuple[Any, ...] | LaneFactory | None:
        """The processors (or factory) of ``lane``: ``"input"``, ``"output"`` or ``"error"``."""
        if lane == "input":
            return self.input_processors
        if lane == "output":
            return self.output_processors
        return self.error_processors


_CHECKS: dict[str, Callable[[Any], Any]] = {
    "id": lambda value: check_id(value),
    "name": lambda value: check_type("name", value, str),
    "description": lambda value: check_type("description", value, str),
    "instructions": lambda value: check_instructions("instructions", value),
    "model": lambda value: check_type("model", value, (LanguageModel, str)),
    "tools": toolset,
    "input_processors": lambda value: check_lane_spec("input", value),
    "output_processors": lambda value: check_lane_spec("output", value),
    "error_processors": lambda value: check_lane_spec("error", value),
    "max_processor_retries": lambda value: check_optional_int(
        "max_processor_retries", value, minimum=0
    ),
    "max_retries": lambda value: check_optional_int("max_retries", value, minimum=0),
    "max_steps": lambda value: check_int("max_steps", value, minimum=1),
    "tool_choice": lambda value: (normalize_tool_choice(value), value)[1],
    "provider_options": lambda value: check_mapping("provider_options", value),
    "model_settings": lambda value: check_mapping("model_settings", value),
    "memory": lambda value: check_memory(value),
    "approvals": lambda value: check_approvals(value),
}
"""How each option is checked, by name (a ``ConfigurationError`` naming it, D35)."""


def check_spec(*, id: object, **options: Any) -> AgentSpec:
    """An ``AgentSpec`` from an agent's arguments, each checked in order (D35)."""
    checked = {name: _CHECKS[name](value) for name, value in options.items()}
    checked["name"] = checked.get("name") or check_id(id)
    return AgentSpec(id=check_id(id), **checked)


def check_id(value: object) -> str:
    """An agent's id: a non-empty string."""
    if not isinstance(value, str) or not value:
        raise wrong("Agent id", value, "a non-empty string")
    return value


def check_option(name: str, value: object) -> Any:
    """One option checked as :func:`check_spec` checks it (when an agent's option is set)."""
    return _CHECKS[name](value)


def check_structured_shortcut(options: Mapping[str, Any]) -> dict[str, Any]:
    """``structured_output={"schema": ..., "model": ...}``'s options, as a new dict."""
    if "schema" not in options:
        raise wrong("structured_output", options, "a 'schema' beside its 'model'")
    return dict(options)


def check_memory(memory: object) -> AgentMemory | None:
    """A memory (``input_processors()``, ``output_processors()``, ``commit()``) or ``None``."""
    if memory is not None and not isinstance(memory, AgentMemory):
        raise wrong(
            "memory", memory, "a memory with input_processors(), output_processors(), commit()"
        )
    return memory


def check_approvals(value: object) -> ApprovalBroker | None:
    """An approval broker (``decide(request) -> Decision``) or ``None``."""
    if value is not None and not isinstance(value, ApprovalBroker):
        raise wrong("approvals", value, "an approval broker (decide(request) -> Decision)")
    return value


def check_instructions(name: str, value: object) -> Any:
    """A string, a list of strings, or a function of the request context returning either."""
    if value is None or isinstance(value, str) or callable(value):
        return value
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return list(value)
    raise wrong(name, value, "a string, a list of strings or a function of the request context")


def check_lane(lane: str, processors: object) -> list[Any]:
    """Validate one lane's processors; a processor with none of the lane's hooks is an error."""
    if not isinstance(processors, list | tuple):
        raise wrong(f"{lane}_processors", processors, "a list of processors or a factory")
    hooks = LANE_HOOKS[lane]
    for index, processor in enumerate(processors):
        processor_id = getattr(processor, "id", None)
        if not isinstance(processor_id, str) or not processor_id:
            raise ConfigurationError(
                f"{lane}_processors[{index}]: a processor needs a non-empty string id "
                f"(got {processor!r})"
            )
        if not any(callable(getattr(processor, hook, None)) for hook in hooks):
            raise ConfigurationError(
                f"{lane}_processors[{index}]: processor {processor_id!r} implements none of the "
                f"{lane} lane's hooks ({', '.join(hooks)})"
            )
    return list(processors)


def check_lane_spec(lane: str, spec: object) -> tuple[Any, ...] | LaneFactory | None:
    """A lane as given: ``None``, a list (checked now, D25) or a factory (checked when called)."""
    if spec is None:
        return None
    if callable(spec) and not isinstance(spec, list | tuple):
        factory_call(lane, spec)  # a factory it cannot call is an error now
        return spec
    return tuple(check_lane(lane, spec))


_placements: dict[int, int] = {}
"""How many lane places each processor object (by ``id()``) holds across agents (D28)."""


def place_lanes(spec: AgentSpec) -> None:
    """``processor_index``: the position when the object sits in exactly one lane of one
    agent, else ``None`` (D28). Called once per spec an agent (or a sub-run) is built with."""
    for lane in ("input", "output", "error"):
        processors = spec.lane(lane)
        if not isinstance(processors, tuple):
            continue
        for index, processor in enumerate(processors):
            key = id(processor)
            count = _placements.get(key, 0) + 1
            _placements[key] = count
            if count == 1:
                with contextlib.suppress(TypeError):  # not weak-referenceable: its count stays
                    weakref.finalize(processor, _placements.pop, key, None)
            with contextlib.suppress(AttributeError, TypeError):  # frozen or slotted
                processor.processor_index = index if count == 1 else None


def factory_call(lane: str, factory: Callable[..., Any]) -> Callable[[RequestContext], Any]:
    """How to call a lane factory: ``request_context`` positionally or as a keyword (D35)."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read (some builtins): positionally
        return factory
    kind = inspect.Parameter
    required = [p for p in parameters if p.default is kind.empty and p.kind not in _VARIADIC]
    kinds = {p.kind for p in parameters}
    if len(required) <= 1:
        if required and required[0].kind is kind.KEYWORD_ONLY:
            if required[0].name == "request_context":
                return lambda context: factory(request_context=context)
        elif kinds & {kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD, kind.VAR_POSITIONAL}:
            return factory
        elif kind.VAR_KEYWORD in kinds or "request_context" in {p.name for p in parameters}:
            return lambda context: factory(request_context=context)
    raise ConfigurationError(
        f"{lane}_processors: a lane factory is called with the request context, positionally "
        f"or as the keyword request_context; {factory!r} cannot be called that way"
    )


_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
