"""StreamRedactor and hooks that return several chunks."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk, ProcessorViolation, StreamRedactor
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, texts


@pytest.mark.parametrize(
    "deltas",
    [
        ["My card is 4111 1111 1111 1111, ok?"],
        ["My card is 4111 11", "11 1111 1111, ok?"],
        ["My card is 4", "1", "1", "1 1111 1111 ", "1111", ", ok?"],
    ],
)
@pytest.mark.asyncio
async def test_card_numbers_split_across_deltas_never_reach_the_client(deltas: list[str]) -> None:
    model = ScriptedModel([Reply(text=deltas)])
    stream = agent(model, output_processors=[StreamRedactor()]).stream("x")
    chunks = await collect(stream)
    sent = texts(chunks)
    assert sent == "My card is [REDACTED], ok?"
    for chunk in chunks:
        assert "1111" not in str(chunk.payload)
    result = await stream.result()
    assert result.text == sent
    assert result.messages[0].text == sent


@pytest.mark.asyncio
async def test_text_is_released_as_soon_as_it_is_safe() -> None:
    words = ["word "] * 30
    model = ScriptedModel([Reply(text=words)])
    chunks = await collect(agent(model, output_processors=[StreamRedactor(hold=10)]).stream("x"))
    deltas = [c for c in chunks if c.type == "text-delta"]
    assert len(deltas) >= 25  # streaming, not buffered until the end
    assert texts(chunks) == "word " * 30


@pytest.mark.asyncio
async def test_redactions_are_reported() -> None:
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel([Reply(text=["mail ada@example.com or bob@example.org"])])
    redactor = StreamRedactor(["email"], replacement="[{name}]", on_redact=seen.append)
    result = await agent(model, output_processors=[redactor]).generate("x")
    assert result.text == "mail [email] or [email]"
    assert [(v.detail or {}).get("type") for v in seen] == ["email", "email"]  # D8: each


@pytest.mark.asyncio
async def test_a_hook_may_return_several_chunks_each_continuing_down_the_lane() -> None:
    trace = Trace()

    def split(**kw: Any) -> Any:
        part: Chunk = kw["part"]
        if part.type == "text-delta" and part.payload["text"] == "ab":
            return [
                part.copy(payload={**part.payload, "text": "a"}),
                part.copy(payload={**part.payload, "text": "b"}),
            ]
        return part

    splitter = RecordingProcessor("split", trace=trace, process_output_stream=split)
    after = RecordingProcessor("after", ["process_output_stream"], trace=trace)
    model = ScriptedModel([Reply(text=["ab", "c"])])
    chunks = await collect(agent(model, output_processors=[splitter, after]).stream("x"))
    assert [c.payload["text"] for c in chunks if c.type == "text-delta"] == ["a", "b", "c"]
    after_texts = [
        c["part"].payload["text"]
        for c in trace.of("process_output_stream", "after")
        if c["part"].type == "text-delta"
    ]
    assert after_texts == ["a", "b", "c"]


@pytest.mark.asyncio
async def test_a_match_straddling_the_hold_window_is_held_whole() -> None:
    # With a short hold window the safe cut falls inside the card number: the redactor must
    # hold the whole match back, not release its first digits.
    model = ScriptedModel([Reply(text=["hello 4111 1111 1111 1111", " bye"])])
    chunks = await collect(agent(model, output_processors=[StreamRedactor(hold=8)]).stream("x"))
    assert texts(chunks) == "hello [REDACTED] bye"
    for chunk in chunks:
        assert "4111" not in str(chunk.payload)
