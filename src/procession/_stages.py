"""The hook stages of a step, and of the run's start and end (D1, D7, D14, D16, D17, D26).

Each stage calls one hook over its lane in order and applies what the hooks return.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NoReturn

from procession._hooks import (
    _STEP_KEYS,
    RunBase,
    _Retry,
    _StepConfig,
    _Tripwire,
    logger,
)
from procession.errors import (
    ConfigurationError,
    MessageError,
    ProcessorError,
    TripWire,
)
from procession.messages.message import Message
from procession.messages.message_list import MessageList
from procession.models.base import normalize_tool_choice
from procession.models.registry import resolve_model
from procession.processors._invoke import BoundHook
from procession.results import StepResult
from procession.tools._tool import toolset


class Stages(RunBase):
    """The hook stages: ``process_input`` through ``process_output_result``."""

    def _step_config(self) -> _StepConfig:
        config = self.config
        if self.model is None:
            self.model = resolve_model(config.model)
        return _StepConfig(
            model=self.model,
            tools=config.tools,
            tool_choice=config.tool_choice,
            active_tools=config.active_tools,
            provider_options=config.provider_options,
            model_settings=config.model_settings,
            structured_output=config.structured_output,
        )

    async def _process_input(self) -> None:
        message_list = self.message_list
        for bound in self._hooks.get("process_input", ()):
            messages = message_list.get.input.db()
            args = self._args(
                bound, messages=messages, system_messages=message_list.get_all_system_messages()
            )
            args.pop("writer")
            try:
                result = await self._call(bound, args)
            except TripWire as tripwire:  # D1: no step to retry from process_input
                raise _Tripwire(tripwire.payload()) from None
            self._apply_message_result(bound, result, messages, "input", input_stage=True)

    def _apply_message_result(
        self,
        bound: BoundHook,
        result: Any,
        scope: list[Message],
        default_source: str,
        *,
        input_stage: bool,
    ) -> None:
        """Apply a message hook's return value (D16)."""
        message_list = self.message_list
        if result is None or result is message_list:
            return
        if isinstance(result, MessageList):
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                "returned a MessageList other than the one it was given; "
                "edit the message_list argument instead",
            )
        if isinstance(result, list):
            if not result and not input_stage:
                return  # D16: [] means "no change" after the model ran
            self._replace(bound, scope, result, default_source)
            return
        if input_stage and bound.hook == "process_input" and isinstance(result, dict):
            unknown = set(result) - {"messages", "system_messages"}
            if unknown:
                raise ProcessorError(
                    bound.processor_id, bound.hook, f"returned unknown keys {sorted(unknown)}"
                )
            if "system_messages" in result:
                try:
                    message_list.replace_all_system_messages(result["system_messages"])
                except MessageError as error:
                    raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None
            if "messages" in result:
                self._replace(bound, scope, result["messages"], default_source)
            return
        raise ProcessorError(
            bound.processor_id,
            bound.hook,
            f"returned {type(result).__name__}; expected None, a list of messages or the "
            "message_list it was given",
        )

    def _replace(self, bound: BoundHook, scope: list[Message], value: Any, source: str) -> None:
        try:
            self.message_list.apply_replace_set(scope, value, source)  # type: ignore[arg-type]
        except MessageError as error:
            raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None

    async def _process_input_step(self, step_number: int) -> _StepConfig:
        step = self._step_config()
        hooks = list(self._hooks.get("process_input_step", ()))
        if self.config.prepare_step is not None:
            hooks.append(BoundHook(_PrepareStep(self.config.prepare_step), "process_input_step"))
        message_list = self.message_list
        for bound in hooks:
            messages = message_list.get.all.db()
            args = self._args(
                bound,
                messages=messages,
                step_number=step_number,
                steps=list(self.steps),
                system_messages=step.system
                if step.system is not None
                else message_list.get_all_system_messages(),
                model=step.model,
                tool_choice=step.tool_choice,
                active_tools=step.active_tools,
                tools=step.tools,
                provider_options=step.provider_options,
                model_settings=step.model_settings,
                structured_output=step.structured_output,
            )
            before = message_list.get_all_system_messages()
            result = await self._call(bound, args)
            if step.system is not None:  # D17: run-scoped additions count for this step too
                known = {id(m) for m in before}
                step.system.extend(
                    m for m in message_list.get_all_system_messages() if id(m) not in known
                )
            self._apply_step_result(bound, result, messages, step)
        return step

    def _apply_step_result(
        self, bound: BoundHook, result: Any, messages: list[Message], step: _StepConfig
    ) -> None:
        if result is None or result is self.message_list or isinstance(result, list | MessageList):
            self._apply_message_result(bound, result, messages, "input", input_stage=True)
            return
        if not isinstance(result, dict):
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                f"returned {type(result).__name__}; expected None, a dict of step overrides, "
                "a list of messages or the message_list",
            )
        unknown = set(result) - _STEP_KEYS
        if unknown:
            raise ProcessorError(
                bound.processor_id,
                bound.hook,
                f"returned unknown keys {sorted(unknown)} "
                f"(allowed: {', '.join(sorted(_STEP_KEYS))})",
            )
        if "messages" in result and "message_list" in result:
            raise ProcessorError(
                bound.processor_id, bound.hook, "returned both messages and message_list"
            )  # D16
        if "message_list" in result:
            self._apply_message_result(
                bound, result["message_list"], messages, "input", input_stage=True
            )
        if "messages" in result:
            self._replace(bound, messages, result["messages"], "input")
        try:
            self._override(step, result)
        except (ConfigurationError, MessageError, ValueError) as error:
            raise ProcessorError(bound.processor_id, bound.hook, str(error)) from None

    def _override(self, step: _StepConfig, result: dict[str, Any]) -> None:
        """Keys returned by ``process_input_step`` replace, never merge (D16, D17)."""
        from procession.messages.inputs import coerce_system

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

    async def _process_llm_request(
        self, step: _StepConfig, prompt: list[dict[str, Any]], step_number: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        cached: dict[str, Any] | None = None
        for bound in self._hooks.get("process_llm_request", ()):
            args = self._args(
                bound,
                prompt=prompt,
                model=step.model,
                step_number=step_number,
                steps=list(self.steps),
            )
            result = await self._call(bound, args)
            if result is None:
                continue
            if not isinstance(result, dict) or set(result) - {"prompt", "response"}:
                raise ProcessorError(
                    bound.processor_id,
                    bound.hook,
                    "must return None or a dict with 'prompt' and/or 'response'",
                )
            if "prompt" in result:
                prompt = result["prompt"]
            if "response" in result and cached is None:  # D7: the first response wins
                cached = _check_cached(bound, result["response"])
        return prompt, cached

    async def _process_llm_response(
        self,
        step: _StepConfig,
        step_number: int,
        raw: list[dict[str, Any]] | None,
        cached: dict[str, Any] | None,
        request: dict[str, Any],
        warnings: list[dict[str, Any]],
    ) -> None:
        for bound in self._hooks.get("process_llm_response", ()):
            args = self._args(
                bound,
                chunks=list(raw or ()),
                model=step.model,
                step_number=step_number,
                steps=list(self.steps),
                from_cache=cached is not None,
                warnings=warnings,
                request=request,
                raw_response=(cached or {}).get("raw_response"),
            )
            await self._call(bound, args)

    async def _process_output_step(self, step: _StepConfig, result: StepResult) -> None:
        message_list = self.message_list
        for bound in self._hooks.get("process_output_step", ()):
            messages = message_list.get.all.db()
            args = self._args(
                bound,
                messages=messages,
                step_number=result.step_number,
                finish_reason=result.finish_reason,
                provider_metadata=result.provider_metadata,
                tool_calls=list(result.tool_calls),
                text=result.text,
                usage=result.usage,
                system_messages=step.system
                if step.system is not None
                else message_list.get_all_system_messages(),
                steps=list(self.steps),
            )
            outcome = await self._call(bound, args)
            self._apply_message_result(bound, outcome, messages, "response", input_stage=False)

    async def _process_output_result(self) -> None:
        message_list = self.message_list
        result = self.result
        result.text = "".join(step.text for step in self.steps)
        result.finish_reason = self.steps[-1].finish_reason if self.steps else "unknown"
        result.steps = self.steps
        result.usage = self.usage
        try:
            for bound in self._hooks.get("process_output_result", ()):
                messages = message_list.get.response.db()
                args = self._args(bound, messages=messages, result=result)
                args["writer"] = self._direct_writer
                outcome = await self._call(bound, args)
                self._apply_message_result(bound, outcome, messages, "response", input_stage=False)
        except TripWire as tripwire:  # D1: nothing to retry after the loop
            raise _Tripwire(tripwire.payload()) from None
        await self.settle()

    async def _api_error(self, error: Exception, step_number: int) -> NoReturn:
        """D14: ask the error lane; a ``{"retry": True}`` re-runs the step."""
        hooks = self._hooks.get("process_api_error", ())
        retry = False
        for bound in hooks:
            args = self._args(
                bound,
                error=error,
                messages=self.message_list.get.all.db(),
                step_number=step_number,
                steps=list(self.steps),
            )
            args["retry_count"] = self.api_retries  # D5
            try:
                answer = await bound(args)
            except TripWire as tripwire:
                await self._claim(tripwire, bound)
                raise _Tripwire(tripwire.payload()) from None
            except Exception:  # D10's exception: logged, the next processor is asked
                logger.exception("process_api_error of %r raised", bound.processor_id)
                continue
            if isinstance(answer, dict) and answer.get("retry"):
                retry = True
                break
        if retry and self._can_retry(self.api_retries):
            self.api_retries += 1
            raise _Retry
        raise error


class _PrepareStep:
    """The ``prepare_step`` call option as the last ``process_input_step`` processor."""

    id = "prepare-step"

    def __init__(self, function: Callable[..., Any]) -> None:
        self._function = function

    async def process_input_step(self, **kwargs: Any) -> Any:
        result = self._function(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


def _check_cached(bound: BoundHook, response: Any) -> dict[str, Any]:
    if not isinstance(response, dict) or not isinstance(response.get("chunks"), list):
        raise ProcessorError(
            bound.processor_id,
            bound.hook,
            "a 'response' must be {'chunks': [{'type', 'payload'}, ...], ...}",
        )
    return response
