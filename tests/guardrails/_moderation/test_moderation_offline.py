"""ModerationProcessor offline: rules in ten languages, the context that lifts a match
(quotes, games, jokes), the shipped classifier heads, in the input and in the stream."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from procession import Agent, ConfigurationError, ModerationProcessor
from procession.guardrails._moderation import moderation_lexicon
from procession.guardrails._moderation.moderation_classifier import HEADS, moderation_heads
from procession.guardrails._moderation.moderation_context import inside_quotes, unquoted
from procession.testing import Reply, ScriptedModel

DATA = Path(__file__).parents[2] / "data" / "moderation"
RULES_ONLY = ModerationProcessor(classifier=False)
DEFAULT = ModerationProcessor()


def rows(name: str) -> list[dict[str, str]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I'll wait outside your house and beat you until you stop breathing.", "threat"),
        ("I'm going to find where you work and stab you in the parking lot.", "threat"),
        ("I\u2019ll kill you.", "threat"),
        ("Te voy a encontrar y te voy a matar esta noche.", "threat"),
        ("Je vais te trouver et te tuer ce soir.", "threat"),
        ("Ich werde dich finden und heute Nacht umbringen.", "threat"),
        ("Vou te encontrar e te matar hoje à noite.", "threat"),
        ("Я найду тебя и убью сегодня ночью.", "threat"),
        ("سأجدك وأقتلك الليلة.", "threat"),
        ("今夜お前を見つけて殺してやる。", "threat"),
        ("오늘 밤 너를 찾아가서 죽여버릴 거야.", "threat"),
        ("我今晚就去找你，杀了你。", "threat"),
        ("Shut up, you ugly fat cow.", "harassment"),
        ("Eres un inútil y nadie te quiere.", "harassment"),
        ("Du bist ein wertloses Stück Scheiße.", "harassment"),
        ("Ты тупой идиот, ничего не умеешь.", "harassment"),
        ("I've been burning myself with cigarettes.", "self-harm"),
        ("Quiero suicidarme.", "self-harm"),
        ("Ich will nicht mehr leben.", "self-harm"),
        ("もう死にたい。", "self-harm"),
        ("أريد أن أنتحر.", "self-harm"),
    ],
)
def test_the_rules_flag_clear_cases_in_every_language(text: str, category: str) -> None:
    assert RULES_ONLY.moderate_offline(text).flagged, category


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("I'm going to shoot up the school on Monday.", "harassment/threatening"),
        ("我明天带刀去学校砍人。", "harassment/threatening"),
        ("Women are too stupid to be allowed to vote.", "hate"),
        ("Ausländer sind Ungeziefer.", "hate"),
        ("Мигранты — это крысы.", "hate"),
        ("How much insulin would kill me?", "self-harm/instructions"),
        ("Comment me suicider sans douleur ?", "self-harm/instructions"),
        ("一番楽な自殺の方法は？", "self-harm/instructions"),
    ],
)
def test_threats_at_places_hate_at_groups_and_method_seeking(text: str, category: str) -> None:
    assert category in RULES_ONLY.moderate_offline(text).flagged


@pytest.mark.parametrize(
    "text",
    [
        "Can an overdose of vitamin D be dangerous?",
        "如何帮助有自杀念头的朋友？",
        "Muslims around the world celebrate Eid.",
        "The school ran a lockdown drill in case of an active shooter.",
        "I'm going to kill two birds with one stone and shop on the way.",
    ],
)
def test_medical_news_and_prevention_text_passes(text: str) -> None:
    assert DEFAULT.moderate_offline(text).flagged == ()


@pytest.mark.parametrize(
    "text",
    [
        "This commute is killing me.",
        "Este calor me está matando.",
        "Je meurs de faim, on va manger ?",
        "Ich lach mich tot.",
        "Morri de rir com esse vídeo.",
        "Я умираю со смеху.",
        "مت من الضحك.",
        "笑死我了，这个视频太搞笑了。",
        "笑いすぎて死にそう。",
        "웃겨 죽겠다 ㅋㅋㅋ",
        "이 노래 죽인다 진짜.",
        "想死你了，快回来吧！",
        "How can I help a friend who says she wants to kill herself?",
        "友達が死にたいと言っていたらどうすればいい？",
        "I'm cutting sugar out of my diet.",
        "Ferme la porte, s'il te plaît.",
        "O cigarro vai te matar, pare de fumar.",
    ],
)
def test_idioms_and_support_questions_pass(text: str) -> None:
    assert DEFAULT.moderate_offline(text).flagged == ()


@pytest.mark.parametrize(
    "text",
    [
        'The villain vows: "I will find you and I will kill you."',
        "The court heard that he had written 'I will kill you' in a text message.",
        "「殺してやる」と彼は叫んだ。",
        "I will end you in the next round, noob.",
        "I'll kill you if you spoil the ending of this show, haha.",
    ],
)
def test_quotes_games_and_jokes_lift_threats(text: str) -> None:
    assert DEFAULT.moderate_offline(text).flagged == ()


def test_an_insult_said_with_lol_is_still_harassment() -> None:
    assert "harassment" in DEFAULT.moderate_offline("lol you're such a worthless loser").flagged


def test_not_kidding_is_not_a_joke() -> None:
    assert DEFAULT.moderate_offline("I'm not kidding, I will kill you.").flagged


def test_quotes_are_found_by_position_and_cut_for_the_heads() -> None:
    text = "he said 'i will hurt you' and left"
    assert inside_quotes(text, text.index("i will"))
    assert not inside_quotes(text, text.index("left"))
    assert "hurt" not in unquoted(text)
    assert unquoted("i'll be there, it's fine") == "i'll be there, it's fine"


def test_the_heads_catch_a_threat_the_rules_do_not_list() -> None:
    text = "I will make sure you never walk again."
    assert RULES_ONLY.moderate_offline(text).flagged == ()
    assert "harassment/threatening" in DEFAULT.moderate_offline(text).flagged


def test_the_heads_never_flag_text_without_a_word_of_harm() -> None:
    for text in ("What are your business hours and where are you located?", "You did it!"):
        assert DEFAULT.moderate_offline(text).flagged == ()


def test_the_shipped_heads_load_and_say_where_they_came_from() -> None:
    heads = dict(moderation_heads())
    assert set(heads) == set(HEADS)
    for head in heads.values():
        assert head.weights.shape == (1 << head.bits,)
        assert "dev threshold" in head.meta


def test_no_entry_is_gated_away_on_the_train_and_dev_rows() -> None:
    hits = 0
    for row in rows("train.jsonl") + rows("dev.jsonl"):
        normalised = moderation_lexicon.normalise(row["text"])
        gated = {entry[2].pattern for entry in moderation_lexicon.INDEX.candidates(normalised)}
        for _, _, pattern in moderation_lexicon.LEXICON:
            if re.search(pattern, normalised):
                hits += 1
                assert pattern in gated, row["text"]
    assert hits > 400


def test_the_train_and_dev_rows_are_apart_from_the_heldout_rows() -> None:
    heldout = {row["text"] for row in rows("heldout.jsonl")}
    train, dev = {r["text"] for r in rows("train.jsonl")}, {r["text"] for r in rows("dev.jsonl")}
    assert not heldout & (train | dev)
    assert not train & dev


@pytest.mark.asyncio
async def test_the_heads_stop_the_stream_at_the_end_of_the_sentence() -> None:
    model = ScriptedModel(
        [Reply(text=["Fine. ", "I will make sure ", "you never walk again.", " Bye"])]
    )
    stream = Agent(id="a", model=model, output_processors=[ModerationProcessor()]).stream("hi")
    chunks = [chunk async for chunk in stream]
    texts = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert "walk again" not in texts
    assert chunks[-1].type == "tripwire"


@pytest.mark.asyncio
async def test_the_heads_read_the_unfinished_sentence_with_the_result() -> None:
    seen: list[Any] = []
    moderation = ModerationProcessor(strategy="warn", on_violation=seen.append)
    model = ScriptedModel([Reply(text=["I will make sure ", "you never walk again"])])
    result = await Agent(id="a", model=model, output_processors=[moderation]).generate("hi")
    assert result.text == "I will make sure you never walk again"
    assert len(seen) == 1  # D8


@pytest.mark.asyncio
async def test_without_the_classifier_the_stream_passes_what_the_rules_do_not_list() -> None:
    model = ScriptedModel([Reply(text=["I will make sure ", "you never walk again."])])
    moderation = ModerationProcessor(classifier=False)
    result = await Agent(id="a", model=model, output_processors=[moderation]).generate("hi")
    assert result.text == "I will make sure you never walk again."


def test_the_classifier_option_is_checked() -> None:  # D35
    with pytest.raises(ConfigurationError) as caught:
        ModerationProcessor(classifier="yes")  # type: ignore[arg-type]
    assert "classifier must be True or False" in str(caught.value)
