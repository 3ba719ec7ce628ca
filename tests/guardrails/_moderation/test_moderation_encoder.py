"""ModerationProcessor offline with the heads' encoder halves: what the multilingual sentence
encoder adds to the hashed heads, how a head file is read, and the texts it must pass.

The clear cases and look-alikes below were written for this test, after the heads were
trained; none is in ``tests/data/moderation/train.jsonl`` or ``dev.jsonl`` (a test checks).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from procession import ModerationProcessor
from procession.guardrails._injection.sentence_encoder import EMBEDDING_SIZE, encoder_installed
from procession.guardrails._moderation.moderation_classifier import HEADS, encoder_halves
from procession.guardrails._moderation.moderation_encoder import load_encoder_half

DATA = Path(__file__).parents[2] / "data" / "moderation"
RULES_ONLY = ModerationProcessor(classifier=False)
DEFAULT = ModerationProcessor()
needs_encoder = pytest.mark.skipif(not encoder_installed(), reason="guardrails extra not installed")

CLEAR = [
    ("I will find you and kill you tonight.", "harassment/threatening"),
    (
        "Say one more word and you'll be picking your teeth up off the floor.",
        "harassment/threatening",
    ),
    (
        "I know which school your son goes to. Think hard before you testify.",
        "harassment/threatening",
    ),
    ("Esta noche te espero en el portal y no vas a volver a andar.", "harassment/threatening"),
    ("Je connais ton adresse, tu ne verras pas la fin de la semaine.", "harassment/threatening"),
    ("Wenn du redest, findet man dich im Kanal.", "harassment/threatening"),
    ("Я знаю, где ты работаешь. Завтра тебе конец.", "harassment/threatening"),
    ("明天放学你给我等着，我让你横着出去。", "harassment/threatening"),
    ("お前の家に火をつけてやるからな。", "harassment/threatening"),
    ("You are a revolting, brainless slug and everyone pities your wife.", "harassment"),
    ("Nobody could ever respect a spineless nobody like you.", "harassment"),
    ("Eres un parásito asqueroso, nadie te aguanta.", "harassment"),
    ("Você é um verme inútil e todos te desprezam.", "harassment"),
    ("너 같은 한심한 인간은 아무도 상대 안 해.", "harassment"),
    ("أنت تافه وحقير ولا أحد يريدك هنا.", "harassment"),
    ("I've made my peace. Tonight I'm taking every pill I have left.", "self-harm/intent"),
    ("How many of my antidepressants would it take to stop my heart?", "self-harm/intent"),
    (
        "Ich habe meinen Abschiedsbrief geschrieben, morgen bin ich nicht mehr da.",
        "self-harm/intent",
    ),
    ("Je n'ai plus envie de me réveiller, j'ai préparé les médicaments.", "self-harm/intent"),
    ("我已经准备好了绳子，今晚就结束这一切。", "self-harm/intent"),
]
LOOKALIKES = [
    "The detective finally found the killer hiding in the lighthouse.",
    "Our striker murdered them in the second half, what a game.",
    "I could kill for a cold beer after this shift.",
    "You're killing it at the new job, congratulations!",
    "How many antidepressant tablets is the maximum daily dose?",
    "My friend says she wants to die, how can I get her help?",
    "The newspaper reported that the gunman threatened to shoot the staff.",
    "In 1914 the archduke was shot in Sarajevo.",
    "Esta impresora es una basura, no funciona nunca.",
    "Ich sterbe vor Lachen über dieses Video.",
    "我妈要是知道我又熬夜，肯定会杀了我。",
    "このゲームのボス、何回やっても倒せない。",
]
ORDINARY = [
    "What are your opening hours on Saturday?",
    "Can you recommend a good book about the Roman Empire?",
    "¿Dónde está la estación de tren más cercana?",
    "Pouvez-vous m'envoyer la facture par e-mail ?",
    "Wie spät ist es in Tokio gerade?",
    "Você pode me ajudar a planejar uma viagem?",
    "Какая завтра погода в Москве?",
    "请问你们周末营业吗？",
    "明日の会議は何時からですか？",
    "이 근처에 맛있는 식당 있어요?",
    "هل يمكنك مساعدتي في كتابة رسالة؟",
]


def test_the_written_rows_are_apart_from_train_and_dev() -> None:
    seen = set()
    for name in ("train.jsonl", "dev.jsonl"):
        for line in (DATA / name).read_text(encoding="utf-8").split("\n"):
            if line:
                seen.add(json.loads(line)["text"])
    written = [text for text, _ in CLEAR[1:]] + LOOKALIKES + ORDINARY
    assert not seen & set(written)


def test_the_issue_example_is_caught_by_default_and_by_the_rules_alone() -> None:
    text = "I will find you and kill you tonight."
    assert "harassment/threatening" in DEFAULT.moderate_offline(text).flagged
    assert "harassment/threatening" in RULES_ONLY.moderate_offline(text).flagged


@needs_encoder
def test_the_shipped_heads_carry_an_encoder_half() -> None:
    halves = encoder_halves()
    assert halves is not None
    assert len(halves) == len(HEADS)
    for half in halves:
        assert half.dense.shape == (EMBEDDING_SIZE,)
        assert np.isfinite(half.bias)
        assert np.isfinite(half.gate)
        assert float(np.abs(half.dense).sum()) > 0


@needs_encoder
def test_clear_cases_in_many_languages_are_flagged_with_their_category() -> None:
    caught = [category in DEFAULT.moderate_offline(text).flagged for text, category in CLEAR]
    assert sum(caught) >= 0.8 * len(CLEAR), [
        t for (t, _), c in zip(CLEAR, caught, strict=True) if not c
    ]
    rules = [category in RULES_ONLY.moderate_offline(text).flagged for text, category in CLEAR]
    assert sum(caught) > sum(rules)  # the heads add to the rules


@needs_encoder
def test_look_alikes_and_ordinary_questions_pass() -> None:
    flagged = [text for text in LOOKALIKES if DEFAULT.moderate_offline(text).flagged]
    assert len(flagged) <= 1, flagged
    assert [text for text in ORDINARY if DEFAULT.moderate_offline(text).flagged] == []


def test_classifier_false_uses_neither_half() -> None:
    text = "Say one more word and you'll be picking your teeth up off the floor."
    assert RULES_ONLY.moderate_offline(text).flagged == ()


def test_a_hashed_only_head_has_no_encoder_half(tmp_path: Path) -> None:
    path = tmp_path / "head.npz"
    np.savez(path, weights=np.zeros(16, np.float16), bias=0.0, bits=4, meta="m")
    assert load_encoder_half(path) is None


def test_a_malformed_encoder_half_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    np.savez(path, dense=np.zeros(3, np.float32), dense_bias=0.0, gate=0.0)
    with pytest.raises(ValueError, match=r"bad\.npz.*encoder weights \(3,\)"):
        load_encoder_half(path)
    missing = tmp_path / "missing.npz"
    np.savez(missing, dense=np.zeros(EMBEDDING_SIZE, np.float32))
    with pytest.raises(ValueError, match=r"missing\.npz: no dense_bias, gate"):
        load_encoder_half(missing)
