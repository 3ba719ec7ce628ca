"""The input stages: ``process_input`` once, then per step ``process_input_step`` and, with
the prompt in hand, ``process_llm_request`` (D7, D16, D17, D26)."""

from __future__ import annotations

from typing import Any

from procession._engine.config import StepConfig
from procession._engine.outcomes import Retry, Stop
from procession._engine.runner import Hook, HookRunner
from procession._engine.stages.results import apply_messages, replace_messages
from procession._engine.state import Attempt, RunState
from procession.errors import ConfigurationError, MessageError, ProcessorError
from procession.messages.formats import to_prompt
from procession.messages.inputs import coerce_system
from procession.messages.message import SystemMessage
from procession.messages.parts import StepStartPart
from procession.models.base import normalize_tool_choice
from procession.models.registry import resolve_model
from procession.structured import ObjectStream, structured_output_spec
from procession.tools._tool import Tool, toolset

__all__ = ["STEP_KEYS", "process_input", "process_input_step", "process_llm_request"]

STEP_KEYS = frozenset(
    (
        "model",
        "tool_choice",
        "active_tools",
        "tools",
        "messages",
        "message_list",
        "system_messages",
        "provider_options",
        "model_settings",
        "structured_output",
    )
)
"""What ``process_input_step`` may return in a dict; each key replaces (D16)."""


async def process_input(state: RunState, runner: HookRunner) -> Stop | None:
    """``process_input`` over the input lane: this call's input messages (D26).

    There is no step to retry yet, so ``abort(retry=True)`` ends the run (D1).
    """
    message_list = state.message_list
    for hook in runner.of("process_input"):
        messages = message_list.get.input.db()
        values = {"messages": messages, "system_messages": message_list.get_all_system_messages()}
        result = await runner.call(hook, values)
        if isinstance(result, Retry):  # D1: reported with retry=True, terminal
            return result.blocked()
        if isinstance(result, Stop):
            return result
        apply_messages(state, hook, result, messages, "input", input_stage=True)
    return None


async def process_input_step(state: RunState, runner: HookRunner, attempt: Attempt) -> Stop | None:
    """``process_input_step`` (``prepare_step`` runs as its last hook), then the prompt."""
    message_list = state.message_list
    if attempt.step_number > 0:  # the step boundary exists before this step's hooks (Mastra)
        response = state.response_message()
        if response.content.parts:
            response.content.parts.append(StepStartPart())
    step = attempt.step
    for hook in runner.of("process_input_step"):
        messages = message_list.get.all.db()
        before = message_list.get_all_system_messages()
        result = await runner.call(hook, _step_values(state, attempt, messages))
        if isinstance(result, Stop):
            return result
        if step.system is not None:  # D17: run-scoped additions count for this step too
            known = {id(m) for m in before}
            step.system.extend(
                m for m in message_list.get_all_system_messages() if id(m) not in known
            )
        _apply_step(state, hook, result, messages, step)
    _build_prompt(state, attempt)
    return None


def _step_values(state: RunState, attempt: Attempt, messages: list[Any]) -> dict[str, Any]:
    step = attempt.step
    return {
        "messages": messages,
        "step_number": attempt.step_number,
        "steps": list(state.steps),
        "system_messages": system_messages(state, step),
        "model": step.model,
        "tool_choice": step.tool_choice,
        "active_tools": step.active_tools,
        "tools": step.tools,
        "provider_options": step.provider_options,
        "model_settings": step.model_settings,
        "structured_output": step.structured_output,
    }


def system_messages(state: RunState, step: StepConfig) -> list[SystemMessage]:
    """This step's system messages: a hook's replacement, else the run's (D17)."""
    return step.system if step.system is not None else state.message_list.get_all_system_messages()


def _apply_step(
    state: RunState, hook: Hook, result: Any, messages: list[Any], step: StepConfig
) -> None:
    if result is None or result is state.message_list or isinstance(result, list):
        apply_messages(state, hook, result, messages, "input", input_stage=True)
        return
    if not isinstance(result, dict):
        apply_messages(state, hook, result, messages, "input", input_stage=True)  # raises
        return
    unknown = set(result) - STEP_KEYS
    if unknown:
        raise ProcessorError(
            hook.processor_id,
            hook.name,
            f"returned unknown keys {sorted(unknown)} (allowed: {', '.join(sorted(STEP_KEYS))})",
        )
    if "messages" in result and "message_list" in result:  # returning both is a clear error (D16)
        raise ProcessorError(
            hook.processor_id, hook.name, "returned both messages and message_list"
        )
    if "message_list" in result:
        apply_messages(state, hook, result["message_list"], messages, "input", input_stage=True)
    if "messages" in result:
        replace_messages(state, hook, messages, result["messages"], "input")
    try:
        _override(step, result)
    except (ConfigurationError, MessageError, ValueError) as error:
        raise ProcessorError(hook.processor_id, hook.name, str(error)) from None


def _override(step: StepConfig, result: dict[str, Any]) -> None:
    """Keys returned by ``process_input_step`` replace, never merge (D16, D17)."""
    if "model" in result:
        step.model = resolve_model(result["model"])
    if "tools" in result:
        step.tools = toolset(result["tools"])
    if "tool_choice" in result:
        normalize_tool_choice(result["tool_choice"])  # validates; hooks see the seed's form
        step.tool_choice = result["tool_choice"]
    if "active_tools" in result:
        step.active_tools = result["active_tools"]
    if "provider_options" in result:
        step.provider_options = result["provider_options"] or {}
    if "model_settings" in result:
        step.model_settings = result["model_settings"] or {}
    if "structured_output" in result:
        step.structured_output = result["structured_output"]
    if "system_messages" in result:
        values = result["system_messages"] or []
        step.system = [coerce_system(v, f"system_messages[{i}]") for i, v in enumerate(values)]


def _build_prompt(state: RunState, attempt: Attempt) -> None:
    """The provider prompt of this attempt, and the step's tools and structured output."""
    step = attempt.step
    system = system_messages(state, step)
    structured = structured_output_spec(step.structured_output)
    if structured is not None:
        attempt.structured = structured
        attempt.objects = ObjectStream()
        if not step.model.supports_structured_output:
            system = [*system, SystemMessage(structured.instruction())]  # this step only
    attempt.prompt = to_prompt(system, state.message_list.get.all.db())
    attempt.tools = _active_tools(step)
    attempt.model_checkpoint = state.message_list.checkpoint()


def _active_tools(step: StepConfig) -> dict[str, Tool]:
    if normalize_tool_choice(step.tool_choice).get("type") == "none":
        return {}
    tools = step.tools
    if step.active_tools is not None:
        allowed = set(step.active_tools)
        tools = {name: t for name, t in tools.items() if name in allowed}
    return tools


async def process_llm_request(state: RunState, runner: HookRunner, attempt: Attempt) -> Stop | None:
    """``process_llm_request``: a hook may rewrite the prompt or replay a response (D7)."""
    for hook in runner.of("process_llm_request"):
        values = {
            "prompt": attempt.prompt,
            "model": attempt.step.model,
            "step_number": attempt.step_number,
            "steps": list(state.steps),
        }
        result = await runner.call(hook, values)
        if isinstance(result, Stop):
            return result
        if result is None:
            continue
        if not isinstance(result, dict) or set(result) - {"prompt", "response"}:
            raise ProcessorError(
                hook.processor_id,
                hook.name,
                "must return None or a dict with 'prompt' and/or 'response'",
            )
        if "prompt" in result:
            attempt.prompt = result["prompt"]
        if "response" in result and attempt.cached is None:  # D7: the first response wins
            attempt.cached = _check_cached(hook, result["response"])
    return None


def _check_cached(hook: Hook, response: Any) -> dict[str, Any]:
    if not isinstance(response, dict) or not isinstance(response.get("chunks"), list):
        raise ProcessorError(
            hook.processor_id,
            hook.name,
            "a 'response' must be {'chunks': [{'type', 'payload'}, ...], ...}",
        )
    return response
