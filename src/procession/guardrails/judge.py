"""The judge: one model call that answers a question as JSON, for model-judged guardrails.

Model-judged detectors (moderation, prompt injection, system-prompt leaks, names and
addresses, language and translation, classifiers) all ask a model the same way: a system
prompt saying what to look for, the content to judge, and an answer that must match a JSON
schema. :class:`Judge` does that with any model — a model object or a ``"provider/model"``
id, the embedded ``local/smollm2`` included — at temperature 0::

    @dataclass
    class Verdict:
        flagged: bool
        reason: str = ""

    judge = Judge("openai/gpt-5-mini", processor_id="moderation", instructions="...")
    verdict = await judge.ask(fence(text), Verdict, abort=abort)
    if verdict is not None and verdict.flagged:
        ...

**Parsing.** The answer is read with :func:`~procession.guardrails._text.jsonrepair.
extract_json` (prose, code fences, single quotes, Python literals, bare keys, trailing
commas and truncated objects are repaired) and validated against the answer type — a
dataclass, a ``TypedDict`` or a pydantic model — with pydantic in lax mode (``"0.8"`` is a
float). What still fails is a :class:`JudgeError`. The answer type's JSON schema goes to the
model as structured output (native where the model supports it: the embedded model then
generates under a grammar; an instruction otherwise).

**Error strategy.** ``error_strategy="strict"`` (the default, D10: a guardrail fails closed)
turns a failed judge — the model call raised, timed out, returned nothing, or returned what
does not parse — into ``abort(reason)`` naming the failure, or a raised :class:`JudgeError`
when no ``abort`` is given. ``"warn"`` (opt-in, fail open) logs a warning on the
``procession.processors.judge`` logger and :meth:`Judge.ask` returns ``None``: the detector
treats it as nothing detected.

**The internal mark.** The judge runs the model as an internal agent run whose
``request_context`` holds an :class:`InternalRun` under :data:`INTERNAL_RUN` (the string key
``"procession.internal"``). Tracing and usage accounting read it to tell a judge's call apart
from the user's own runs: ``is_internal_run(request_context)``. The judge's run has no
processors and no memory; nothing it does is stored.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeAlias, TypeVar

from procession._engine import AgentSpec, check_spec, place_lanes, stream_run
from procession.chunks import Usage
from procession.context import ContextKey, RequestContext, TracingContext
from procession.errors import ProcessionError, StructuredOutputError
from procession.guardrails._common.options import (
    check_choice,
    check_int,
    check_model,
    check_number,
    check_str,
    option_error,
)
from procession.guardrails._text.jsonrepair import extract_json
from procession.messages.message import Message, get_text
from procession.models.base import LanguageModel
from procession.signals import AbortSignal

if TYPE_CHECKING:
    from pydantic import TypeAdapter


__all__ = [
    "ERROR_STRATEGIES",
    "INTERNAL_RUN",
    "ErrorStrategy",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "check_error_strategy",
    "fence",
    "is_internal_run",
    "select_messages",
]

logger = logging.getLogger("procession.processors.judge")

T = TypeVar("T")

ErrorStrategy: TypeAlias = Literal["strict", "warn"]
"""What a failed judge call does: ``strict`` fails closed, ``warn`` logs it and finds nothing."""
ERROR_STRATEGIES: tuple[ErrorStrategy, ...] = ("strict", "warn")
"""``strict`` (default): a failed judge fails closed; ``warn``: log, treat as nothing found."""


@dataclass(frozen=True, slots=True)
class InternalRun:
    """The mark an internal run (such as a judge's) carries in its ``request_context``.

    Attributes:
        kind: What the run is for: ``"judge"`` for :class:`Judge` calls.
        processor_id: The processor that started it (``"moderation"``, ...).
        purpose: A short label of the question asked, for traces (``"moderation"``).
        parent_run_id: The run the processor was working for, when known.
    """

    kind: str
    processor_id: str
    purpose: str = ""
    parent_run_id: str | None = None


INTERNAL_RUN: ContextKey[InternalRun] = ContextKey("procession.internal")
"""The ``request_context`` key under which an internal run carries its :class:`InternalRun`.

Tracing marks such runs internal, so they can be shown apart from (or hidden under) the
user's run; cost accounting can attribute their usage to the processor that made them.
"""


def is_internal_run(request_context: RequestContext | Mapping[str, Any] | None) -> bool:
    """Whether ``request_context`` belongs to an internal run (a judge's, for instance)."""
    if request_context is None:
        return False
    return isinstance(request_context.get(INTERNAL_RUN.name), InternalRun)


class JudgeError(ProcessionError):
    """A judge's call failed: the model raised or timed out, or its answer does not parse or
    does not match the schema.

    Attributes:
        processor_id: The processor whose judge failed.
        problem: What went wrong, in words.
        text: The model's answer, when there was one.
    """

    def __init__(self, processor_id: str, problem: str, text: str = "") -> None:
        super().__init__(f"{processor_id}: the judge failed: {problem}")
        self.processor_id = processor_id
        self.problem = problem
        self.text = text


@dataclass(frozen=True, slots=True)
class JudgeResult(Generic[T]):
    """A judge's answer.

    Attributes:
        value: The validated answer.
        text: The model's raw answer text.
        repaired: Whether the text needed repair before it parsed (see :mod:`jsonrepair`).
        usage: The tokens the judge's call used.
    """

    value: T
    text: str
    repaired: bool
    usage: Usage


class Judge:
    """Asks a model a question whose answer must match a type (see the module doc).

    Args:
        model: A model object or a ``"provider/model"`` id (resolved when first called).
        processor_id: The processor this judge works for (named in errors and the mark).
        instructions: The judge's system prompt: what to look for and how to answer.
        error_strategy: ``"strict"`` (default: fail closed) or ``"warn"`` (fail open).
        purpose: A label for the :class:`InternalRun` mark (defaults to ``processor_id``).
        max_output_tokens: The answer's token budget (default 256).
        timeout: Seconds the call may take before it counts as failed (``None``: no limit).
        model_settings: Extra call settings; ``temperature`` is always 0.
        provider_options: Provider-specific options for the call.
        input_processors: Input processors of the judge's own run (a response cache, say);
            they see the :data:`INTERNAL_RUN` mark in their ``request_context``.
    """

    __slots__ = (
        "_spec",
        "error_strategy",
        "input_processors",
        "instructions",
        "max_output_tokens",
        "model",
        "model_settings",
        "processor_id",
        "provider_options",
        "purpose",
        "timeout",
    )

    def __init__(
        self,
        model: LanguageModel | str,
        *,
        processor_id: str,
        instructions: str,
        error_strategy: ErrorStrategy = "strict",
        purpose: str | None = None,
        max_output_tokens: int = 256,
        timeout: float | None = None,
        model_settings: Mapping[str, Any] | None = None,
        provider_options: Mapping[str, Any] | None = None,
        input_processors: Sequence[Any] = (),
    ) -> None:
        owner = "Judge"
        self.processor_id = check_str(owner, "processor_id", processor_id)
        self.model = check_model(owner, "model", model)
        self.instructions = check_str(owner, "instructions", instructions)
        self.error_strategy: ErrorStrategy = check_error_strategy(owner, error_strategy)
        self.purpose = check_str(owner, "purpose", purpose or processor_id)
        self.max_output_tokens = check_int(owner, "max_output_tokens", max_output_tokens, 1)
        self.timeout = None if timeout is None else check_number(owner, "timeout", timeout, 0.0)
        if self.timeout == 0.0:
            raise option_error(owner, "timeout", timeout, "a number > 0 or None")
        self.model_settings = _mapping(owner, "model_settings", model_settings)
        self.provider_options = _mapping(owner, "provider_options", provider_options)
        if isinstance(input_processors, str | bytes) or not isinstance(input_processors, Sequence):
            raise option_error(owner, "input_processors", input_processors, "a list of processors")
        self.input_processors = list(input_processors)
        self._spec: AgentSpec | None = None

    def __repr__(self) -> str:
        return f"Judge({self.model!r}, processor_id={self.processor_id!r})"

    async def ask(
        self,
        prompt: str,
        schema: type[T],
        *,
        abort: Callable[..., Any] | None = None,
        abort_signal: AbortSignal | None = None,
        tracing_context: TracingContext | None = None,
    ) -> T | None:
        """The judge's answer to ``prompt``, with the error strategy applied.

        On failure: under ``strict``, ``abort(reason, metadata=...)`` when ``abort`` is given
        (it raises; the run ends with that tripwire), else :class:`JudgeError` is raised; under
        ``warn``, the failure is logged and ``None`` is returned.
        """
        try:
            answer = await self.call(
                prompt, schema, abort_signal=abort_signal, tracing_context=tracing_context
            )
        except JudgeError as error:
            self.fail(error, abort)
            return None
        return answer.value

    def fail(self, error: JudgeError, abort: Callable[..., Any] | None = None) -> None:
        """Apply the error strategy to ``error``: abort or raise (strict), or log (warn)."""
        if self.error_strategy == "warn":
            logger.warning("%s (error_strategy='warn': treated as nothing detected)", error)
            return
        if abort is not None:
            _abort(abort, error)
        raise error

    async def call(
        self,
        prompt: str,
        schema: type[T],
        *,
        abort_signal: AbortSignal | None = None,
        tracing_context: TracingContext | None = None,
    ) -> JudgeResult[T]:
        """Run the model on ``prompt`` and return its validated answer.

        Raises:
            JudgeError: Whatever the error strategy: the call failed, timed out, or the answer
                does not parse or match ``schema``.
        """
        parent = tracing_context.run_id if tracing_context is not None else None
        mark = InternalRun("judge", self.processor_id, self.purpose, parent)
        if self.timeout is None:
            text, usage = await self._run(prompt, schema, mark, abort_signal)
        else:
            try:
                async with asyncio.timeout(self.timeout):
                    text, usage = await self._run(prompt, schema, mark, abort_signal)
            except TimeoutError:
                raise JudgeError(
                    self.processor_id, f"no answer within {self.timeout:g} s"
                ) from None
        return self.parse(text, schema, usage)

    def parse(self, text: str, schema: type[T], usage: Usage | None = None) -> JudgeResult[T]:
        """Parse and validate an answer text (what :meth:`call` does with the model's text)."""
        try:
            value = extract_json(text)
        except ValueError as error:
            raise JudgeError(self.processor_id, str(error), text) from None
        from pydantic import ValidationError

        try:
            validated = _adapter(schema).validate_python(value)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '$'}: {e['msg']}"
                for e in error.errors()[:3]
            )
            raise JudgeError(
                self.processor_id, f"the answer does not match {schema.__name__}: {problems}", text
            ) from None
        repaired = not _is_plain_json(text)
        return JudgeResult(validated, text, repaired=repaired, usage=usage or Usage())

    async def _run(
        self,
        prompt: str,
        schema: type[Any],
        mark: InternalRun,
        abort_signal: AbortSignal | None,
    ) -> tuple[str, Usage]:
        spec = self._spec or self._build_spec()
        context = RequestContext()
        context.set(INTERNAL_RUN, mark)
        state, chunks = stream_run(
            spec,
            prompt,
            structured_output=_adapter(schema).json_schema(),
            request_context=context,
            abort_signal=abort_signal,
        )
        pieces: list[str] = []
        try:
            async with aclosing(chunks):
                async for chunk in chunks:
                    if chunk.type == "text-delta":
                        pieces.append(chunk.payload.get("text", ""))
            result = state.result
        except Exception as error:  # a model adapter's own failure: the judge failed
            raise JudgeError(self.processor_id, f"the model call raised {error!r}") from error
        text = "".join(pieces)
        # The agent's own schema check is strict; the judge repairs instead, so a structured
        # output error is not a failure here: the text is parsed below.
        if result.error is not None and not isinstance(result.error, StructuredOutputError):
            raise JudgeError(self.processor_id, f"the model call failed: {result.error}", text)
        if result.finish_reason == "abort":
            raise JudgeError(self.processor_id, "the call was aborted", text)
        return text, result.usage

    def _build_spec(self) -> AgentSpec:
        """The judge's sub-run: one step, no retries, no tools, started with the
        engine's entry point (not an ``Agent``)."""
        spec = self._spec = check_spec(
            id=f"{self.processor_id}-judge",
            instructions=self.instructions,
            model=self.model,
            max_steps=1,
            max_processor_retries=0,
            tool_choice="none",
            model_settings={
                **self.model_settings,
                "temperature": 0.0,
                "max_output_tokens": self.max_output_tokens,
            },
            provider_options=dict(self.provider_options),
            input_processors=self.input_processors or None,
        )
        place_lanes(spec)
        return spec


def check_error_strategy(owner: str, value: object) -> ErrorStrategy:
    """``value`` if it is one of :data:`ERROR_STRATEGIES` (a ``ConfigurationError`` naming
    ``owner`` otherwise)."""
    checked = check_choice(owner, "error_strategy", value, ERROR_STRATEGIES)
    return "warn" if checked == "warn" else "strict"


def select_messages(messages: Sequence[Message], last_message_only: bool) -> list[Message]:
    """The messages a detector checks: the last one only, or all of them (Mastra's
    ``lastMessageOnly``); messages without text are skipped."""
    chosen = messages[-1:] if last_message_only else messages
    return [message for message in chosen if get_text(message).strip()]


def fence(text: str, tag: str = "content") -> str:
    """``text`` inside ``<tag>…</tag>``, with any closing tag inside it defused, so content
    under judgement cannot end its own quotation and pose as the judge's instructions."""
    closing = f"</{tag}>"
    safe = text.replace(closing, f"</ {tag}>") if closing in text else text
    return f"<{tag}>\n{safe}\n{closing}"


def _abort(abort: Callable[..., Any], error: JudgeError) -> NoReturn:
    abort(
        f"{error} (error_strategy='strict': failing closed)",
        metadata={"judge_error": error.problem, "error_strategy": "strict"},
    )
    raise error  # abort() raises; this is only reached with a non-raising stand-in


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}


def _adapter(schema: type[Any]) -> TypeAdapter[Any]:
    """A pydantic adapter for a dataclass, TypedDict or pydantic model (built once per type;
    pydantic is imported only when a judge first runs)."""
    adapter = _ADAPTERS.get(schema)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[schema] = TypeAdapter(schema)
    return adapter


def _is_plain_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _mapping(owner: str, name: str, value: Mapping[str, Any] | None) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise option_error(owner, name, value, "a mapping or None")
    return dict(value)
