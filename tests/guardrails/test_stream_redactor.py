"""StreamRedactor through an Agent: no secret reaches the client, the result, the steps, the
messages or the store, on any channel, under any chunking; the tool still gets the real
arguments; every detection is reported once (D8)."""

from __future__ import annotations

import asyncio
import itertools
import json
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import (
    Agent,
    Chunk,
    ProcessorViolation,
    StreamRedactor,
    message_to_dict,
    tool,
)
from procession.errors import ConfigurationError
from procession.memory import Memory, SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .redaction_data import STREAM_TYPES, carriers, carry, secret_values

SECRETS = [v for kind in STREAM_TYPES for v in secret_values()[kind] if len(v) < 200]


def pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def call_deltas(call_id: str, args_json: str, cuts: list[int]) -> list[Chunk]:
    start = Chunk("tool-call-input-streaming-start", {"toolCallId": call_id, "toolName": "look"})
    deltas = [
        Chunk("tool-call-delta", {"toolCallId": call_id, "toolName": "look", "argsTextDelta": p})
        for p in pieces(args_json, cuts)
    ]
    return [start, *deltas, Chunk("tool-call-input-streaming-end", {"toolCallId": call_id})]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


async def run_everything(
    storage: SQLiteStorage, secret: str, text: str, cuts: list[int], fail: bool
) -> tuple[list[Chunk], Any, list[Any], list[str]]:
    """One run carrying ``secret`` on every channel; the chunks, result, stored messages and
    what the tool received."""
    seen: list[str] = []

    @tool
    def look(card: str) -> str:
        """Look a value up."""
        seen.append(card)
        if fail:
            raise ValueError(f"no record of {card}")
        return f"found {card}"

    args = {"card": secret}
    model = ScriptedModel(
        [
            Reply(
                reasoning=pieces(text, cuts),
                text=pieces(text, cuts[::-1]),
                extra_chunks=call_deltas("c1", dumps(args), cuts),
                tool_calls=[ToolCallScript("look", args, "c1")],
            ),
            Reply(text=pieces(text, [c + 1 for c in cuts])),
        ]
    )
    thread, resource = f"t-{uuid.uuid4().hex}", "r"
    agent = Agent(
        id="a",
        model=model,
        tools=[look],
        memory=Memory(storage),
        output_processors=[StreamRedactor()],
    )
    stream = agent.stream("hello", thread_id=thread, resource_id=resource)
    chunks = [chunk async for chunk in stream]
    result = await stream.result()
    stored = await storage.list_messages(thread, resource_id=resource)
    return chunks, result, stored, seen


def assert_nowhere(secret: str, chunks: list[Chunk], result: Any, stored: list[Any]) -> None:
    for chunk in chunks:
        assert secret not in dumps(chunk.to_dict()), chunk
    assert secret not in result.text
    assert secret not in result.reasoning
    for step in result.steps:
        assert secret not in step.text + step.reasoning
        assert secret not in dumps([c.to_dict() for c in step.tool_calls])
        assert secret not in dumps([(r.args, r.result, r.error) for r in step.tool_results])
    assert secret not in dumps([message_to_dict(m) for m in result.messages])
    assert secret not in dumps([message_to_dict(m) for m in stored])


@pytest.fixture(scope="module")
def storage() -> Any:
    with tempfile.TemporaryDirectory() as folder:
        yield SQLiteStorage(Path(folder) / "memory.sqlite")


@settings(max_examples=300, deadline=None)
@given(
    secret=st.sampled_from(SECRETS),
    carrier=st.sampled_from(carriers()),
    cuts=st.lists(st.integers(1, 120), max_size=8),
    fail=st.booleans(),
)
def test_no_channel_leaks_under_any_chunking(
    storage: SQLiteStorage, secret: str, carrier: str, cuts: list[int], fail: bool
) -> None:
    text = carry(carrier, secret)
    chunks, result, stored, seen = asyncio.run(run_everything(storage, secret, text, cuts, fail))
    assert seen == [secret]  # the tool ran with the real arguments
    assert_nowhere(secret, chunks, result, stored)
    assert stored, "the run was stored"


@pytest.mark.asyncio
async def test_every_detection_is_reported_once() -> None:  # D8
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel([Reply(text=["mail ada@exa", "mple.com or 4111 1111 1", "111 1111 ok"])])
    agent = Agent(id="a", model=model, output_processors=[StreamRedactor(on_violation=seen.append)])
    result = await agent.generate("x")
    assert result.text == "mail [REDACTED] or [REDACTED] ok"
    assert [(v.detail or {}).get("type") for v in seen] == ["email", "card"]
    assert all(v.processor_id == "stream-redactor" for v in seen)


@pytest.mark.asyncio
async def test_an_overridden_on_violation_is_called_and_may_be_async() -> None:  # D8
    got: list[str] = []

    class Audited(StreamRedactor):
        async def on_violation(self, violation: ProcessorViolation[Any]) -> None:
            got.append(violation.message)

    model = ScriptedModel([Reply(text=["key sk-", "abcdefghijklmnopqrstuvwxyz", " end"])])
    result = await Agent(id="a", model=model, output_processors=[Audited()]).generate("x")
    assert result.text == "key [REDACTED] end"
    assert got == ["redacted api-key"]


@pytest.mark.asyncio
async def test_a_retry_discards_the_held_text_of_the_rejected_attempt() -> None:  # D2
    class RejectFirst:
        id = "reject-first"

        def process_output_step(self, *, retry_count: int, abort: Any, **_: Any) -> None:
            if retry_count == 0:
                abort("again", retry=True)

    model = ScriptedModel([Reply(text=["first 4111 1111"]), Reply(text=["second"])])
    agent = Agent(
        id="a",
        model=model,
        output_processors=[StreamRedactor(), RejectFirst()],
        max_processor_retries=1,
    )
    stream = agent.stream("x")
    chunks = [c async for c in stream]
    result = await stream.result()
    assert result.text == "second"
    after_retry = chunks[[c.type for c in chunks].index("step-finish") + 1 :]
    assert "4111" not in dumps([c.to_dict() for c in after_retry])


@pytest.mark.asyncio
async def test_held_text_comes_before_the_chunk_that_ends_it() -> None:
    model = ScriptedModel([Reply(text=["total: 4111 1111 1111 1111"])])
    chunks = [
        c
        async for c in Agent(id="a", model=model, output_processors=[StreamRedactor()]).stream("x")
    ]
    kinds = [c.type for c in chunks]
    last_delta = max(i for i, k in enumerate(kinds) if k == "text-delta")
    assert last_delta < kinds.index("text-end")
    assert "".join(c.payload["text"] for c in chunks if c.type == "text-delta") == (
        "total: [REDACTED]"
    )


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"patterns": ["nope"]}, "patterns"),
        ({"patterns": "card"}, "patterns"),
        ({"hold": 0}, "hold"),
        ({"hold": True}, "hold"),
        ({"tool_chunks": 1}, "tool_chunks"),
        ({"patterns": {"x": "("}}, "valid regex"),
    ],
)
def test_bad_options_are_clear_errors(kwargs: dict[str, Any], needle: str) -> None:  # D35
    with pytest.raises(ConfigurationError, match=needle):
        StreamRedactor(**kwargs)


@pytest.mark.asyncio
async def test_custom_patterns_are_held_across_chunks() -> None:
    model = ScriptedModel([Reply(text=["ref INT", "ERNAL-12", "3456 done"])])
    redactor = StreamRedactor({"internal": r"INTERNAL-\d{6}"}, replacement="[{name}]")
    result = await Agent(id="a", model=model, output_processors=[redactor]).generate("x")
    assert result.text == "ref [internal] done"


@pytest.mark.asyncio
async def test_a_blocked_runs_steps_hold_no_raw_tool_error() -> None:
    secret = "4111111111111111"

    @tool
    def look(card: str) -> str:
        """Look a card up."""
        raise ValueError(f"no record of {secret}")

    class BlockSecondStep:
        id = "block-second-step"

        def process_output_step(self, *, step_number: int, abort: Any, **_: Any) -> None:
            if step_number == 1:
                abort("enough")

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("look", {"card": "x"}, "c1")]), Reply(text=["ok"])]
    )
    agent = Agent(
        id="a",
        model=model,
        tools=[look],
        output_processors=[StreamRedactor(), BlockSecondStep()],
    )
    stream = agent.stream("x")
    chunks = [c async for c in stream]
    result = await stream.result()
    assert result.tripwire is not None
    assert_nowhere(secret, chunks, result, [])
