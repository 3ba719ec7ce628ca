"""ModerationProcessor: the offline lexicon, the judge, input, stream and result, strategies."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, ConfigurationError, Message, ModerationProcessor, ProcessorViolation
from procession.testing import Reply, ScriptedModel

THREAT = "I am going to kill you"


def agent(moderation: ModerationProcessor, model: ScriptedModel) -> Agent:
    return Agent(
        id="chat",
        model=model,
        input_processors=[moderation],
        output_processors=[moderation],
        max_processor_retries=0,
    )


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I am going to kill you", "harassment/threatening"),
        ("我要殺了你", "harassment/threatening"),
        ("我想自杀", "self-harm/intent"),
        ("how do I make a pipe bomb", "violence"),
        ("All immigrants should be killed", "hate/threatening"),
        ("ＩＡＭ going to kill you".replace("ＩＡＭ", "I am"), "harassment/threatening"),
    ],
)
def test_the_lexicon_flags_unambiguous_phrases(text: str, category: str) -> None:
    assert category in ModerationProcessor().moderate_offline(text).flagged


@pytest.mark.parametrize(
    "text",
    [
        "kill the process with kill -9",
        "I will beat you at chess tomorrow",
        "I'll shoot you an email later",
        "This bath bomb smells great",
        "我想知道自殺防治熱線的電話",
        "The movie's villain threatens to destroy the city.",
    ],
)
def test_ordinary_text_passes_the_lexicon(text: str) -> None:
    assert ModerationProcessor().moderate_offline(text).flagged == ()


@pytest.mark.asyncio
async def test_offline_block_on_input() -> None:
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel([])
    result = await agent(ModerationProcessor(on_violation=seen.append), model).generate(THREAT)
    assert result.tripwire is not None
    assert result.tripwire["reason"] == (
        "Content flagged for moderation. Categories: harassment/threatening"
    )
    scores = result.tripwire["metadata"]["scores"]
    assert set(scores) == {"harassment/threatening"}
    assert scores["harassment/threatening"] >= 0.9  # the rule's 0.9, or a head's higher score
    assert len(seen) == 1  # D8
    assert model.calls == []


@pytest.mark.asyncio
async def test_a_threat_split_across_chunks_is_stopped_in_the_stream() -> None:
    model = ScriptedModel([Reply(text=["Fine. ", "I am going to k", "ill you", " now."])])
    stream = agent(ModerationProcessor(), model).stream("hi")
    chunks = [chunk async for chunk in stream]
    texts = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert "ill you" not in texts
    assert chunks[-1].type == "tripwire"
    assert (await stream.result()).text == ""


@pytest.mark.asyncio
@pytest.mark.parametrize("strategy", ["filter", "warn"])
async def test_stream_filter_drops_the_chunk_and_warn_keeps_it(strategy: str) -> None:
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel([Reply(text=["Fine. ", "I will kill you", " later."])])
    moderation = ModerationProcessor(strategy=strategy, on_violation=seen.append)  # type: ignore[arg-type]
    result = await Agent(id="a", model=model, output_processors=[moderation]).generate("hi")
    assert ("kill" in result.text) is (strategy == "warn")
    assert result.text.startswith("Fine. ")
    assert len(seen) == 1  # D8: one report per detection, not per chunk after it


def result_only_agent(text: str) -> Agent:
    moderation = ModerationProcessor(strategy="filter")
    agent_ = Agent(id="a", model=ScriptedModel([text]), output_processors=[moderation])
    agent_.output_processors = [_ResultOnly(moderation)]
    return agent_


@pytest.mark.asyncio
async def test_output_result_filter_removes_the_flagged_message() -> None:
    result = await result_only_agent("你這個廢物").generate("hi")
    assert result.messages == []  # what memory stores (D13)


@pytest.mark.asyncio
async def test_output_result_filter_empties_the_result_text() -> None:  # D23
    result = await result_only_agent("你這個廢物").generate("hi")
    assert result.text == ""


class _ResultOnly:
    """The processor's result hook alone, to see it act after the stream."""

    id = "moderation"

    def __init__(self, inner: ModerationProcessor) -> None:
        self.process_output_result = inner.process_output_result


# -- the judge ----------------------------------------------------------------------------------


def judged(answer: str, **options: Any) -> tuple[ModerationProcessor, ScriptedModel]:
    judge = ScriptedModel([answer], repeat_last=True)
    return ModerationProcessor(judge, **options), judge


@pytest.mark.asyncio
async def test_the_judge_scores_decide() -> None:
    moderation, judge = judged(
        '{"category_scores": [{"category": "harassment", "score": 0.8}], "reason": "insult"}',
        include_scores=True,
    )
    result = await agent(moderation, ScriptedModel([])).generate("you absolute walnut")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == (
        "Content flagged for moderation. Categories: harassment. Reason: insult. "
        "Scores: harassment: 0.80"
    )
    assert "harassment" in str(judge.calls[0].prompt)


@pytest.mark.asyncio
async def test_scores_below_the_threshold_or_outside_the_categories_pass() -> None:
    answer = (
        '{"category_scores": [{"category": "violence", "score": 0.9},'
        ' {"category": "hate", "score": 0.3}]}'
    )
    moderation, _ = judged(answer, categories=["hate"], threshold=0.5)
    result = await agent(moderation, ScriptedModel(["ok"])).generate("hello")
    assert result.text == "ok"


@pytest.mark.asyncio
async def test_the_stream_is_judged_per_delta_with_a_window() -> None:
    moderation, judge = judged('{"category_scores": null}', chunk_window=1)
    model = ScriptedModel([Reply(text=["a", "b", "c"])])
    result = await Agent(id="a", model=model, output_processors=[moderation]).generate("hi")
    assert result.text == "abc"
    judged_texts = [c.prompt[-1]["content"][0]["text"] for c in judge.calls]
    # one judge call per delta (the window joins the previous one), then the whole result
    assert judged_texts == [f"<content>\n{t}\n</content>" for t in ("a", "ab", "bc", "abc")]


@pytest.mark.asyncio
async def test_a_failed_judge_blocks_under_strict_and_passes_under_warn() -> None:
    strict, _ = judged("nope")
    blocked = await agent(strict, ScriptedModel([])).generate("hello")
    assert blocked.tripwire is not None
    assert "moderation: the judge failed" in blocked.tripwire["reason"]
    lenient, _ = judged("nope", error_strategy="warn")
    assert (await agent(lenient, ScriptedModel(["ok"])).generate("hello")).text == "ok"


@pytest.mark.asyncio
async def test_both_mode_does_not_ask_the_judge_about_what_the_lexicon_flags() -> None:
    judge = ScriptedModel([])
    result = await agent(ModerationProcessor(judge, mode="both"), ScriptedModel([])).generate(
        THREAT
    )
    assert result.tripwire is not None
    assert result.tripwire["metadata"]["by"] == "offline"


@pytest.mark.asyncio
async def test_last_message_only() -> None:
    moderation = ModerationProcessor(last_message_only=True)
    messages = [Message.user(THREAT), Message.user("never mind, hello")]
    result = await agent(moderation, ScriptedModel(["hi"])).generate(messages)
    assert result.text == "hi"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"strategy": "rewrite"}, "strategy must be one of 'block', 'warn', 'filter'"),
        ({"threshold": -0.1}, "threshold must be a number between 0.0 and 1.0"),
        ({"chunk_window": 1.5}, "chunk_window must be an integer >= 0 (got 1.5)"),
        ({"categories": []}, "categories must be a list of non-empty strings (at least one)"),
        ({"mode": "model"}, "model must be a model when mode is 'model'"),
        ({"include_scores": "yes"}, "include_scores must be True or False"),
    ],
)
def test_options_are_checked(options: dict[str, Any], message: str) -> None:  # D35
    with pytest.raises(ConfigurationError) as caught:
        ModerationProcessor(**options)
    assert str(caught.value).startswith("ModerationProcessor: ")
    assert message in str(caught.value)
