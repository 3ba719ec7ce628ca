"""``<think>`` tags in streamed Chat Completions text, read as reasoning (ollama/ by default)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI

from procession.models import resolve_model
from procession.models.openai import COMPATIBLE, OLLAMA, OpenAIChatModel
from procession.models.openai.think_tags import ThinkTags
from tests.models.helpers import collect, of_type
from tests.models.openai_server import OpenAIServer, chat_chunk, chat_stream

ANSWER = "<think>The user greets me.\nA short answer.</think>\n\nHello!"


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=200), max_size=12))
def test_any_cut_of_the_tags_gives_the_same_pieces(cuts: list[int]) -> None:
    tags = ThinkTags()
    pieces = [p for delta in split(ANSWER, cuts) for p in tags.feed(delta)] + tags.flush()
    reasoning = "".join(text for is_reasoning, text in pieces if is_reasoning)
    answer = "".join(text for is_reasoning, text in pieces if not is_reasoning)
    assert reasoning == "The user greets me.\nA short answer."
    assert answer == "Hello!"


def test_text_without_tags_passes_as_it_is() -> None:
    tags = ThinkTags()
    pieces = tags.feed("a < b and <thin") + tags.feed("gs> stay") + tags.flush()
    assert pieces == [(False, "a < b and "), (False, "<things> stay")]


def test_ollama_models_read_think_tags_and_others_do_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:9/v1")
    ollama = resolve_model("ollama/deepseek-r1:8b")
    assert isinstance(ollama, OpenAIChatModel)
    assert ollama.dialect.think_tags
    assert not COMPATIBLE.think_tags


@pytest.mark.asyncio
async def test_streamed_think_tags_become_reasoning_chunks(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    deltas = ["<thi", "nk>Greeting.", "</th", "ink>\n\nHi", " there"]
    server.reply(
        chat_stream(
            chat_chunk({"role": "assistant", "content": deltas[0]}),
            *(chat_chunk({"content": d}) for d in deltas[1:]),
            chat_chunk({}, "stop"),
        )
    )
    chunks = await collect(OpenAIChatModel("deepseek-r1", client=client, dialect=OLLAMA))
    kinds = [c.type for c in chunks if c.type.startswith(("reasoning", "text"))]
    assert kinds[0] == "reasoning-start"
    assert kinds.index("reasoning-end") < kinds.index("text-start")
    assert "".join(c.payload["text"] for c in of_type(chunks, "reasoning-delta")) == "Greeting."
    assert "".join(c.payload["text"] for c in of_type(chunks, "text-delta")) == "Hi there"
