"""``Agent``: configuration, ``generate()``, ``generate_sync()`` and ``stream()``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from types import MappingProxyType, TracebackType
from typing import Any, Generic, TypeVar, Unpack, overload

from procession._engine import AgentSpec, CallOptions, check_spec, place_lanes, start_run
from procession._engine.config import CALL_DEFAULTS, check_call, check_release
from procession._engine.spec import (
    ErrorLane,
    InputLane,
    Instructions,
    LaneSpec,
    OutputLane,
    check_option,
    check_structured_shortcut,
)
from procession._engine.state import RunState
from procession.approvals import ApprovalBroker
from procession.chunks import Chunk, Usage
from procession.context import RequestContext
from procession.live_text import Retracted, accepted_text, live_text
from procession.memory.base import AgentMemory
from procession.messages.message_list import MessageList
from procession.models.base import LanguageModel
from procession.options import RunOptions
from procession.results import AgentResult, ObjectT, StepResult
from procession.sync_stream import SyncAgentStream
from procession.tools._tool import Tool, with_agents

__all__ = ["Agent", "AgentStream"]


class AgentStream(Generic[ObjectT]):
    """A running ``stream()`` call (``AgentStream[T]``: its result's ``object`` is a ``T``).

    Iterate it for chunks (``async for chunk in stream``), or use :attr:`text_stream` for the
    accepted text only; ``await stream.result()`` gives the final :class:`AgentResult` (reading
    whatever was not read yet). One consumer only. Leaving early — ``break``, :meth:`aclose`,
    the end of an ``async with`` block, or cancelling the task that iterates — cancels the
    model call and any running tool at once and stores nothing (D32).
    """

    __slots__ = ("_chunks", "_iterated", "_state")

    def __init__(self, state: RunState, chunks: AsyncGenerator[Chunk, None]) -> None:
        self._state = state
        self._chunks: AsyncGenerator[Chunk, None] | None = chunks
        # Once iteration begins, the ``async for`` owns the run's generator and the stream keeps
        # a weak reference: a ``break`` drops the last reference, and the event loop's
        # async-generator finalizer closes the run at once (D32).
        self._iterated: weakref.ref[AsyncGenerator[Chunk, None]] | None = None

    def _generator(self) -> AsyncGenerator[Chunk, None] | None:
        """The run's generator, unless iteration began and its owner let go of it."""
        if self._chunks is not None:
            return self._chunks
        return self._iterated() if self._iterated is not None else None

    @property
    def run_id(self) -> str:
        """The id of this run (``runId`` on every chunk)."""
        return self._state.run_id

    @property
    def processor_states(self) -> Mapping[str, dict[str, Any]]:
        """The run's state dict of each processor, by id (D15), read-only: a durable runner
        checks at each checkpoint that they are JSON-serialisable."""
        return MappingProxyType(self._state.states)

    @property
    def message_list(self) -> MessageList:
        """The run's message list, for inspection once the run ended (hooks change it)."""
        return self._state.message_list

    def __aiter__(self) -> AsyncIterator[Chunk]:
        chunks = self._chunks
        if chunks is None:
            raise RuntimeError("an AgentStream can be iterated once")
        self._iterated = weakref.ref(chunks)
        self._chunks = None
        return chunks

    async def __aenter__(self) -> AgentStream[ObjectT]:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """The accepted text, in order (iterates this stream); raises the run's error at the
        end, as ``generate()`` does (D21).

        A rejected attempt's text is never yielded (D31). With ``release="step"`` every delta
        is accepted already. In live mode a step's text waits until the step is accepted, and
        is dropped when a retry marker (D2) rejects it, whenever something could still reject
        it: a processor with ``process_output_stream``, ``process_llm_response``,
        ``process_output_step`` or ``process_tool_result`` (each may retry or block the step),
        or a retry budget for an API error or a structured answer. When nothing can (decided
        when the run starts), the text comes as the model writes it. For text at once with
        the rejected part marked, read :meth:`live_text`.
        """
        return accepted_text(self, self._state, held=self._state.emitter.hold)

    def live_text(self) -> AsyncIterator[str | Retracted]:
        """Each text delta as soon as it passed the output lane, and a
        :class:`~procession.live_text.Retracted` marker (the withdrawn text, the reason,
        the processor) when text already yielded was rejected: a retried attempt (D2), a
        blocked or failed run. Iterates this stream; raises the run's error at the end (D21).
        """
        return live_text(self, self._state)

    async def result(self, *, raise_error: bool = True) -> AgentResult[ObjectT]:
        """Read the rest of the stream and return the final result.

        Like ``generate()``, it raises the error that ended the run (D21: the stream itself
        ended with an ``error`` chunk); ``raise_error=False`` returns the result with the
        error in :attr:`AgentResult.error` instead. A tripwire and the abort signal are
        results, not errors (D12, D32).
        """
        chunks = self._generator()
        self._chunks = None
        if chunks is not None:
            async for _ in chunks:
                pass
        result = self._state.result
        if raise_error and result.error is not None:
            raise result.error
        return result

    async def text(self) -> str:
        """The final text: accepted steps' text after every hook ran, ``""`` if blocked (D23);
        raises the error that ended the run (D21)."""
        return (await self.result()).text

    async def usage(self) -> Usage:
        """Total usage of the run (also of a run that failed: its tokens were spent)."""
        return (await self.result(raise_error=False)).usage

    async def steps(self) -> list[StepResult]:
        """The accepted steps."""
        return (await self.result()).steps

    async def aclose(self) -> None:
        """Stop the run early: the model call and running tools are cancelled (D32)."""
        chunks = self._generator()
        if chunks is not None:
            await chunks.aclose()
        else:  # a ``break`` let go of the run: the event loop is closing it (D32)
            await self._state.wait_closed()


T = TypeVar("T")


class _Option(Generic[T]):
    """An agent's option: read from its spec; setting it checks the value (D35) and replaces
    the spec (a call already running keeps the spec it started with)."""

    __slots__ = ("name",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, agent: None, owner: type) -> _Option[T]: ...

    @overload
    def __get__(self, agent: Agent, owner: type) -> T: ...

    def __get__(self, agent: Agent | None, owner: type) -> T | _Option[T]:
        if agent is None:
            return self
        value: T = getattr(agent.spec, self.name)
        return value

    def __set__(self, agent: Agent, value: object) -> None:
        checked = check_option(self.name, value)
        if self.name == "name" and checked is None:
            checked = agent.spec.id
        agent.spec = dataclasses.replace(agent.spec, **{self.name: checked})


class Agent:
    """An LLM agent with processors around its loop.

    Every option is checked here (D35): a wrong type or an out-of-range value raises a
    ``ConfigurationError`` naming the argument, the value and what is expected.

    Args:
        id: Unique identifier.
        name: Display name (defaults to ``id``).
        description: What the agent does.
        instructions: The system prompt: a string, a list of strings, or a function of the
            request context returning either (sync or async).
        model: A model object or a ``"provider/model"`` id (default: the embedded default).
        tools: Tools as a list or ``{name: tool}``; plain typed functions are accepted, and
            agents (sub-agents: each runs as a tool, ``procession.tools.sub_agents``).
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
        approvals: Where calls of tools marked ``requires_approval`` wait for a decision
            (``procession.approvals``: :class:`~procession.approvals.LocalApprovals` in one
            process).
        agents: Sub-agents by name (Mastra's ``agents``): each becomes the tool
            ``agent-<name>``, as an agent given in ``tools`` does
            (``procession.tools.sub_agents``).
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
        approvals: ApprovalBroker | None = None,
        agents: Mapping[str, Agent] | None = None,
    ) -> None:
        self.spec: AgentSpec = check_spec(
            id=id,
            name=name,
            description=description,
            instructions=instructions,
            model=model,
            tools=with_agents(tools, agents),
            input_processors=input_processors,
            output_processors=output_processors,
            error_processors=error_processors,
            max_processor_retries=max_processor_retries,
            max_retries=max_retries,
            max_steps=max_steps,
            tool_choice=tool_choice,
            provider_options=provider_options,
            model_settings=model_settings,
            memory=memory,
            approvals=approvals,
        )
        """The checked options the engine runs (``procession._engine.AgentSpec``)."""
        place_lanes(self.spec)

    id: _Option[str] = _Option()
    """Unique identifier."""
    name: _Option[str] = _Option()
    """Display name (``id`` unless given)."""
    description: _Option[str | None] = _Option()
    """What the agent does."""
    instructions: _Option[Instructions] = _Option()
    """The system prompt (a string, a list of strings or a function of the request context)."""
    model: _Option[LanguageModel | str | None] = _Option()
    """The model object or ``"provider/model"`` id; ``None``: the embedded default."""
    tools: _Option[dict[str, Tool]] = _Option()
    """The tools, by name."""
    input_processors: _Option[InputLane] = _Option()
    """The input lane: processors (a tuple) or a factory of the request context (D20)."""
    output_processors: _Option[OutputLane] = _Option()
    """The output lane: processors (a tuple) or a factory of the request context (D20)."""
    error_processors: _Option[ErrorLane] = _Option()
    """The error lane: processors (a tuple) or a factory of the request context (D20)."""
    max_processor_retries: _Option[int | None] = _Option()
    """How many times processors may ask for a retry (D4)."""
    max_retries: _Option[int | None] = _Option()
    """Retries of transient model errors (D14); ``None``: the model layer's default, 2."""
    max_steps: _Option[int] = _Option()
    """The maximum number of steps per run."""
    tool_choice: _Option[Any] = _Option()
    """``"auto"``, ``"none"``, ``"required"`` or a tool name."""
    provider_options: _Option[dict[str, Any]] = _Option()
    """Provider-specific options for every call."""
    model_settings: _Option[dict[str, Any]] = _Option()
    """Call settings (temperature, max_output_tokens, ...)."""
    memory: _Option[AgentMemory | None] = _Option()
    """The memory whose processors join the lanes and which stores each completed run."""
    approvals: _Option[ApprovalBroker | None] = _Option()
    """Where calls of tools that require approval wait for a decision."""

    def __repr__(self) -> str:
        return f"<Agent id={self.id!r}>"

    @overload
    def stream(
        self,
        messages: Any,
        *,
        structured_output: type[ObjectT],
        **options: Unpack[RunOptions],
    ) -> AgentStream[ObjectT]: ...

    @overload
    def stream(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentStream[Any]: ...

    def stream(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentStream[Any]:
        """Start a run and stream its chunks (D22). Call-time lanes replace the agent's (D20).

        The options are :class:`~procession.options.RunOptions` (typed: a type checker catches
        a misspelt one); ``structured_output`` (a pydantic model, a JSON schema, or
        ``{"schema": ..., "model": ...}``) types the result's ``object`` by the model given.
        ``release="live"`` sends each chunk as soon as it passed the output lane (a rejected
        attempt is then marked by D2's retry marker); ``release="step"`` holds each step's
        chunks until the step is accepted, so a rejected attempt never reaches the client
        (D31). ``inspect=True`` also sends transient ``data-procession-hook`` chunks saying
        what each processor did (Studio's view, ``procession._engine.notes``). A ``journal`` makes
        the run durable (``procession.journal``): with the same
        ``run_id`` it repeats no model or tool call it checkpointed.
        ``require_tool_approval=True`` makes every tool call wait for the approvals broker's
        decision, as if each tool were marked ``requires_approval`` (Mastra's
        ``requireToolApproval``). Options are checked now (D35): an unknown one raises
        ``TypeError``, a wrong value ``ConfigurationError``.
        """
        if not _OPTION_NAMES.issuperset(options):
            raise _unknown_options(options)
        values = {**CALL_DEFAULTS, **options, "structured_output": structured_output}
        call = _expand_shortcuts(check_call(messages, values))
        state, chunks = start_run(self.spec, call)
        return AgentStream(state, chunks)

    @overload
    async def generate(
        self,
        messages: Any,
        *,
        structured_output: type[ObjectT],
        **options: Unpack[RunOptions],
    ) -> AgentResult[ObjectT]: ...

    @overload
    async def generate(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentResult[Any]: ...

    async def generate(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentResult[Any]:
        """Run to completion (D18: drains ``stream()``). Returns on a tripwire (D12) and on the
        abort signal (D32); raises the error that ended the run otherwise (D21). The options
        are ``stream()``'s (:class:`~procession.options.RunOptions`)."""
        check_release(options.pop("release", "live"))  # no effect on a result, still checked (D35)
        stream = self.stream(messages, structured_output=structured_output, **options)
        async with aclosing(stream):
            return await stream.result()

    @overload
    def generate_sync(
        self,
        messages: Any,
        *,
        structured_output: type[ObjectT],
        **options: Unpack[RunOptions],
    ) -> AgentResult[ObjectT]: ...

    @overload
    def generate_sync(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentResult[Any]: ...

    def generate_sync(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> AgentResult[Any]:
        """``generate()`` for scripts and notebooks: runs the event loop until the result.

        Inside a running event loop (a notebook's), the run gets its own loop in a worker
        thread; in async code, prefer ``await agent.generate(...)``.
        """
        work = self.generate(messages, structured_output=structured_output, **options)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(work)
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, work).result()

    @overload
    def stream_sync(
        self,
        messages: Any,
        *,
        structured_output: type[ObjectT],
        **options: Unpack[RunOptions],
    ) -> SyncAgentStream[ObjectT]: ...

    @overload
    def stream_sync(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> SyncAgentStream[Any]: ...

    def stream_sync(
        self, messages: Any, *, structured_output: Any = None, **options: Unpack[RunOptions]
    ) -> SyncAgentStream[Any]:
        """``stream()`` for scripts: a synchronous iterator of chunks, with ``text_stream``,
        ``live_text()`` and ``result()`` as the async stream has
        (:class:`~procession.sync_stream.SyncAgentStream`).

        The run advances as the loop pulls chunks, on an event loop of its own (on a worker
        thread when called inside a running event loop, as ``generate_sync()``). Leaving the
        loop early (``break``, ``close()``, a ``with`` block's end) cancels the run (D32).
        Options are ``stream()``'s, checked now (D35).
        """
        return SyncAgentStream(
            self.stream(messages, structured_output=structured_output, **options)
        )


_OPTION_NAMES = frozenset(CALL_DEFAULTS)


def _unknown_options(options: Mapping[str, Any]) -> TypeError:
    """The error for call options that do not exist, as a plain function's misspelt keyword
    is: each named, and the options listed."""
    names = ", ".join(repr(name) for name in sorted(set(options) - _OPTION_NAMES))
    return TypeError(
        f"Agent.stream() got unexpected keyword argument(s) {names}; the call options are "
        f"procession.RunOptions': {', '.join(sorted(RunOptions.__annotations__))}"
    )


def _expand_shortcuts(call: CallOptions) -> CallOptions:
    """``structured_output={"schema": ..., "model": ...}``: a ``StructuredOutputProcessor``
    last in the output lane structures the answer with that model (Mastra's
    ``structuredOutput.model``); the agent's own model is not asked for JSON."""
    structured = call.structured_output
    if isinstance(structured, Mapping) and "model" in structured:
        from procession.guardrails.structured_output import StructuredOutputProcessor

        values = check_structured_shortcut(structured)
        processor = StructuredOutputProcessor(values.pop("schema"), values.pop("model"), **values)
        call.output_last = (*call.output_last, processor)
        call.structured_output = None
    return call
