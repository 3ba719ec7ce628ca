"""process_llm_request and process_llm_response: prompt rewrites and cache replay (D7)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Chunk
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, texts


def rewrite(**kw: Any) -> dict[str, Any]:
    prompt = [dict(m) for m in kw["prompt"]]
    last = prompt[-1]
    last["content"] = [{"type": "text", "text": "REWRITTEN"}]
    return {"prompt": prompt}


@pytest.mark.asyncio
async def test_prompt_rewrite_reaches_the_model_but_is_not_persisted() -> None:
    trace = Trace()
    rewriter = RecordingProcessor("rw", trace=trace, process_llm_request=rewrite)
    after = RecordingProcessor("after", ["process_llm_request"], trace=trace)
    model = ScriptedModel([Reply(text=["ok"])])
    stream = agent(model, input_processors=[rewriter, after]).stream("original")
    await collect(stream)
    assert model.calls[0].prompt[-1]["content"][0]["text"] == "REWRITTEN"
    assert trace.of("process_llm_request", "after")[0]["prompt"][-1]["content"][0]["text"] == (
        "REWRITTEN"
    )
    result = await stream.result()
    message_list_input = trace.calls[0]["message_list"].get.input.db()
    assert message_list_input[0].text == "original"
    assert result.text == "ok"


class Cache:
    """A response cache: stores raw chunks on a miss, replays them on a hit."""

    id = "cache"

    def __init__(self) -> None:
        self.store: dict[str, list[dict[str, Any]]] = {}
        self.writes: list[bool] = []

    def process_llm_request(self, *, prompt: Any, state: dict[str, Any]) -> Any:
        key = repr(prompt)
        state["key"] = key
        if key in self.store:
            return {"response": {"chunks": self.store[key]}}
        return None

    def process_llm_response(
        self, *, chunks: list[dict[str, Any]], from_cache: bool, state: dict[str, Any]
    ) -> None:
        self.writes.append(from_cache)
        if not from_cache:
            self.store[state["key"]] = chunks


@pytest.mark.asyncio
async def test_cache_replay_skips_the_model_and_runs_guardrails_again() -> None:  # D7
    cache = Cache()
    seen: list[str] = []

    def upper(**kw: Any) -> Chunk:
        part: Chunk = kw["part"]
        if part.type == "text-delta":
            seen.append(part.payload["text"])
            return part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
        return part

    model = ScriptedModel([Reply(text=["hel", "lo"])])
    bot = agent(
        model,
        input_processors=[cache],
        output_processors=[RecordingProcessor("up", process_output_stream=upper)],
    )
    first = await bot.generate("Hi")
    second = await bot.generate("Hi")
    assert len(model.calls) == 1
    assert first.text == second.text == "HELLO"
    assert seen == ["hel", "lo", "hel", "lo"]  # raw chunks were cached, not processed ones
    assert cache.writes == [False, True]


@pytest.mark.asyncio
async def test_first_response_wins_and_later_request_hooks_still_run() -> None:  # D7
    trace = Trace()
    canned = [
        {"type": "text-start", "payload": {"id": "t"}},
        {"type": "text-delta", "payload": {"id": "t", "text": "cached-1"}},
        {"type": "text-end", "payload": {"id": "t"}},
        {"type": "finish", "payload": {"stepResult": {"reason": "stop"}, "output": {}}},
    ]
    other = [dict(c) for c in canned]
    other[1] = {"type": "text-delta", "payload": {"id": "t", "text": "cached-2"}}
    one = RecordingProcessor(
        "one", trace=trace, process_llm_request=lambda **kw: {"response": {"chunks": canned}}
    )
    two = RecordingProcessor(
        "two", trace=trace, process_llm_request=lambda **kw: {"response": {"chunks": other}}
    )
    stream = agent(ScriptedModel([]), input_processors=[one, two]).stream("x")
    chunks = await collect(stream)
    assert texts(chunks) == "cached-1"
    assert trace.hooks() == ["one.process_llm_request", "two.process_llm_request"]


@pytest.mark.asyncio
async def test_llm_response_sees_raw_chunks_and_shares_state() -> None:  # D7
    trace = Trace()

    def stash(**kw: Any) -> None:
        kw["state"]["key"] = "k1"

    def drop_all(**kw: Any) -> Chunk | None:
        part: Chunk = kw["part"]
        return None if part.type == "text-delta" else part

    probe = RecordingProcessor(
        "probe", ["process_llm_response"], trace=trace, process_llm_request=stash
    )
    model = ScriptedModel([Reply(text=["secret"])])
    await agent(
        model,
        input_processors=[probe],
        output_processors=[RecordingProcessor("drop", process_output_stream=drop_all)],
    ).generate("x")
    (call,) = trace.of("process_llm_response")
    assert call["state"]["key"] == "k1"
    assert call["from_cache"] is False
    assert all(isinstance(c, Chunk) for c in call["chunks"])  # D7: Chunk objects everywhere
    deltas = [c.to_dict() for c in call["chunks"] if c.type == "text-delta"]
    assert [{"type": d["type"], "payload": d["payload"]} for d in deltas] == [
        {"type": "text-delta", "payload": {"id": "txt-0", "text": "secret"}}
    ]
    assert len(call["steps"]) == 1  # the current step is included (seed)


@pytest.mark.asyncio
async def test_malformed_cached_response_is_an_error() -> None:  # D16
    bad = RecordingProcessor("bad", process_llm_request=lambda **kw: {"response": "nope"})
    with pytest.raises(Exception, match="'response' must be"):
        await agent(ScriptedModel([]), input_processors=[bad]).generate("x")
