"""What one ``generate()``/``stream()`` call runs with: options checked, then resolved.

Two phases. :func:`check_call` runs when the call is made: every option is checked (D35) and a
bad one raises a ``ConfigurationError`` at once, before any model call. :func:`resolve_run` runs
when the stream starts: lane factories are called (D20), memory's processors placed around the
lanes, the model resolved, and the run's messages seeded.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

from procession._checks import (
    check_callable,
    check_flag,
    check_mapping,
    check_optional_int,
    check_type,
    wrong,
)
from procession._engine.spec import (
    AgentSpec,
    LaneSpec,
    check_approvals,
    check_instructions,
    check_lane,
    check_lane_spec,
    factory_call,
)
from procession._records import record
from procession.approvals import ApprovalBroker
from procession.context import RequestContext
from procession.errors import ConfigurationError, ModelSetupError
from procession.journal import Journal
from procession.messages.message import SystemMessage
from procession.messages.message_list import MessageList
from procession.models.base import LanguageModel
from procession.models.registry import resolve_model
from procession.processors.base import ErrorProcessor, InputProcessor, OutputProcessor
from procession.signals import AbortSignal
from procession.tools._tool import Tool, toolset

if TYPE_CHECKING:
    from procession.memory.base import AgentMemory

__all__ = [
    "CALL_DEFAULTS",
    "CallOptions",
    "LANES",
    "Release",
    "RunConfig",
    "StepConfig",
    "UNSET",
    "check_call",
    "check_release",
    "resolve_run",
    "seed_messages",
]

Release = Literal["live", "step"]
LANES = ("input", "output", "error")
UNSET: Any = object()
"""A call option that was not given (``None`` can be a real value for some)."""
CALL_DEFAULTS: dict[str, Any] = {
    "input_processors": UNSET,
    "output_processors": UNSET,
    "error_processors": UNSET,
    "max_processor_retries": UNSET,
    "max_retries": None,
    "max_steps": None,
    "model": None,
    "tools": None,
    "tool_choice": None,
    "active_tools": None,
    "provider_options": None,
    "model_settings": None,
    "instructions": None,
    "system": None,
    "context": None,
    "request_context": None,
    "abort_signal": None,
    "prepare_step": None,
    "structured_output": None,
    "thread_id": None,
    "resource_id": None,
    "run_id": None,
    "release": "live",
    "journal": None,
    "approvals": None,
    "require_tool_approval": False,
    "inspect": False,
}
"""Each call option's value when it is not given (``Agent.stream``'s defaults)."""


@record(slots=True, kw_only=True, eq=False)
class CallOptions:
    """The options of one call, checked (D35); ``UNSET`` lanes fall back to the agent's."""

    messages: Any
    lanes: dict[str, LaneSpec]
    max_processor_retries: int | None
    max_retries: int | None
    max_steps: int | None
    model: LanguageModel | str | None
    tools: dict[str, Tool] | None
    tool_choice: Any
    active_tools: list[str] | None
    provider_options: dict[str, Any] | None
    model_settings: dict[str, Any] | None
    instructions: Any
    system: Any
    context: Any
    request_context: RequestContext
    abort_signal: AbortSignal | None
    prepare_step: Callable[..., Any] | None
    structured_output: Any
    run_id: str | None
    release: Release
    journal: Journal | None = None
    approvals: ApprovalBroker | None = None
    require_tool_approval: bool = False
    """Every tool call of the run waits for approval (Mastra's ``requireToolApproval``)."""
    inspect: bool = False
    output_last: tuple[Any, ...] = ()
    """Processors placed last in the output lane, after memory's (a shortcut's expansion:
    ``structured_output={"schema", "model"}`` is one, expanded by ``Agent``)."""


@record(slots=True, kw_only=True, eq=False)
class RunConfig:
    """Everything one run runs with, resolved from the agent and the call options."""

    agent_id: str
    model: LanguageModel
    tools: dict[str, Tool]
    tool_choice: Any = "auto"
    active_tools: list[str] | None = None
    provider_options: dict[str, Any] = field(default_factory=dict)
    model_settings: dict[str, Any] = field(default_factory=dict)
    structured_output: Any = None
    max_steps: int = 5
    max_processor_retries: int | None = None
    max_retries: int | None = None
    """Retries of transient model errors (D14); ``None`` means the model layer's default, 2."""
    input_processors: list[InputProcessor] = field(default_factory=list)
    output_processors: list[OutputProcessor] = field(default_factory=list)
    error_processors: list[ErrorProcessor] = field(default_factory=list)
    prepare_step: Callable[..., Any] | None = None
    memory: AgentMemory | None = None
    release: Release = "live"
    journal: Journal | None = None
    """A durable run's checkpoints (``procession.journal``), or ``None``."""
    approvals: ApprovalBroker | None = None
    """Where calls of tools that require approval wait for a decision."""
    require_tool_approval: bool = False
    """Every tool call waits for approval, whether or not its tool requires it."""


@record(slots=True, eq=False)
class StepConfig:
    """What one step calls the model with; ``process_input_step`` may replace any of it."""

    model: LanguageModel
    tools: dict[str, Tool]
    tool_choice: Any
    """As configured or returned (``"auto"``, ``{"type": "tool", ...}``); normalised for the
    model call only, so hooks see the seed's form."""
    active_tools: list[str] | None
    provider_options: dict[str, Any]
    model_settings: dict[str, Any]
    structured_output: Any
    system: list[SystemMessage] | None = None
    """This step's system messages when a hook replaced them (D17); ``None``: the run's."""

    @classmethod
    def first(cls, config: RunConfig) -> StepConfig:
        """A step as the run is configured."""
        return cls(
            model=config.model,
            tools=config.tools,
            tool_choice=config.tool_choice,
            active_tools=config.active_tools,
            provider_options=config.provider_options,
            model_settings=config.model_settings,
            structured_output=config.structured_output,
        )


# -- checks made when the call is made (D35) ----------------------------------------------------


def check_release(release: Any) -> Release:
    """``release`` is ``"live"`` or ``"step"`` (D31, D35)."""
    if release not in ("live", "step"):
        raise wrong("release", release, "'live' or 'step'")
    return release  # type: ignore[no-any-return]


def check_call(messages: Any, options: Mapping[str, Any]) -> CallOptions:
    """Check one call's options (D35); raises ``ConfigurationError`` naming the bad one."""
    release = check_release(options["release"])
    retries = options["max_processor_retries"]
    return CallOptions(
        messages=messages,
        lanes={
            lane: UNSET
            if options[f"{lane}_processors"] is UNSET
            else check_lane_spec(lane, options[f"{lane}_processors"])
            for lane in LANES
        },
        max_processor_retries=UNSET
        if retries is UNSET
        else check_optional_int("max_processor_retries", retries, minimum=0),
        max_retries=check_optional_int("max_retries", options["max_retries"], minimum=0),
        max_steps=check_optional_int("max_steps", options["max_steps"], minimum=1),
        model=check_type("model", options["model"], (LanguageModel, str)),
        tools=None if options["tools"] is None else toolset(options["tools"]),
        tool_choice=options["tool_choice"],
        active_tools=_check_names("active_tools", options["active_tools"]),
        provider_options=_optional_mapping("provider_options", options["provider_options"]),
        model_settings=_optional_mapping("model_settings", options["model_settings"]),
        instructions=check_instructions("instructions", options["instructions"]),
        system=check_instructions("system", options["system"]),
        context=options["context"],
        request_context=_request_context(options),
        abort_signal=check_type("abort_signal", options["abort_signal"], AbortSignal),
        prepare_step=check_callable("prepare_step", options["prepare_step"]),
        structured_output=options["structured_output"],
        run_id=_check_id("run_id", options["run_id"]),
        release=release,
        journal=_check_journal(options.get("journal")),
        approvals=check_approvals(options.get("approvals")),
        require_tool_approval=False
        if (approval := options["require_tool_approval"]) is False
        else check_flag("require_tool_approval", approval),
        inspect=check_flag("inspect", options.get("inspect", False)),
    )


def _check_journal(value: object) -> Journal | None:
    if value is not None and not isinstance(value, Journal):
        raise wrong("journal", value, "a Journal (model_call, tool_call and once)")
    return value


def _optional_mapping(name: str, value: object) -> dict[str, Any] | None:
    return None if value is None else check_mapping(name, value)


def _check_names(name: str, value: object) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise wrong(name, value, "a list of tool names")
    if not all(isinstance(item, str) for item in value):
        raise wrong(name, value, "a list of tool names")
    return list(value)


def _check_id(name: str, value: object) -> str | None:
    if value is not None and (not isinstance(value, str) or not value):
        raise wrong(name, value, "a non-empty string")
    return value


def _request_context(options: Mapping[str, Any]) -> RequestContext:
    """The call's context: a ``RequestContext`` or any mapping (copied), plus the ids."""
    given = options["request_context"]
    if given is None:
        context = RequestContext()
    elif isinstance(given, RequestContext):
        context = given
    elif isinstance(given, Mapping):
        context = RequestContext(check_mapping("request_context", given))
    else:
        raise wrong("request_context", given, "a RequestContext or a mapping")
    for key in ("thread_id", "resource_id"):
        value = _check_id(key, options[key])
        if value is not None:
            setattr(context, key, value)
    return context


# -- resolution when the stream starts -----------------------------------------------------------


async def resolve_run(agent: AgentSpec, call: CallOptions) -> RunConfig:
    """The run's configuration: lanes (factories called, memory around them), model, options."""
    context = call.request_context
    lanes: dict[str, list[Any]] = {}
    for lane in LANES:
        spec = call.lanes[lane]
        spec = agent.lane(lane) if spec is UNSET else spec
        lanes[lane] = await _resolve_lane(lane, spec, context)
    memory = agent.memory
    if memory is not None:
        lanes["input"] = _around(memory.input_processors(context), lanes["input"], first=True)
        lanes["output"] = _around(memory.output_processors(context), lanes["output"], first=False)
    if call.output_last:
        lanes["output"] = [*lanes["output"], *call.output_last]
    retries = call.max_processor_retries
    return RunConfig(
        agent_id=agent.id,
        model=_model(call.model if call.model is not None else agent.model),
        tools=call.tools if call.tools is not None else agent.tools,
        tool_choice=call.tool_choice if call.tool_choice is not None else agent.tool_choice,
        active_tools=call.active_tools,
        provider_options=_first(call.provider_options, agent.provider_options),
        model_settings=_first(call.model_settings, agent.model_settings),
        structured_output=call.structured_output,
        max_steps=call.max_steps if call.max_steps is not None else agent.max_steps,
        max_processor_retries=agent.max_processor_retries if retries is UNSET else retries,
        max_retries=call.max_retries if call.max_retries is not None else agent.max_retries,
        input_processors=lanes["input"],
        output_processors=lanes["output"],
        error_processors=lanes["error"],
        prepare_step=call.prepare_step,
        memory=memory,
        release=call.release,
        journal=call.journal,
        approvals=call.approvals if call.approvals is not None else agent.approvals,
        require_tool_approval=call.require_tool_approval,
    )


def _first(given: dict[str, Any] | None, default: dict[str, Any]) -> dict[str, Any]:
    return given if given else default


def _model(model: LanguageModel | str | None) -> LanguageModel:
    if model is None:
        from procession.models.default import default_model

        model = default_model()
    try:
        return resolve_model(model)
    except ModelSetupError:
        raise
    except ConfigurationError as exc:  # a key not set, an SDK missing: the server's setup
        raise ModelSetupError(str(exc)) from exc


async def _resolve_lane(lane: str, spec: LaneSpec, request_context: RequestContext) -> list[Any]:
    """The processors of one lane for this call: a factory's are checked when it returns them
    (a list was checked when it was given, to the agent or to the call)."""
    if spec is None:
        return []
    if callable(spec) and not isinstance(spec, list | tuple):
        value = factory_call(lane, spec)(request_context)
        if inspect.isawaitable(value):
            value = await value
        return check_lane(lane, value)
    return list(spec)


def _around(memory: list[Any], configured: list[Any], *, first: bool) -> list[Any]:
    """Memory processors around a lane (D20), skipping ids the lane already has."""
    taken = {getattr(p, "id", None) for p in configured}
    extra = [p for p in memory if getattr(p, "id", None) not in taken]
    return [*extra, *configured] if first else [*configured, *extra]


async def seed_messages(
    message_list: MessageList, agent: AgentSpec, call: CallOptions, context: RequestContext
) -> None:
    """The run's system messages (D17), context and input messages, in prompt order."""
    instructions = call.instructions if call.instructions is not None else agent.instructions
    if callable(instructions) and not isinstance(instructions, str):
        instructions = instructions(context)
        if inspect.isawaitable(instructions):
            instructions = await instructions
        instructions = check_instructions("instructions (returned by the function)", instructions)
    for text in _texts(instructions):
        message_list.add_system(text)
    for text in _texts(call.system):
        message_list.add_system(text, tag="user-provided")
    if call.context is not None:
        message_list.add(call.context, "context")
    message_list.add(call.messages, "input")


def _texts(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if v]
