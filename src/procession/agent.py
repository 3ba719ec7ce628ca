"""``Agent``: configuration, ``generate()``, ``generate_sync()`` and ``stream()``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence
from contextlib import aclosing
from types import MappingProxyType, TracebackType
from typing import Any

from procession._checks import check_int, check_mapping, check_optional_int, check_type, wrong
from procession._engine.config import (
    LANES,
    UNSET,
    LaneSpec,
    Release,
    check_approvals,
    check_call,
    check_instructions,
    check_lane_spec,
    check_release,
)
from procession._engine.loop import run
from procession._engine.state import RunState
from procession.approvals import ApprovalBroker
from procession.chunks import Chunk, Usage
from procession.context import RequestContext
from procession.journal import Journal
from procession.memory.base import AgentMemory
from procession.messages.message import new_id
from procession.messages.message_list import MessageList
from procession.models.base import LanguageModel, normalize_tool_choice
from procession.results import AgentResult, StepResult
from procession.signals import AbortSignal
from procession.tools._tool import Tool, toolset

__all__ = ["Agent", "AgentStream"]


class AgentStream:
    """A running ``stream()`` call.

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

    async def __aenter__(self) -> AgentStream:
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
        """The accepted text, in order (iterates this stream).

        A rejected attempt's text is never yielded (D31): with ``release="step"`` every delta
        is already accepted; in live mode each step's text is held until the step is accepted
        and dropped when a retry marker (D2) rejects it.
        """
        return self._text_deltas()

    async def _text_deltas(self) -> AsyncIterator[str]:
        held: list[str] = []
        live = not self._state.emitter.hold
        async for chunk in self:
            kind = chunk.type
            if kind == "text-delta":
                if live:
                    held.append(chunk.payload["text"])
                else:
                    yield chunk.payload["text"]
            elif kind == "step-finish" and held:
                if chunk.payload.get("stepResult", {}).get("reason") != "retry":
                    for text in held:
                        yield text
                held.clear()

    async def result(self) -> AgentResult:
        """Read the rest of the stream and return the final result."""
        chunks = self._generator()
        self._chunks = None
        if chunks is not None:
            async for _ in chunks:
                pass
        return self._state.result

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
        """Stop the run early: the model call and running tools are cancelled (D32)."""
        chunks = self._generator()
        if chunks is not None:
            await chunks.aclose()
        else:  # a ``break`` let go of the run: the event loop is closing it (D32)
            await self._state.wait_closed()


_placements: dict[int, int] = {}
"""How many lane places each processor object (by ``id``) holds across agents (D28)."""


def _place(processors: object) -> None:
    """``processor_index``: the position when the object sits in exactly one lane of one
    agent, else ``None`` (D28). Written once, when an agent is built."""
    if not isinstance(processors, list | tuple):
        return
    for index, processor in enumerate(processors):
        key = id(processor)
        count = _placements.get(key, 0) + 1
        _placements[key] = count
        if count == 1:
            with contextlib.suppress(TypeError):  # not weak-referenceable: its count stays
                weakref.finalize(processor, _placements.pop, key, None)
        with contextlib.suppress(AttributeError, TypeError):  # frozen or slotted: hooks get it
            processor.processor_index = index if count == 1 else None


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
        approvals: Where calls of tools marked ``requires_approval`` wait for a decision
            (``procession.approvals``: :class:`~procession.approvals.LocalApprovals` in one
            process).
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
    ) -> None:
        if not isinstance(id, str) or not id:
            raise wrong("Agent id", id, "a non-empty string")
        self.id = id
        self.name = check_type("name", name, str) or id
        self.description: str | None = check_type("description", description, str)
        self.instructions = check_instructions("instructions", instructions)
        self.model: LanguageModel | str | None = check_type("model", model, (LanguageModel, str))
        self.tools: dict[str, Tool] = toolset(tools)
        self.input_processors = check_lane_spec("input", input_processors)
        self.output_processors = check_lane_spec("output", output_processors)
        self.error_processors = check_lane_spec("error", error_processors)
        self.max_processor_retries = check_optional_int(
            "max_processor_retries", max_processor_retries, minimum=0
        )
        self.max_retries = check_optional_int("max_retries", max_retries, minimum=0)
        self.max_steps = check_int("max_steps", max_steps, minimum=1)
        normalize_tool_choice(tool_choice)
        self.tool_choice = tool_choice
        self.provider_options = check_mapping("provider_options", provider_options)
        self.model_settings = check_mapping("model_settings", model_settings)
        if memory is not None and not isinstance(memory, AgentMemory):
            raise wrong(
                "memory", memory, "a memory with input_processors(), output_processors(), commit()"
            )
        self.memory = memory
        self.approvals = check_approvals(approvals)
        for lane in LANES:
            _place(getattr(self, f"{lane}_processors"))

    def __repr__(self) -> str:
        return f"<Agent id={self.id!r}>"

    def stream(
        self,
        messages: Any,
        *,
        input_processors: LaneSpec = UNSET,
        output_processors: LaneSpec = UNSET,
        error_processors: LaneSpec = UNSET,
        max_processor_retries: int | None = UNSET,
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
        request_context: RequestContext | dict[str, Any] | None = None,
        abort_signal: AbortSignal | None = None,
        prepare_step: Callable[..., Any] | None = None,
        structured_output: Any = None,
        thread_id: str | None = None,
        resource_id: str | None = None,
        run_id: str | None = None,
        release: Release = "live",
        journal: Journal | None = None,
        approvals: ApprovalBroker | None = None,
        inspect: bool = False,
    ) -> AgentStream:
        """Start a run and stream its chunks (D22). Call-time lanes replace the agent's (D20).

        ``release="live"`` sends each chunk as soon as it passed the output lane (a rejected
        attempt is then marked by D2's retry marker); ``release="step"`` holds each step's
        chunks until the step is accepted, so a rejected attempt never reaches the client
        (D31). ``inspect=True`` also sends transient ``data-procession-hook`` chunks saying
        what each processor did (Studio's view, ``procession._engine.notes``). A ``journal`` makes
        the run durable (``procession.journal``): with the same
        ``run_id`` it repeats no model or tool call it checkpointed. Options are checked now
        (D35).
        """
        options = dict(locals())
        del options["self"], options["messages"]
        call = check_call(self, messages, options)
        state = RunState(
            run_id=call.run_id or new_id("run"),
            agent_id=self.id,
            request_context=call.request_context,
            signal=call.abort_signal,
            hold=call.release == "step",
        )
        return AgentStream(state, run(self, call, state))

    async def generate(self, messages: Any, **options: Any) -> AgentResult:
        """Run to completion (D18: drains ``stream()``). Returns on a tripwire (D12) and on the
        abort signal (D32); raises the error that ended the run otherwise (D21)."""
        check_release(options.pop("release", "live"))  # no effect on a result, still checked (D35)
        stream = self.stream(messages, **options)
        async with aclosing(stream):
            result = await stream.result()
        if result.error is not None:
            raise result.error
        return result

    def generate_sync(self, messages: Any, **options: Any) -> AgentResult:
        """``generate()`` for scripts and notebooks: runs the event loop until the result.

        Inside a running event loop (a notebook's), the run gets its own loop in a worker
        thread; in async code, prefer ``await agent.generate(...)``.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.generate(messages, **options))
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self.generate(messages, **options)).result()
