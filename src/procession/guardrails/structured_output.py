"""``StructuredOutputProcessor``: a second model turns the agent's answer into structured data.

The agent answers in prose with its own model (which may be a model with no JSON mode, or
one that reasons worse under a schema); when the final step's stream ends, a separate
**structuring model** reads the answer and produces a value matching ``schema``. Its value
goes to the client as ``object`` and ``object-result`` chunks, right before the stream's end,
and into ``result.object``. The agent's text is unchanged.

The call option ``structured_output={"schema": ..., "model": ...}`` adds this processor to the
output lane (the loop's side of that wiring is described in ``docs/guardrails/output.md``);
placing it in ``output_processors`` yourself does the same.

If the structuring fails (the model call fails, or its answer does not match the schema even
after repair), ``error_strategy`` decides: ``"strict"`` (default) aborts the step with
``retry=True`` (the agent answers again, with the error as feedback, when the processor-retry
budget allows; otherwise the run ends with a tripwire), ``"warn"`` logs and leaves
``result.object`` unset, ``"fallback"`` emits ``fallback_value`` (``object-result`` metadata
``{"fallback": true}``).

The structuring call is an internal run: its ``request_context`` carries
:data:`~procession.guardrails.judge.INTERNAL_RUN` so tracing can tell it apart.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal

from procession._engine import AgentSpec, check_spec, place_lanes, stream_run
from procession.chunks import Chunk
from procession.context import RequestContext, TracingContext
from procession.errors import StructuredOutputError
from procession.guardrails._common.options import (
    check_choice,
    check_model,
    check_str,
    option_error,
)
from procession.guardrails._text.jsonrepair import extract_json
from procession.guardrails.judge import INTERNAL_RUN, InternalRun
from procession.processors.base import Processor
from procession.structured import StructuredOutput, structured_output_spec

if TYPE_CHECKING:
    from procession.models.base import LanguageModel

__all__ = ["DEFAULT_STRUCTURING_INSTRUCTIONS", "StructuredOutputProcessor"]

logger = logging.getLogger("procession.processors.structured_output")

DEFAULT_STRUCTURING_INSTRUCTIONS = (
    "You convert an assistant's answer into structured data. Read the answer between the "
    "<answer> tags and return only a JSON value matching the schema, using only information "
    "the answer contains."
)
"""The structuring model's instructions unless ``instructions=`` replaces them."""
_OWNER = "StructuredOutputProcessor"


class StructuredOutputProcessor(Processor):
    """Structures the final answer with a separate model (Mastra's
    ``StructuredOutputProcessor``; output lane).

    Args:
        schema: A pydantic model class or a JSON schema.
        model: The structuring model (object or ``"provider/model"``).
        instructions: The structuring model's system prompt.
        error_strategy: ``"strict"`` (default), ``"warn"`` or ``"fallback"``.
        fallback_value: The value used under ``"fallback"``.
        provider_options: Provider options for the structuring call.
        model_settings: Call settings for the structuring call (temperature defaults to 0).
    """

    id = "structured-output"

    def __init__(
        self,
        schema: Any,
        model: LanguageModel | str,
        *,
        instructions: str = DEFAULT_STRUCTURING_INSTRUCTIONS,
        error_strategy: Literal["strict", "warn", "fallback"] = "strict",
        fallback_value: Any = None,
        provider_options: Mapping[str, Any] | None = None,
        model_settings: Mapping[str, Any] | None = None,
    ) -> None:
        spec = structured_output_spec(schema)
        if spec is None:
            raise option_error(_OWNER, "schema", schema, "a pydantic model class or a JSON schema")
        self.spec: StructuredOutput = spec
        self.model = check_model(_OWNER, "model", model)
        self.instructions = check_str(_OWNER, "instructions", instructions)
        self.error_strategy = check_choice(
            _OWNER, "error_strategy", error_strategy, ("strict", "warn", "fallback")
        )
        if self.error_strategy == "fallback" and fallback_value is None:
            raise option_error(
                _OWNER, "fallback_value", fallback_value, "a value when error_strategy='fallback'"
            )
        self.fallback_value = fallback_value
        self.provider_options = dict(provider_options or {})
        self.model_settings = {"temperature": 0.0, **dict(model_settings or {})}
        self._spec: AgentSpec | None = None

    def process_output_stream(
        self,
        *,
        part: Chunk,
        state: dict[str, Any],
        request_context: RequestContext,
        tracing_context: TracingContext,
        **_: Any,
    ) -> Chunk | Awaitable[list[Chunk]]:
        """Collect the answer; at the final ``finish``, structure it (once per run)."""
        kind = part.type
        if kind == "text-delta":
            state.setdefault("text", []).append(part.payload.get("text", ""))
        elif kind == "step-finish" and part.payload.get("stepResult", {}).get("reason") == "retry":
            for key in ("text", "done", "object"):  # a rejected attempt: start over
                state.pop(key, None)
        elif kind == "finish" and not state.get("done"):
            return self._structure(part, state, tracing_context)
        return part

    async def _structure(
        self, finish: Chunk, state: dict[str, Any], tracing: TracingContext
    ) -> list[Chunk]:
        text = "".join(state.pop("text", []))
        try:
            value = await self.structure(text, parent_run_id=tracing.run_id)
        except Exception as error:
            return self._failed(finish, state, error)
        state["done"] = True
        state["object"] = value
        plain = _jsonable(value)
        return [
            Chunk("object", {"object": plain}, finish.run_id),
            Chunk("object-result", {"object": plain}, finish.run_id),
            finish,
        ]

    def _failed(self, finish: Chunk, state: dict[str, Any], error: Exception) -> list[Chunk]:
        problem = f"{type(error).__name__}: {error}"
        if self.error_strategy == "strict":
            state["failure"] = problem
            return [finish]
        if self.error_strategy == "warn":
            logger.warning("%s: structuring failed (error_strategy='warn'): %s", self.id, problem)
            return [finish]
        state["done"] = True
        state["object"] = self.fallback_value
        result = Chunk("object-result", {"object": _jsonable(self.fallback_value)}, finish.run_id)
        result.metadata = {"fallback": True, "error": problem}
        return [result, finish]

    def process_output_step(
        self, *, state: dict[str, Any], abort: Callable[..., Any], **_: Any
    ) -> None:
        """Under ``strict``, a failed structuring asks for the step again, with feedback."""
        failure = state.pop("failure", None)
        if failure is not None:
            abort(
                f"Structured output failed: {failure}",
                retry=True,
                metadata={"error": failure},
            )

    def process_output_result(self, *, state: dict[str, Any], result: Any, **_: Any) -> None:
        """Put the structured value on the result (``result.object``)."""
        if "object" in state:
            result.object = state["object"]

    async def structure(self, text: str, *, parent_run_id: str | None = None) -> Any:
        """Run the structuring model over ``text``; the validated value, or an exception."""
        spec = self._spec or self._build_spec()
        context = RequestContext()
        context.set(INTERNAL_RUN, InternalRun("structured-output", self.id, "structuring",
                                              parent_run_id))  # fmt: skip
        state, chunks = stream_run(
            spec,
            f"<answer>\n{text}\n</answer>",
            structured_output=self.spec,
            request_context=context,
        )
        async with aclosing(chunks):
            pieces = [c.payload.get("text", "") async for c in chunks if c.type == "text-delta"]
        result = state.result
        if result.error is None and result.tripwire is None and result.object is not None:
            return result.object
        if result.error is not None and not isinstance(result.error, StructuredOutputError):
            raise result.error
        try:  # small models: repair the JSON before giving up
            repaired = extract_json("".join(pieces))
        except ValueError as error:
            raise StructuredOutputError(f"the structuring model's answer: {error}") from None
        return self.spec.validate(json.dumps(repaired))

    def _build_spec(self) -> AgentSpec:
        """The structuring model's sub-run: one step, no retries, no tools, started with the
        engine's entry point (not an ``Agent``)."""
        spec = self._spec = check_spec(
            id=f"{self.id}-model",
            instructions=self.instructions,
            model=self.model,
            max_steps=1,
            max_processor_retries=0,
            tool_choice="none",
            model_settings=self.model_settings,
            provider_options=self.provider_options,
        )
        place_lanes(spec)
        return spec


def _jsonable(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump(mode="json") if callable(dump) else value
