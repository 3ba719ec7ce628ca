"""Shared pieces of the contract tests: processors built from functions (sync or async), a
tool-using script that reaches every hook, and the three ways to call an agent."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from procession import (
    Agent,
    AgentResult,
    APICallError,
    Chunk,
    ModelCallOptions,
    StreamResult,
    Usage,
    finish_chunk,
    tool,
)
from procession.processors import ERROR_HOOKS, INPUT_HOOKS, OUTPUT_HOOKS
from procession.testing import Reply, ScriptedModel, ToolCallScript

T = TypeVar("T")

MODES = ("sync", "async")
"""How a test processor's hooks are defined: ``def`` or ``async def`` (D19)."""
CALLS = ("live", "step", "generate")
"""How a run is made: ``stream(release="live")``, ``stream(release="step")``, ``generate()``."""
LOOP_HOOKS = (
    "process_input_step",
    "process_llm_request",
    "process_output_stream",
    "process_llm_response",
    "process_output_step",
    "process_tool_result",
)
"""Hooks inside the loop: ``abort(retry=True)`` there re-runs the step (D1)."""
ALL_HOOKS = INPUT_HOOKS + OUTPUT_HOOKS + ERROR_HOOKS


def lane_of(hook: str) -> str:
    """The lane a hook is called in (D25)."""
    if hook in INPUT_HOOKS:
        return "input"
    if hook in OUTPUT_HOOKS:
        return "output"
    return "error"


def in_lane(hook: str, *processors: Any) -> dict[str, Any]:
    """Agent options putting ``processors`` in the lane that calls ``hook``."""
    return {f"{lane_of(hook)}_processors": list(processors)}


def processor(
    processor_id: str, mode: str, hooks: dict[str, Callable[..., Any]], *, data_parts: bool = False
) -> Any:
    """A processor whose hooks call ``hooks[name](**arguments)``, defined ``def`` or ``async
    def`` as ``mode`` says. Each hook takes ``**kwargs`` only, so it receives every argument
    of its hook. A function returning ``...`` passes the part on (``process_output_stream``)
    or makes no change (any other hook)."""
    namespace: dict[str, Any] = {"id": processor_id, "process_data_parts": data_parts}
    for name, function in hooks.items():
        namespace[name] = _method(name, function, mode)
    cls = type(f"Test_{processor_id.replace('-', '_')}", (), namespace)
    return cls()


def _method(name: str, function: Callable[..., Any], mode: str) -> Callable[..., Any]:
    def passed(result: Any, kwargs: dict[str, Any]) -> Any:
        if result is ...:
            return kwargs["part"] if name == "process_output_stream" else None
        return result

    if mode == "sync":

        def sync_hook(self: Any, **kwargs: Any) -> Any:
            return passed(function(**kwargs), kwargs)

        return sync_hook

    async def async_hook(self: Any, **kwargs: Any) -> Any:
        result = function(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return passed(result, kwargs)

    return async_hook


@dataclass
class Log:
    """What a test tool did."""

    calls: list[dict[str, Any]] = field(default_factory=list)


def lookup_tool(log: Log) -> Any:
    """A tool named ``lookup`` that records its calls and returns ``{"status": "shipped"}``."""

    @tool
    def lookup(order_id: str) -> dict[str, str]:
        """Look up an order."""
        log.calls.append({"order_id": order_id})
        return {"status": "shipped"}

    return lookup


def tool_script(
    *, final: str = "Order A1 has shipped.", api_error_first: bool = False
) -> list[Reply]:
    """A two-step script: a ``lookup`` tool call, then a text answer (every hook runs). With
    ``api_error_first`` a rejected call comes first, so ``process_api_error`` runs too."""
    replies = [
        Reply(
            text=["Let me look."], tool_calls=[ToolCallScript("lookup", {"order_id": "A1"}, "c1")]
        ),
        Reply(text=[final[: len(final) // 2], final[len(final) // 2 :]]),
    ]
    if api_error_first:
        replies.insert(0, Reply(error=APICallError("bad request", status_code=400)))
    return replies


def tool_agent(model: Any, *, log: Log | None = None, **options: Any) -> Agent:
    """An agent with the ``lookup`` tool and test instructions."""
    options.setdefault("instructions", "You are a test agent.")
    return Agent(id="contract-agent", model=model, tools=[lookup_tool(log or Log())], **options)


@dataclass
class Run:
    """One run's client chunks (empty for ``generate()``) and its result."""

    chunks: list[Chunk]
    result: AgentResult
    raised: BaseException | None = None

    @property
    def types(self) -> list[str]:
        """The client chunk types, in order."""
        return [c.type for c in self.chunks]

    @property
    def text(self) -> str:
        """The text of the client's text-delta chunks, joined."""
        return "".join(c.payload["text"] for c in self.chunks if c.type == "text-delta")


async def run(agent: Agent, how: str, prompt: Any = "Where is order A1?", **options: Any) -> Run:
    """Run ``agent`` as ``how`` says (one of :data:`CALLS`). ``generate()`` errors are caught
    into :attr:`Run.raised`, with the result taken from a stream run of the same call."""
    if how == "generate":
        try:
            return Run([], await agent.generate(prompt, **options))
        except Exception as error:  # D21: generate() raises what ended the run
            return Run([], AgentResult(run_id="", error=error), raised=error)
    options["release"] = how
    stream = agent.stream(prompt, **options)
    chunks = [chunk async for chunk in stream]
    return Run(chunks, await stream.result(raise_error=False))


def script_for(hook: str, final: str = "Order A1 has shipped.") -> ScriptedModel:
    """A script that reaches ``hook`` (an API error first for ``process_api_error``), with a
    spare reply for a retry."""
    replies = tool_script(final=final, api_error_first=hook == "process_api_error")
    return ScriptedModel([*replies, *tool_script(final=final)])


class TrackedModel:
    """Wraps a model and counts its streams: how many were opened and how many are still
    open (a stream counts as closed once its generator finished, was closed or collected)."""

    specification_version = "v2"
    supports_structured_output = False

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.provider: str = inner.provider
        self.model_id: str = inner.model_id
        self.opened = 0
        self.open = 0

    @property
    def calls(self) -> list[Any]:
        """The inner model's recorded calls."""
        return list(self.inner.calls)

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start the inner model's call; its stream is counted while it is open."""
        result: StreamResult = await self.inner.do_stream(options)
        result.stream = self._tracked(result.stream)
        return result

    async def _tracked(self, stream: AsyncIterator[Chunk]) -> AsyncIterator[Chunk]:
        self.opened += 1
        self.open += 1
        try:
            async for chunk in stream:
                yield chunk
        finally:
            self.open -= 1
            close = getattr(stream, "aclose", None)
            if close is not None:
                await close()


class HangingModel:
    """A model that streams ``text`` then waits for its next chunk until cancelled (or for
    ``hang`` seconds), as a stalled provider does. ``closed`` counts closed streams."""

    specification_version = "v2"
    supports_structured_output = False
    provider = "hanging"
    model_id = "hanging-model"

    def __init__(self, text: Sequence[str] = ("partial ",), hang: float = 3600.0) -> None:
        self.text = list(text)
        self.hang = hang
        self.calls: list[ModelCallOptions] = []
        self.waiting = asyncio.Event()
        self.closed = 0

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start a call that hangs after its text."""
        self.calls.append(options)
        return StreamResult(stream=self._stream())

    async def _stream(self) -> AsyncIterator[Chunk]:
        try:
            yield Chunk("response-metadata", {"id": "r", "modelId": self.model_id, "timestamp": 0})
            yield Chunk("text-start", {"id": "t"})
            for text in self.text:
                yield Chunk("text-delta", {"id": "t", "text": text})
            self.waiting.set()
            await asyncio.sleep(self.hang)
            yield Chunk("text-end", {"id": "t"})
            yield finish_chunk("stop", Usage(1, 1))
        finally:
            self.closed += 1


def other_tasks() -> set[asyncio.Task[Any]]:
    """Every task of the running loop except the current one."""
    return {t for t in asyncio.all_tasks() if t is not asyncio.current_task()}


async def settle_tasks() -> set[asyncio.Task[Any]]:
    """The tasks still pending after the loop had a few turns to finish what was ending."""
    for _ in range(5):
        await asyncio.sleep(0)
    return {t for t in other_tasks() if not t.done()}


HUNG = 10.0
"""Seconds after which a run that should end at once counts as hung (a guard against a
hanging test, never reached when the runtime behaves; not a speed target)."""


async def bounded(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable``; fail the test if it has not finished after :data:`HUNG` seconds
    (``asyncio.wait_for`` would return a run that swallowed the timeout's cancellation)."""
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=HUNG)
    if not done:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise AssertionError(f"still running after {HUNG} seconds")
    return task.result()
