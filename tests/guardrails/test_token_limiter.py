"""TokenLimiter and the token counters: prompt budgets (request and step stages, every trim
mode) and answer limits (truncate or abort), with real BPE vocabularies shipped offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import (
    Agent,
    BPETokenCounter,
    Chunk,
    ConfigurationError,
    EstimateTokenCounter,
    Message,
    ProcessorViolation,
    TokenLimiter,
    token_counter_for,
    tool,
)
from procession.guardrails._text.tokens import count_prompt_message, resolve_counter
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript


def words(text: str) -> int:
    """One token per word: message sizes in these tests are easy to read."""
    return len(text.split())


def prompt_texts(model: ScriptedModel, call: int = 0) -> list[str]:
    out = []
    for message in model.calls[call].prompt:
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out.extend(p.get("text", p.get("type")) for p in content)
    return out


# -- counters --------------------------------------------------------------------------------


def test_bpe_counters_count_exactly_offline() -> None:
    o200k = BPETokenCounter()
    assert o200k.count("hello world") == 2
    assert o200k.count("") == 0
    assert o200k.count("<|endoftext|>") > 1  # special-token text is ordinary text
    assert BPETokenCounter("cl100k_base").count("hello world") == 2
    chinese = "卡號已經寄出\uff0c請查收\u3002"
    assert 0 < o200k.count(chinese) <= len(chinese)
    with pytest.raises(ConfigurationError, match="encoding"):
        BPETokenCounter("p50k_base")


def test_the_counter_follows_the_model() -> None:
    assert repr(token_counter_for("openai/gpt-4o")) == "BPETokenCounter('o200k_base')"
    assert repr(token_counter_for("openai/gpt-4-turbo")) == "BPETokenCounter('cl100k_base')"
    assert repr(token_counter_for("groq/llama-3.3-70b")) == "BPETokenCounter('llama3')"
    assert repr(token_counter_for(ScriptedModel(model_id="qwen3-8b"))) == (
        "BPETokenCounter('qwen3')"
    )
    assert repr(token_counter_for("anthropic/claude-sonnet-4-5")) == (
        "BPETokenCounter('o200k_base')"
    )


def test_estimate_counter_and_counter_options() -> None:
    estimate = EstimateTokenCounter()
    assert estimate.count("") == 0
    assert estimate.count("abcdefgh") == 2
    assert estimate.count("你好世界") == 4  # wide scripts: one token per character
    assert resolve_counter("T", words).count("a b c") == 3
    assert resolve_counter("T", "cl100k_base").count("hello") == 1
    with pytest.raises(ConfigurationError, match="counter"):
        resolve_counter("T", 3)
    with pytest.raises(ConfigurationError, match="chars_per_token"):
        EstimateTokenCounter(0)


def test_prompt_messages_count_images_and_tool_parts() -> None:
    counter = resolve_counter("T", words)
    image = {"role": "user", "content": [{"type": "file", "mediaType": "image/png", "data": "x"}]}
    assert count_prompt_message(counter, image) == 4 + 765
    call = {
        "role": "assistant",
        "content": [{"type": "tool-call", "toolName": "t", "input": {"q": "a b"}}],
    }
    assert count_prompt_message(counter, call) == 4 + 1 + 2


# -- input: the request stage ---------------------------------------------------------------


def _history() -> list[Message]:
    return [
        Message.user("one " * 10, id="u1"),
        Message.assistant("two " * 50, id="a1"),
        Message.user("three " * 5, id="u2"),
        Message.assistant("four " * 5, id="a2"),
        Message.user("five " * 3, id="u3"),
    ]


@pytest.mark.asyncio
async def test_best_fit_keeps_newest_first_and_skips_what_does_not_fit() -> None:
    model = ScriptedModel(["ok"])
    limiter = TokenLimiter(80, counter=words)  # budget 80 - 4 (system) - 24 = 52
    agent = Agent(id="a", model=model, instructions="sys", input_processors=[limiter])
    result = await agent.generate(_history())
    kept = prompt_texts(model)
    assert kept[0] == "sys"
    assert [t.split()[0] for t in kept[1:]] == ["one", "three", "four", "five"]  # "two" skipped
    assert len(result.messages) == 1  # the run's list (and what memory stores) is untouched


@pytest.mark.asyncio
async def test_contiguous_stops_at_the_first_message_that_does_not_fit() -> None:
    model = ScriptedModel(["ok"])
    limiter = TokenLimiter(80, counter=words, trim_mode="contiguous")
    agent = Agent(id="a", model=model, instructions="sys", input_processors=[limiter])
    await agent.generate(_history())
    assert [t.split()[0] for t in prompt_texts(model)[1:]] == ["three", "four", "five"]


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


@pytest.mark.asyncio
async def test_a_tool_call_and_its_results_are_dropped_together(tmp_path: Path) -> None:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    call = Reply(tool_calls=[ToolCallScript("echo", {"text": "x " * 40})])
    first = Agent(id="a", model=ScriptedModel([call, "done"]), tools=[echo], memory=memory)
    await first.generate("go", thread_id="t", resource_id="r")
    model = ScriptedModel(["ok"])
    limiter = TokenLimiter(60, counter=words)
    agent = Agent(id="a", model=model, tools=[echo], memory=memory, input_processors=[limiter])
    await agent.generate("latest", thread_id="t", resource_id="r")
    prompt = model.calls[0].prompt
    assert [m["role"] for m in prompt] == ["user", "assistant", "user"]
    assert prompt_texts(model) == ["go", "done", "latest"]
    await memory.storage.close()


@pytest.mark.asyncio
async def test_the_request_stage_trims_the_prompt_but_never_memory(tmp_path: Path) -> None:
    storage = SQLiteStorage(tmp_path / "m.db")
    memory = Memory(storage, last_messages=20)
    chatty = Agent(id="a", model=ScriptedModel(["reply " * 30] * 3), memory=memory)
    for turn in range(3):
        await chatty.generate(f"question {turn} " * 10, thread_id="t", resource_id="r")
    model = ScriptedModel(["short"])
    seen: list[ProcessorViolation[Any]] = []
    limiter = TokenLimiter(60, counter=words, on_violation=seen.append)
    agent = Agent(id="a", model=model, memory=memory, input_processors=[limiter])
    await agent.generate("latest question", thread_id="t", resource_id="r")
    assert prompt_texts(model)[-1] == "latest question"
    assert len(model.calls[0].prompt) < 7
    assert len(seen) == 1
    assert (seen[0].detail or {}).get("removed", 0) >= 1
    assert len(await storage.list_messages("t", resource_id="r")) == 8  # nothing deleted
    await storage.close()


@pytest.mark.asyncio
async def test_when_the_newest_message_or_the_system_prompt_cannot_fit_the_run_is_blocked() -> None:
    model = ScriptedModel([])
    limiter = TokenLimiter(40, counter=words)
    agent = Agent(id="a", model=model, input_processors=[limiter])
    result = await agent.generate("word " * 30)
    assert result.tripwire is not None
    assert "Token limit of 40 exceeded" in result.tripwire["reason"]
    big_system = Agent(id="a", model=model, instructions="s " * 50, input_processors=[limiter])
    result = await big_system.generate("hi")
    assert result.tripwire is not None
    assert result.tripwire["reason"].startswith("System messages alone use 54 tokens")
    assert model.calls == []


# -- input: the step stage ------------------------------------------------------------------


async def _remembered(tmp_path: Path) -> Memory:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"), last_messages=20)
    chatty = Agent(id="a", model=ScriptedModel(["reply " * 20] * 3), memory=memory)
    for turn in range(3):
        await chatty.generate(f"question {turn} " * 5, thread_id="t", resource_id="r")
    return memory


@pytest.mark.asyncio
async def test_the_step_stage_removes_remembered_messages_only(tmp_path: Path) -> None:
    memory = await _remembered(tmp_path)
    model = ScriptedModel(["ok"])
    limiter = TokenLimiter(70, counter=words, stage="step")
    agent = Agent(id="a", model=model, memory=memory, input_processors=[limiter])
    result = await agent.generate("now " * 10, thread_id="t", resource_id="r")
    assert result.text == "ok"
    texts = prompt_texts(model)
    assert texts[-1] == "now " * 10
    assert len(texts) < 7
    assert len(await memory.storage.list_messages("t", resource_id="r")) == 8
    too_big = TokenLimiter(30, counter=words, stage="step")
    blocked = Agent(id="a", model=ScriptedModel([]), memory=memory, input_processors=[too_big])
    outcome = await blocked.generate("now " * 10, thread_id="t", resource_id="r")
    assert outcome.tripwire is not None  # the input itself cannot be dropped
    await memory.storage.close()


@pytest.mark.asyncio
async def test_memory_only_trims_old_history_down_past_the_limit(tmp_path: Path) -> None:
    memory = await _remembered(tmp_path)
    trims: list[dict[str, Any]] = []
    limiter = TokenLimiter(
        100, counter=words, trim_mode="memory-only", at_max_remove_tokens=40,
        on_memory_trim=trims.append,
    )  # fmt: skip
    model = ScriptedModel(["ok"])
    agent = Agent(id="a", model=model, memory=memory, input_processors=[limiter])
    await agent.generate("hello", thread_id="t", resource_id="r")
    assert len(trims) == 1
    assert trims[0]["tokens"] <= 60
    assert prompt_texts(model)[-1] == "hello"
    assert prompt_texts(model)[0].startswith("question 0") is False  # the oldest went first
    assert len(await memory.storage.list_messages("t", resource_id="r")) == 8
    await memory.storage.close()


# -- output ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_the_answer_is_truncated_at_the_limit_in_stream_result_and_store(
    tmp_path: Path,
) -> None:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    seen: list[ProcessorViolation[Any]] = []
    limiter = TokenLimiter(5, counter=words, on_violation=seen.append)
    model = ScriptedModel([Reply(text=["one two ", "three four ", "five six seven ", "eight"])])
    agent = Agent(id="a", model=model, memory=memory, output_processors=[limiter])
    chunks = [c async for c in agent.stream("count", thread_id="t", resource_id="r")]
    streamed = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert streamed == "one two three four five "
    notices = [c for c in chunks if c.type == "data-token-limit-reached"]
    assert len(notices) == 1
    assert notices[0].transient
    assert notices[0].data == {"processorId": "token-limiter", "limit": 5, "tokens": 7}
    assert len(seen) == 1
    stored = await memory.storage.list_messages("t", resource_id="r")
    assert stored[-1].text == "one two three four five "
    await memory.storage.close()


@pytest.mark.asyncio
async def test_abort_strategy_ends_the_run() -> None:
    limiter = TokenLimiter(3, counter=words, strategy="abort")
    agent = Agent(id="a", model=ScriptedModel([Reply(text=["a b ", "c d"])]))
    result = await agent.generate("x", output_processors=[limiter])
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "Token limit of 3 exceeded (current: 4)"


@pytest.mark.asyncio
async def test_part_mode_limits_each_chunk_alone() -> None:
    limiter = TokenLimiter(2, counter=words, count_mode="part")
    agent = Agent(id="a", model=ScriptedModel([Reply(text=["a b ", "c d e ", "f"])]))
    result = await agent.generate("x", output_processors=[limiter])
    assert result.text == "a b c d f"


@pytest.mark.asyncio
async def test_real_tokenizer_truncation_stays_within_the_limit() -> None:
    limiter = TokenLimiter(7)
    text = ["The quick brown fox ", "jumps over the lazy dog ", "again and again."]
    agent = Agent(id="a", model=ScriptedModel([Reply(text=text)]))
    result = await agent.generate("x", output_processors=[limiter])
    # chunks are counted one by one, so the answer never exceeds the limit
    assert 5 <= BPETokenCounter().count(result.text) <= 7
    assert result.text == "The quick brown fox jumps"


def test_output_result_truncates_stored_text() -> None:
    limiter = TokenLimiter(3, counter=words)
    message = Message.assistant("a b c d e")
    limiter.process_output_result(messages=[message], abort=_no_abort)
    assert message.text == "a b c "


def test_stream_passes_other_chunks() -> None:
    limiter = TokenLimiter(1, counter=words)
    chunk = Chunk("tool-call", {"toolName": "t", "args": {}})
    assert limiter.process_output_stream(part=chunk, state={}, abort=_no_abort, writer=None) is (
        chunk
    )


def _no_abort(*_: Any, **__: Any) -> None:
    raise AssertionError("abort was called")


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="limit"):
        TokenLimiter(0)
    with pytest.raises(ConfigurationError, match="limit"):
        TokenLimiter(True)
    with pytest.raises(ConfigurationError, match="strategy"):
        TokenLimiter(10, strategy="drop")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="trim_mode"):
        TokenLimiter(10, trim_mode="newest")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="at_max_remove_tokens"):
        TokenLimiter(10, at_max_remove_tokens=11)
    with pytest.raises(ConfigurationError, match="on_violation"):
        TokenLimiter(10, on_violation=3)  # type: ignore[arg-type]
    assert TokenLimiter(10, trim_mode="memory-only").stage == "step"


class _Writer:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    def custom(self, chunk: Any, message_id: str | None = None) -> None:
        self.sent.append(chunk)


async def _drive(limiter: TokenLimiter, deltas: list[str]) -> tuple[list[str], _Writer]:
    state: dict[str, Any] = {}
    writer = _Writer()
    out: list[str] = []
    for text in deltas:
        result = limiter.process_output_stream(
            part=Chunk("text-delta", {"id": "t", "text": text}),
            state=state,
            abort=_no_abort,
            writer=writer,
        )
        if result is not None and not isinstance(result, Chunk):
            result = await result
        if result is not None:
            out.append(result.payload["text"])
    return out, writer


@settings(max_examples=150)
@given(
    deltas=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=25),
    limit=st.integers(1, 40),
)
@pytest.mark.asyncio
async def test_any_answer_is_cut_to_a_prefix_within_the_limit(
    deltas: list[str], limit: int
) -> None:
    counter = BPETokenCounter()
    pieces, writer = await _drive(TokenLimiter(limit), deltas)
    text, full = "".join(pieces), "".join(deltas)
    assert full.startswith(text)
    # chunks are counted as they stream: their counts stay within the limit (the joined
    # text may differ by a token where BPE merges across a chunk edge)
    assert sum(counter.count(piece) for piece in pieces) <= limit
    over = sum(counter.count(d) for d in deltas) > limit
    assert len(writer.sent) == (1 if over else 0)
    if not over:
        assert text == full


def test_at_max_remove_tokens_defaults_to_a_quarter_of_the_limit_as_mastra() -> None:
    # Mastra's options form: atMaxRemoveTokens ?? limit * 0.25 (whole tokens: rounded up)
    assert TokenLimiter(100).at_max_remove_tokens == 25
    assert TokenLimiter(10).at_max_remove_tokens == 3
    assert TokenLimiter(1).at_max_remove_tokens == 1
    assert TokenLimiter(10, at_max_remove_tokens=10).at_max_remove_tokens == 10
    assert TokenLimiter(10, at_max_remove_tokens=0).at_max_remove_tokens == 0
