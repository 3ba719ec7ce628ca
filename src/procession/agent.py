"""``Agent``: configuration, ``generate()`` and ``stream()``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from procession._lanes import LaneSpec, check_lane, resolve_lane
from procession._run import Run, RunConfig
from procession.chunks import Chunk, Usage
from procession.context import RequestContext
from procession.errors import ConfigurationError
from procession.memory.base import AgentMemory
from procession.messages.message import new_id
from procession.messages.message_list import MessageList
from procession.models.base import LanguageModel
from procession.results import AgentResult, StepResult
from procession.signals import AbortSignal
from procession.tools._tool import Tool, toolset

__all__ = ["Agent", "AgentStream"]

_UNSET: Any = object()


class AgentStream:
    """A running ``stream()`` call.

    Iterate it for chunks (``async for chunk in stream``), or use :attr:`text_stream` for the
    text deltas only; ``await stream.result()`` gives the final :class:`AgentResult` (reading
    whatever was not read yet). One consumer only.
    """

    __slots__ = ("_iterator", "_run", "_started")

    def __init__(self, run: Run) -> None:
        self._run = run
        self._iterator: AsyncIterator[Chunk] | None = None
        self._started = False

    @property
    def run_id(self) -> str:
        """The id of this run (``runId`` on every chunk)."""
        return self._run.run_id

    def __aiter__(self) -> AsyncIterator[Chunk]:
        if self._started:
            raise RuntimeError("an AgentStream can be iterated once")
        self._started = True
        self._iterator = self._run.chunks()
        return self._iterator

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """The text of each ``text-delta`` chunk, in order (iterates this stream)."""
        return self._text_deltas()

    async def _text_deltas(self) -> AsyncIterator[str]:
        """The text of each ``text-delta`` chunk, in order."""
        async for chunk in self:
            if chunk.type == "text-delta":
                yield chunk.payload["text"]

    async def result(self) -> AgentResult:
        """Read the rest of the stream and return the final result."""
        if not self._started:
            async for _ in self:
                pass
        elif self._iterator is not None:
            async for _ in self._iterator:
                pass
        return self._run.result

    async def text(self) -> str:
        """The final text (D23)."""
        return (await self.result()).text

    async def usage(self) -> Usage:
        """Total usage of the run."""
        return (await self.result()).usage

    async def steps(self) -> list[StepResult]:
        """The accepted steps."""
        return (await self.result()).steps

    async def aclose(self) -> None:
        """Stop the run early."""
        if self._iterator is not None:
            aclose = getattr(self._iterator, "aclose", None)
            if aclose is not None:
                await aclose()


class Agent:
    """An LLM agent with processors around its loop.

    Args:
        id: Unique identifier.
        name: Display name (defaults to ``id``).
        description: What the agent does.
        instructions: The system prompt: a string, a list of strings, or a function of the
            request context returning either.
        model: A model object or a ``"provider/model"`` id (default: the embedded default).
        tools: Tools as a list or ``{name: tool}``; plain typed functions are accepted.
        input_processors: Processors of the input lane (a list, or a factory of the request
            context, D20).
        output_processors: Processors of the output lane.
        error_processors: Processors of the error lane (``process_api_error``).
        max_processor_retries: How many times processors may ask for a retry (D4).
        max_retries: Retries of transient model errors (429, 5xx, connection) with back-off,
            before error processors see them (D14; default 2).
        max_steps: The maximum number of steps (model calls) per run (default 5).
        tool_choice: ``"auto"`` (default), ``"none"``, ``"required"`` or a tool name.
        provider_options: Provider-specific options for every call.
        model_settings: Call settings (temperature, max_output_tokens, ...).
        memory: A memory (:class:`procession.memory.Memory`): its processors join the lanes
            (input first, output last, D20) and it stores each completed run (D13). Calls then
            take ``thread_id`` and ``resource_id``.
    """

    def __init__(
        self,
        *,
        id: str,
        name: str | None = None,
        description: str | None = None,
        instructions: str | Sequence[str] | Callable[[RequestContext], Any] | None = None,
        model: LanguageModel | str | None = None,
        tools: Any = None,
        input_processors: LaneSpec = None,
        output_processors: LaneSpec = None,
        error_processors: LaneSpec = None,
        max_processor_retries: int | None = None,
        max_retries: int | None = None,
        max_steps: int = 5,
        tool_choice: Any = "auto",
        provider_options: dict[str, Any] | None = None,
        model_settings: dict[str, Any] | None = None,
        memory: AgentMemory | None = None,
    ) -> None:
        if not id:
            raise ConfigurationError("Agent: id must be a non-empty string")
        if max_steps < 1:
            raise ConfigurationError(f"Agent {id!r}: max_steps must be at least 1")
        if max_processor_retries is not None and max_processor_retries < 0:
            raise ConfigurationError(f"Agent {id!r}: max_processor_retries must be >= 0")
        self.id = id
        self.name = name or id
        self.description = description
        self.instructions = instructions
        self.model = model
        self.tools: dict[str, Tool] = toolset(tools)
        for lane, spec in (
            ("input", input_processors),
            ("output", output_processors),
            ("error", error_processors),
        ):
            if spec is not None and not callable(spec):
                check_lane(lane, spec)  # D25: a clear error when the agent is built
        self.input_processors = input_processors
        self.output_processors = output_processors
        self.error_processors = error_processors
        self.max_processor_retries = max_processor_retries
        self.max_retries = max_retries
        self.max_steps = max_steps
        self.tool_choice = tool_choice
        self.provider_options = provider_options or {}
        self.model_settings = model_settings or {}
        if memory is not None and not isinstance(memory, AgentMemory):
            raise ConfigurationError(
                f"Agent {id!r}: memory must provide input_processors(), output_processors() "
                f"and commit() (got {memory!r})"
            )
        self.memory = memory

    def __repr__(self) -> str:
        return f"<Agent id={self.id!r}>"

    def stream(
        self,
        messages: Any,
        *,
        input_processors: LaneSpec = _UNSET,
        output_processors: LaneSpec = _UNSET,
        error_processors: LaneSpec = _UNSET,
        max_processor_retries: int | None = _UNSET,
        max_retries: int | None = None,
        max_steps: int | None = None,
        model: LanguageModel | str | None = None,
        tools: Any = None,
        tool_choice: Any = None,
        active_tools: list[str] | None = None,
        provider_options: dict[str, Any] | None = None,
        model_settings: dict[str, Any] | None = None,
        instructions: str | Sequence[str] | None = None,
        system: str | Sequence[str] | None = None,
        context: Any = None,
        request_context: RequestContext | None = None,
        abort_signal: AbortSignal | None = None,
        prepare_step: Callable[..., Any] | None = None,
        structured_output: Any = None,
        thread_id: str | None = None,
        resource_id: str | None = None,
        run_id: str | None = None,
    ) -> AgentStream:
        """Start a run and stream its chunks (D22). Call-time lanes replace the agent's (D20)."""
        overrides = {
            "input_processors": input_processors,
            "output_processors": output_processors,
            "error_processors": error_processors,
            "max_processor_retries": max_processor_retries,
        }
        run = _PendingRun(
            self,
            messages,
            overrides,
            {
                "max_steps": max_steps,
                "max_retries": max_retries,
                "model": model,
                "tools": tools,
                "tool_choice": tool_choice,
                "active_tools": active_tools,
                "provider_options": provider_options,
                "model_settings": model_settings,
                "instructions": instructions,
                "system": system,
                "context": context,
                "request_context": request_context,
                "abort_signal": abort_signal,
                "prepare_step": prepare_step,
                "structured_output": structured_output,
                "thread_id": thread_id,
                "resource_id": resource_id,
                "run_id": run_id,
            },
        )
        return AgentStream(run)

    async def generate(self, messages: Any, **options: Any) -> AgentResult:
        """Run to completion (D18: drains ``stream()``). Returns on a tripwire (D12); raises
        the error that ended the run otherwise (D21)."""
        stream = self.stream(messages, **options)
        result = await stream.result()
        if result.error is not None:
            raise result.error
        return result


class _PendingRun(Run):
    """A Run whose configuration is resolved when iteration starts (lane factories are async)."""

    def __init__(
        self, agent: Agent, messages: Any, overrides: dict[str, Any], options: dict[str, Any]
    ) -> None:
        self._agent = agent
        self._messages = messages
        self._overrides = overrides
        self._options = options
        run_id = options.get("run_id") or new_id("run")
        request_context = options.get("request_context") or RequestContext()
        if options.get("thread_id") is not None:
            request_context.thread_id = options["thread_id"]
        if options.get("resource_id") is not None:
            request_context.resource_id = options["resource_id"]
        message_list = MessageList(
            thread_id=request_context.thread_id, resource_id=request_context.resource_id
        )
        config = RunConfig(agent_id=agent.id, model="", tools={}, request_context=request_context)
        super().__init__(run_id, message_list, config)

    async def _prepare(self) -> None:
        agent, options, overrides = self._agent, self._options, self._overrides
        context = self.request_context
        lanes = {}
        for lane in ("input", "output", "error"):
            spec = overrides[f"{lane}_processors"]
            spec = getattr(agent, f"{lane}_processors") if spec is _UNSET else spec
            lanes[lane] = await resolve_lane(lane, spec, context)
        retries = overrides["max_processor_retries"]
        model = options["model"] or agent.model
        if model is None:
            from procession.models.default import default_model

            model = default_model()
        config = self.config
        config.model = model
        config.tools = toolset(options["tools"]) if options["tools"] is not None else agent.tools
        config.tool_choice = options["tool_choice"] or agent.tool_choice
        config.active_tools = options["active_tools"]
        config.provider_options = options["provider_options"] or agent.provider_options
        config.model_settings = options["model_settings"] or agent.model_settings
        config.structured_output = options["structured_output"]
        config.max_steps = options["max_steps"] or agent.max_steps
        config.max_processor_retries = agent.max_processor_retries if retries is _UNSET else retries
        config.max_retries = (
            options["max_retries"] if options["max_retries"] is not None else agent.max_retries
        )
        config.input_processors = lanes["input"]
        config.output_processors = lanes["output"]
        config.error_processors = lanes["error"]
        config.prepare_step = options["prepare_step"]
        config.abort_signal = options["abort_signal"]
        self.signal = config.abort_signal
        if agent.memory is not None:
            memory = agent.memory
            prepare = getattr(memory, "prepare", None)
            if callable(prepare):  # optional: check the thread before any hook runs
                await prepare(context)
            config.input_processors = _merge(
                memory.input_processors(context), config.input_processors, first=True
            )
            config.output_processors = _merge(
                memory.output_processors(context), config.output_processors, first=False
            )
            config.on_complete.append(memory.commit)
        await self._seed_messages()

    async def _seed_messages(self) -> None:
        agent, options = self._agent, self._options
        message_list = self.message_list
        instructions = options["instructions"] or agent.instructions
        if callable(instructions) and not isinstance(instructions, str):
            instructions = instructions(self.request_context)
            if hasattr(instructions, "__await__"):
                instructions = await instructions
        for text in _texts(instructions):
            message_list.add_system(text)
        for text in _texts(options["system"]):
            message_list.add_system(text, tag="user-provided")
        if options["context"] is not None:
            message_list.add(options["context"], "context")
        message_list.add(self._messages, "input")


def _merge(memory: list[Any], configured: list[Any], *, first: bool) -> list[Any]:
    """Memory processors around a lane (D20), skipping ids the lane already has."""
    taken = {getattr(p, "id", None) for p in configured}
    extra = [p for p in memory if getattr(p, "id", None) not in taken]
    return [*extra, *configured] if first else [*configured, *extra]


def _texts(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    return [v for v in value if isinstance(v, str) and v]
