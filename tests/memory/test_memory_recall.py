"""Semantic recall end to end, with the hash embedder and the numpy MiniLM embedder."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from procession import Agent, ConfigurationError
from procession.memory import (
    HashEmbedder,
    Memory,
    MiniLMEmbedder,
    SemanticRecallConfig,
    SQLiteStorage,
    Storage,
)
from procession.memory.processors import RECALL_NOTE
from procession.testing import RecordingProcessor, ScriptedModel


def resource() -> str:
    return f"user-{uuid.uuid4().hex[:8]}"


def conversation(prompt: list[dict[str, Any]]) -> list[str]:
    return [
        "".join(p.get("text", "") for p in m["content"] if p.get("type") == "text")
        for m in prompt
        if m["role"] != "system"
    ]


def systems(prompt: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in prompt if m["role"] == "system"]


async def chat(agent: Agent, thread: str, resource_id: str, *questions: str) -> None:
    """Ask each question in the thread named ``thread`` of this resource."""
    for question in questions:
        await agent.generate(question, thread_id=f"{resource_id}-{thread}", resource_id=resource_id)


@pytest.mark.asyncio
async def test_recall_finds_a_message_of_another_thread(backend: Storage) -> None:
    resource_id = resource()
    config = SemanticRecallConfig(top_k=1, message_range=1, embedder=HashEmbedder())
    model = ScriptedModel(["ok"], repeat_last=True)
    agent = Agent(id="a", model=model, memory=Memory(backend, semantic_recall=config))
    await chat(
        agent,
        "old",
        resource_id,
        "the weather today is grey",
        "my favourite colour is teal",
        "trains leave at noon",
    )
    await chat(agent, "new", resource_id, "what is my favourite colour?")
    prompt = model.calls[-1].prompt
    # the match with one neighbour on each side, oldest first, before the conversation
    assert conversation(prompt) == [
        "ok",
        "my favourite colour is teal",
        "ok",
        "what is my favourite colour?",
    ]
    assert RECALL_NOTE in systems(prompt)


@pytest.mark.asyncio
async def test_thread_scope_recalls_only_from_the_thread(backend: Storage) -> None:
    resource_id = resource()
    config = SemanticRecallConfig(top_k=2, message_range=0, scope="thread", embedder=HashEmbedder())
    model = ScriptedModel(["ok"], repeat_last=True)
    memory = Memory(backend, semantic_recall=config, last_messages=0)
    agent = Agent(id="a", model=model, memory=memory)
    await chat(agent, "other", resource_id, "my favourite colour is teal")
    await chat(agent, "this", resource_id, "my favourite colour is red")
    await chat(agent, "this", resource_id, "what is my favourite colour?")
    assert conversation(model.calls[-1].prompt) == [
        "my favourite colour is red",
        "ok",
        "what is my favourite colour?",
    ]


@pytest.mark.asyncio
async def test_recalled_messages_come_before_the_recent_history(backend: Storage) -> None:
    resource_id = resource()
    config = SemanticRecallConfig(top_k=1, message_range=0, embedder=HashEmbedder())
    model = ScriptedModel(["ok"], repeat_last=True)
    memory = Memory(backend, semantic_recall=config, last_messages=2)
    agent = Agent(id="a", model=model, memory=memory)
    await chat(agent, "t", resource_id, "the boat is called Wave", "lunch was soup", "hello")
    await chat(agent, "t", resource_id, "what is the boat called?")
    assert conversation(model.calls[-1].prompt) == [
        "the boat is called Wave",
        "hello",
        "ok",
        "what is the boat called?",
    ]


@pytest.mark.asyncio
async def test_blocked_runs_leave_no_vectors(backend: Storage) -> None:  # D13
    resource_id = resource()
    embedder = HashEmbedder()
    blocker = RecordingProcessor("blocker", process_output_result=lambda **kw: kw["abort"]())
    agent = Agent(
        id="a",
        model=ScriptedModel(["ok"]),
        memory=Memory(backend, semantic_recall=SemanticRecallConfig(embedder=embedder)),
        output_processors=[blocker],
    )
    await chat(agent, "t", resource_id, "remember the teal door")
    [vector] = await embedder.embed(["remember the teal door"])
    assert await backend.query_vectors(vector, resource_id=resource_id) == []


@pytest.mark.asyncio
async def test_stored_messages_are_embedded(backend: Storage) -> None:
    resource_id = resource()
    embedder = HashEmbedder()
    agent = Agent(
        id="a",
        model=ScriptedModel(["a teal door it is"]),
        memory=Memory(backend, semantic_recall=SemanticRecallConfig(embedder=embedder)),
    )
    await chat(agent, "t", resource_id, "remember the teal door")
    [vector] = await embedder.embed(["remember the teal door"])
    hits = await backend.query_vectors(vector, resource_id=resource_id, top_k=5)
    assert len(hits) == 2
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    assert {h.thread_id for h in hits} == {f"{resource_id}-t"}


@pytest.mark.asyncio
async def test_minilm_recall_finds_an_old_message_by_meaning(
    backend: Storage, minilm: MiniLMEmbedder
) -> None:
    resource_id = resource()
    config = SemanticRecallConfig(top_k=1, message_range=0, embedder=minilm)
    model = ScriptedModel(["ok"], repeat_last=True)
    agent = Agent(
        id="a", model=model, memory=Memory(backend, semantic_recall=config, last_messages=0)
    )
    await chat(
        agent,
        "old",
        resource_id,
        "I adopted a golden retriever puppy and named him Biscuit.",
        "The quarterly report is due on the first of March.",
        "Please book a table for two at an Italian restaurant.",
    )
    await chat(agent, "new", resource_id, "What is the name of my dog?")
    assert conversation(model.calls[-1].prompt) == [
        "I adopted a golden retriever puppy and named him Biscuit.",
        "What is the name of my dog?",
    ]


def test_semantic_recall_config_is_checked() -> None:
    with pytest.raises(ConfigurationError, match="top_k"):
        SemanticRecallConfig(top_k=0)
    with pytest.raises(ConfigurationError, match="message_range"):
        SemanticRecallConfig(message_range=(1, -1))
    with pytest.raises(ConfigurationError, match="message_range"):
        SemanticRecallConfig(message_range="wide")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="embedder"):
        SemanticRecallConfig(embedder=object())  # type: ignore[arg-type]
    assert SemanticRecallConfig(message_range=(2, 0)).range == (2, 0)


@pytest.mark.asyncio
async def test_the_query_is_embedded_once_per_run(tmp_path: Any) -> None:
    # issue 25: the input hook embedded the user's message, then the commit embedded it again
    batches: list[list[str]] = []

    class Counting(HashEmbedder):
        async def embed(self, texts: Any) -> list[list[float]]:
            batches.append(list(texts))
            return await super().embed(texts)

    storage = SQLiteStorage(tmp_path / "recall.db")
    recall = SemanticRecallConfig(embedder=Counting())
    agent = Agent(
        id="recall-once",
        model=ScriptedModel(["The answer."], repeat_last=True),
        memory=Memory(storage, semantic_recall=recall),
    )
    try:
        await agent.generate("warm up", thread_id="t-once", resource_id="r-once")
        batches.clear()
        await agent.generate("a question about Oslo", thread_id="t-once", resource_id="r-once")
        stored = await storage.query_vectors(
            (await HashEmbedder().embed(["a question about Oslo"]))[0],
            resource_id="r-once",
            thread_id=None,
            top_k=1,
            threshold=0.99,
        )
    finally:
        await storage.close()
    assert batches == [["a question about Oslo"], ["The answer."]]
    assert len(stored) == 1  # the query's vector was stored all the same
