"""The agents Studio is tested against: scripted models, real processors, real storage.

``support`` remembers its threads and runs the whole repertoire on its first message: a tool
call, a reply too short for ``not-too-short`` (a retry with its reason), a card number that
``StreamRedactor`` redacts on the live stream, a ``data-check`` chunk written by a processor,
and an ``audit`` that blocks the answer because a redaction reached it (a tripwire). Its
second message is answered cleanly and stored. ``echo`` has no memory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from procession import Agent, Memory, StreamRedactor, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript
from procession.tracing import TraceStore, trace_store

CARD = "4111 1111 1111 1111"
FIRST = "Where is order A-1001?"
SECOND = "Thanks. Anything else?"
CLEAN = "Nothing else is pending on your account today, have a good day."


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped"}


class NoSecrets:
    """Blocks passwords in the input."""

    id = "no-secrets"

    def process_input(self, *, messages: list[Any], abort: Any, **_: Any) -> None:
        if any("password" in m.text for m in messages):
            abort("Blocked content detected in input")


class WordCount:
    """Writes a ``data-check`` chunk with each step's word count (a processor's data chunk)."""

    id = "word-count"

    def process_output_step(self, *, text: str, writer: Any, **_: Any) -> None:
        writer.custom({"type": "data-check", "data": {"words": len(text.split())}})


class NotTooShort:
    """Asks the model to try again when an answer is under five words."""

    id = "not-too-short"

    def process_output_step(
        self, *, text: str, tool_calls: list[Any], abort: Any, **_: Any
    ) -> None:
        if not tool_calls and len(text.split()) < 5:
            abort("Answer in a full sentence.", retry=True)


class Audit:
    """Blocks an answer that a redaction had to change."""

    id = "audit"

    def process_output_result(self, *, messages: list[Any], abort: Any, **_: Any) -> None:
        if any("[REDACTED]" in m.text for m in messages):
            abort("A card number reached the answer")


SCRIPT = (
    Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"}, "call-1")]),
    Reply(text=["Shipped."]),
    Reply(text=["Order A-1001 shipped; card ", CARD, " was charged."]),
    Reply(text=[CLEAN]),
)


class Scenario:
    """The support agent's model: every run that starts with :data:`FIRST` plays
    :data:`SCRIPT` from its beginning; any other run gets what follows (:data:`CLEAN`), so
    tests sharing one server do not depend on their order."""

    def __init__(self) -> None:
        self.script = ScriptedModel(list(SCRIPT), repeat_last=True)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.script, name)

    async def do_stream(self, options: Any) -> Any:
        """Restart the script on :data:`FIRST`, then answer from it."""
        last = options.prompt[-1]
        if last["role"] == "user" and _text(last) == FIRST:
            self.script = ScriptedModel(list(SCRIPT), repeat_last=True)
        return await self.script.do_stream(options)


def _text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if part.get("type") == "text")


def support_agent(memory: Memory) -> Agent:
    """The agent with a redaction, a retry, a data chunk and a tripwire on its first run."""
    return Agent(
        id="support",
        name="Support",
        description="Answers questions about orders.",
        model=Scenario(),
        tools=[lookup_order],
        memory=memory,
        input_processors=[NoSecrets()],
        output_processors=[StreamRedactor(), WordCount(), NotTooShort(), Audit()],
        max_processor_retries=1,
    )


def echo_agent() -> Agent:
    """An agent without memory."""
    return Agent(id="echo", name="Echo", model=ScriptedModel(["Echo here."], repeat_last=True))


def traced(database: Path) -> tuple[TracerProvider, TraceStore]:
    """A (non-global) tracer provider writing to a trace store in ``database``, batched as
    ``configure_tracing`` does, with a short delay so timelines appear quickly."""
    store = trace_store(database)
    provider = TracerProvider(resource=Resource.create({"service.name": "studio-tests"}))
    provider.add_span_processor(BatchSpanProcessor(store, schedule_delay_millis=50))
    return provider, store
