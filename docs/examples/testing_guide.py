"""The examples of ``docs/testing.md``: testing agents and processors with procession.testing.

Each block between ``# --`` markers appears verbatim in the guide;
``docs/examples/test_testing_guide.py`` runs every example and checks the guide quotes them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from procession import (
    Abort,
    Agent,
    APICallError,
    Chunk,
    Memory,
    ModelCallOptions,
    StreamResult,
    Usage,
    finish_chunk,
    tool,
)
from procession.memory import SQLiteStorage
from procession.testing import (
    FunctionModel,
    RecordingProcessor,
    Reply,
    ScriptedModel,
    ToolCallScript,
    Trace,
    check_model,
    check_storage,
)

# -- scripted


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped"}


@pytest.mark.asyncio
async def test_the_agent_answers_from_the_tool() -> None:
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1"})]),
            Reply(text=["Order A-1 ", "has shipped."]),
        ]
    )
    agent = Agent(id="support", model=model, tools=[lookup_order])

    result = await agent.generate("Where is order A-1?")

    assert result.text == "Order A-1 has shipped."
    assert [step.finish_reason for step in result.steps] == ["tool-calls", "stop"]
    second_prompt = model.calls[1].prompt  # what the model was sent, as plain dicts
    assert second_prompt[-1]["role"] == "tool"
    assert model.remaining == 0  # a third call would raise ScriptExhaustedError


# -- failures


@pytest.mark.asyncio
async def test_a_rejected_call_goes_to_the_error_processors() -> None:
    model = ScriptedModel(
        [
            Reply(error=APICallError("overloaded", status_code=529)),  # raised by the call
            Reply(text=["partial"], stream_error=APICallError("connection reset")),
            Reply(text=["Recovered."]),
        ]
    )

    class RetryTwice:
        id = "retry-twice"

        def process_api_error(self, *, retry_count: int, **_: Any) -> dict[str, bool] | None:
            return {"retry": True} if retry_count < 2 else None

    agent = Agent(id="a", model=model, error_processors=[RetryTwice()], max_retries=0)
    assert (await agent.generate("hi")).text == "Recovered."


# -- function


def answer(options: ModelCallOptions) -> Reply | str:
    """Reply from the prompt: ask again when a processor's feedback is in it."""
    if "[Processor Feedback]" in str(options.prompt):
        return "A complete sentence about your order."
    return "Shipped."


@pytest.mark.asyncio
async def test_the_guardrail_gets_a_full_sentence_on_retry() -> None:
    class FullSentences:
        id = "full-sentences"

        def process_output_step(self, *, text: str, abort: Abort, **_: Any) -> None:
            if len(text.split()) < 3:
                abort("Answer in a full sentence.", retry=True)

    model = FunctionModel(answer)
    agent = Agent(id="a", model=model, output_processors=[FullSentences()], max_processor_retries=1)

    stream = agent.stream("Where is my order?", release="step")
    chunks = [chunk async for chunk in stream]

    shown = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert shown == "A complete sentence about your order."  # the rejected try never left
    assert len(model.calls) == 2


# -- recording


@pytest.mark.asyncio
async def test_hooks_run_in_lifecycle_order() -> None:
    trace = Trace()

    def redact(**kwargs: Any) -> Chunk:
        part: Chunk = kwargs["part"]
        if part.type == "text-delta":
            return part.copy(payload={**part.payload, "text": part.payload["text"].lower()})
        return part

    first = RecordingProcessor("first", ["process_input", "process_output_step"], trace=trace)
    lower = RecordingProcessor("lower", trace=trace, process_output_stream=redact)
    agent = Agent(
        id="a",
        model=ScriptedModel(["HELLO"]),
        input_processors=[first],
        output_processors=[first, lower],
    )

    result = await agent.generate("hi")

    assert result.text == "hello"
    assert trace.hooks("first") == ["process_input", "process_output_step"]
    (step,) = trace.of("process_output_step")
    assert step["text"] == "hello"  # the arguments each call received
    assert [c["part"].type for c in trace.of("process_output_stream")][:2] == [
        "step-start",
        "response-metadata",
    ]


# -- recording2


@pytest.mark.asyncio
async def test_an_abort_is_reported_to_on_violation() -> None:
    guard = RecordingProcessor(
        "no-refunds",
        process_input=lambda **kw: kw["abort"]("Refunds go through a human.", metadata={"t": 1}),
    )
    agent = Agent(id="a", model=ScriptedModel([]), input_processors=[guard])

    result = await agent.generate("I want a refund")

    assert result.tripwire is not None
    assert result.tripwire["processorId"] == "no-refunds"
    assert [v.message for v in guard.violations] == ["Refunds go through a human."]


# -- storage


@pytest.mark.asyncio
async def test_a_blocked_run_stores_nothing() -> None:
    class BlockSecrets:
        id = "block-secrets"

        def process_output_step(self, *, text: str, abort: Abort, **_: Any) -> None:
            if "password" in text:
                abort("A secret was about to be shown.")

    memory = Memory(SQLiteStorage(":memory:"))
    try:
        agent = Agent(
            id="a",
            model=ScriptedModel(["The password is hunter2.", "Fine."]),
            output_processors=[BlockSecrets()],
            memory=memory,
        )
        blocked = await agent.generate("tell me", thread_id="t1", resource_id="ada")
        done = await agent.generate("hello", thread_id="t1", resource_id="ada")

        stored = await memory.storage.list_messages("t1", resource_id="ada")
        assert blocked.text == ""
        assert done.text == "Fine."
        assert [m.text for m in stored] == ["hello", "Fine."]  # only the completed run
    finally:
        await memory.storage.close()


# -- model


class EchoModel:
    """A minimal adapter: echoes the last user text, or calls the tool it is told to."""

    provider = "echo"
    model_id = "echo-1"
    specification_version = "v2"
    supports_structured_output = False

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        return StreamResult(stream=self._stream(options))

    async def _stream(self, options: ModelCallOptions) -> AsyncIterator[Chunk]:
        user = [m for m in options.prompt if m["role"] == "user"][-1]
        text = "".join(p.get("text", "") for p in user["content"])
        forced = (options.tool_choice or {}).get("toolName")
        if forced:
            yield Chunk(
                "tool-call", {"toolCallId": "c1", "toolName": forced, "args": {"text": text}}
            )
            yield finish_chunk("tool-calls", Usage(5, 1, 6))
            return
        yield Chunk("text-start", {"id": "t"})
        yield Chunk("text-delta", {"id": "t", "text": text})
        yield Chunk("text-end", {"id": "t"})
        yield finish_chunk("stop", Usage(5, 1, 6))


@pytest.mark.asyncio
async def test_the_adapter_keeps_the_model_contract() -> None:
    report = await check_model(EchoModel())
    assert report.text("text") == "Say hello."


# -- storage_contract


@pytest.mark.asyncio
async def test_a_storage_keeps_the_storage_contract() -> None:
    report = await check_storage(lambda: SQLiteStorage(":memory:"))
    assert {"atomic_turn", "isolation", "message_ids", "usage_ledger"} <= set(report.passed)


# --


EXAMPLES = [
    test_the_agent_answers_from_the_tool,
    test_a_rejected_call_goes_to_the_error_processors,
    test_the_guardrail_gets_a_full_sentence_on_retry,
    test_hooks_run_in_lifecycle_order,
    test_an_abort_is_reported_to_on_violation,
    test_a_blocked_run_stores_nothing,
    test_the_adapter_keeps_the_model_contract,
    test_a_storage_keeps_the_storage_contract,
]


if __name__ == "__main__":
    for example in EXAMPLES:
        asyncio.run(example())
        print("ok", example.__name__)
