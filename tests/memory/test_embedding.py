"""The embedders: the numpy MiniLM against sentence-transformers' vectors, and the hash one.

``fixtures/minilm.json`` holds reference vectors computed with sentence-transformers (torch)
by ``scripts/embedding_reference.py fixture``; CI checks the numpy forward pass against them
without torch.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from procession import ConfigurationError, Embedder
from procession.memory import HashEmbedder, MiniLMEmbedder
from procession.memory.embedding import minilm_model_dir

FIXTURE = Path(__file__).with_name("fixtures") / "minilm.json"


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.mark.asyncio
async def test_numpy_minilm_matches_sentence_transformers(minilm: MiniLMEmbedder) -> None:
    reference = json.loads(FIXTURE.read_text())
    vectors = await minilm.embed(reference["sentences"])
    assert len(vectors) == len(reference["sentences"])
    for sentence, got, want in zip(
        reference["sentences"], vectors, reference["vectors"], strict=True
    ):
        assert len(got) == 384
        assert math.sqrt(sum(v * v for v in got)) == pytest.approx(1.0, abs=1e-5)
        assert cosine(got, want) >= 0.999, sentence[:40]


@pytest.mark.asyncio
async def test_minilm_batches_do_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "a much longer sentence that needs padding in its batch", "mid length"]
    together = await minilm.embed(texts)
    alone = [(await minilm.embed([t]))[0] for t in texts]
    for a, b in zip(together, alone, strict=True):
        assert cosine(a, b) == pytest.approx(1.0, abs=1e-6)
    assert await minilm.embed([]) == []
    assert isinstance(minilm, Embedder)
    assert minilm.dimensions == 384


@pytest.mark.asyncio
async def test_minilm_ranks_by_meaning(minilm: MiniLMEmbedder) -> None:
    query, related, unrelated = await minilm.embed(
        ["How do I reset my password?", "I forgot my login credentials", "The tide is high today"]
    )
    assert cosine(query, related) > cosine(query, unrelated) + 0.2


def test_minilm_without_model_files_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"tokenizer\.json is missing"):
        MiniLMEmbedder(tmp_path)


def test_the_model_directory_can_be_overridden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROCESSION_MINILM_DIR", str(tmp_path))
    assert minilm_model_dir() == tmp_path


@pytest.mark.asyncio
async def test_hash_embedder_is_deterministic_and_lexical() -> None:
    embedder = HashEmbedder(dimensions=64)
    a, b, c = await embedder.embed(["the teal door", "The teal door!", "quarterly report"])
    assert a == b
    assert len(a) == 64
    assert math.sqrt(sum(v * v for v in a)) == pytest.approx(1.0)
    assert cosine(a, b) > cosine(a, c)
    assert (await embedder.embed([""]))[0] == [0.0] * 64
    assert isinstance(embedder, Embedder)
    with pytest.raises(ConfigurationError):
        HashEmbedder(dimensions=1)


@pytest.mark.asyncio
async def test_hash_embedder_refuses_what_is_not_a_list_of_texts() -> None:  # D35
    embedder = HashEmbedder(8)
    with pytest.raises(TypeError, match="not one string"):
        await embedder.embed("one text")
    with pytest.raises(TypeError, match="at index 1"):
        await embedder.embed(["ok", 3])  # type: ignore[list-item]
    assert len(await embedder.embed(["ok"])) == 1
