"""ResponseCache (D7): replay identical calls from an in-memory or SQLite cache, with scope,
ttl and bust; replays go through today's output processors; failures never fail the run."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession import (
    Agent,
    APICallError,
    CacheBackend,
    Chunk,
    ConfigurationError,
    InMemoryCache,
    RequestContext,
    ResponseCache,
    SQLiteCache,
    tool,
)
from procession.guardrails import RESPONSE_CACHE
from procession.testing import Reply, ScriptedModel, ToolCallScript


@pytest_asyncio.fixture(params=["memory", "sqlite"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    if request.param == "memory":
        yield InMemoryCache()
        return
    cache = SQLiteCache(tmp_path / "cache.db")
    yield cache
    await cache.close()


class Upper:
    id = "upper"

    def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        if part.type == "text-delta":
            return part.copy(payload={**part.payload, "text": part.payload["text"].upper()})
        return part


@pytest.mark.asyncio
async def test_a_repeated_call_is_replayed_through_todays_output_processors(
    backend: CacheBackend,
) -> None:
    model = ScriptedModel([Reply(text=["hello ", "there"])])  # strict: one call only
    agent = Agent(
        id="bot",
        model=model,
        input_processors=[ResponseCache(backend)],
        output_processors=[Upper()],
    )
    first = await agent.generate("hi", resource_id="alice")
    second = await agent.generate("hi", resource_id="alice")
    assert len(model.calls) == 1
    assert first.text == second.text == "HELLO THERE"
    assert second.usage.input_tokens == first.usage.input_tokens  # the replayed finish chunk
    key = _only_key(backend)
    stored = await backend.get(key)
    assert stored is not None
    texts = [c["payload"]["text"] for c in stored["chunks"] if c["type"] == "text-delta"]
    assert texts == ["hello ", "there"]  # raw, before any output processor (D7)


def _only_key(backend: Any) -> str:
    if isinstance(backend, InMemoryCache):
        keys = list(backend._entries)
    else:
        assert backend._conn is not None
        keys = [r[0] for r in backend._conn.execute("SELECT key FROM response_cache")]
    assert len(keys) == 1
    return str(keys[0])


@pytest.mark.asyncio
async def test_scope_keeps_resources_apart_unless_disabled(backend: CacheBackend) -> None:
    model = ScriptedModel(["for alice", "for bob", "shared"])
    agent = Agent(id="bot", model=model, input_processors=[ResponseCache(backend)])
    assert (await agent.generate("hi", resource_id="alice")).text == "for alice"
    assert (await agent.generate("hi", resource_id="bob")).text == "for bob"
    assert (await agent.generate("hi", resource_id="alice")).text == "for alice"
    shared = Agent(id="bot", model=model, input_processors=[ResponseCache(backend, scope=None)])
    assert (await shared.generate("hi", resource_id="carol")).text == "shared"
    assert (await shared.generate("hi", resource_id="dave")).text == "shared"
    assert len(model.calls) == 3


@pytest.mark.asyncio
async def test_the_key_covers_prompt_model_and_agent(backend: CacheBackend) -> None:
    model = ScriptedModel(["a", "b", "c", "d"])
    cache = ResponseCache(backend)
    agent = Agent(id="bot", model=model, input_processors=[cache])
    await agent.generate("one")
    await agent.generate("two")
    await agent.generate("one", instructions="Be brief.")
    other = Agent(id="other-bot", model=model, input_processors=[cache])
    await other.generate("one")
    assert len(model.calls) == 4


@pytest.mark.asyncio
async def test_bust_and_explicit_keys_per_call(backend: CacheBackend) -> None:
    model = ScriptedModel(["old", "new", "keyed"])
    agent = Agent(id="bot", model=model, input_processors=[ResponseCache(backend)])
    await agent.generate("hi")
    busted = await agent.generate(
        "hi", request_context=RequestContext({"response_cache": {"bust": True}})
    )
    assert busted.text == "new"
    assert (await agent.generate("hi")).text == "new"  # the fresh answer was stored
    keyed = RequestContext({RESPONSE_CACHE.name: {"key": "faq:greeting"}})
    assert (await agent.generate("hello?", request_context=keyed)).text == "keyed"
    assert await backend.get("faq:greeting") is not None
    assert (await agent.generate("something else", request_context=keyed)).text == "keyed"


@pytest.mark.asyncio
async def test_entries_expire_after_ttl() -> None:
    now = [1000.0]
    backend = InMemoryCache(clock=lambda: now[0])
    model = ScriptedModel(["first", "second"])
    agent = Agent(id="bot", model=model, input_processors=[ResponseCache(backend, ttl=60)])
    await agent.generate("hi")
    now[0] += 59
    assert (await agent.generate("hi")).text == "first"
    now[0] += 2
    assert (await agent.generate("hi")).text == "second"
    assert await backend.purge() == 0
    now[0] += 61
    assert await backend.purge() == 1


@pytest.mark.asyncio
async def test_failed_blocked_and_cut_off_answers_are_not_stored(backend: CacheBackend) -> None:
    class Block:
        id = "block"

        def process_output_stream(self, *, part: Chunk, abort: Any, **_: Any) -> Chunk:
            if part.type == "text-delta" and "secret" in part.payload["text"]:
                abort("no secrets")
            return part

    model = ScriptedModel(
        [
            Reply(text=["a secret"]),
            Reply(text=["partial"], stream_error=APICallError("broken stream", status_code=400)),
            Reply(text=["fine"]),
        ]
    )
    agent = Agent(
        id="bot",
        model=model,
        input_processors=[ResponseCache(backend)],
        output_processors=[Block()],
    )
    assert (await agent.generate("q")).tripwire is not None
    with pytest.raises(APICallError):
        await agent.generate("q")
    assert (await agent.generate("q")).text == "fine"
    assert (await agent.generate("q")).text == "fine"
    assert len(model.calls) == 3


@pytest.mark.asyncio
async def test_a_tool_loop_is_cached_step_by_step_and_tools_run_again(
    backend: CacheBackend,
) -> None:
    runs: list[str] = []

    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        runs.append(city)
        return "sunny"

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("weather", {"city": "Oslo"}, "c1")]), "It is sunny."]
    )
    agent = Agent(id="bot", model=model, tools=[weather], input_processors=[ResponseCache(backend)])
    first = await agent.generate("weather?")
    second = await agent.generate("weather?")
    assert first.text == second.text == "It is sunny."
    assert len(model.calls) == 2
    assert runs == ["Oslo", "Oslo"]


@pytest.mark.asyncio
async def test_a_broken_backend_never_fails_the_run() -> None:
    class Broken:
        async def get(self, key: str) -> Any:
            raise OSError("disk gone")

        async def set(self, key: str, value: Any, ttl: float | None) -> None:
            raise OSError("disk gone")

        async def delete(self, key: str) -> None:
            raise OSError("disk gone")

    def bad_key(args: dict[str, Any]) -> str:
        raise ValueError("no key")

    model = ScriptedModel(["live", "live again"])
    agent = Agent(id="bot", model=model, input_processors=[ResponseCache(Broken())])
    assert (await agent.generate("hi")).text == "live"
    keyless = Agent(
        id="bot", model=model, input_processors=[ResponseCache(InMemoryCache(), key=bad_key)]
    )
    assert (await keyless.generate("hi")).text == "live again"


@pytest.mark.asyncio
async def test_the_sqlite_cache_is_shared_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    writer = SQLiteCache(path)
    await writer.set("k", {"chunks": [{"type": "text-delta", "payload": {"text": "x"}}]}, None)
    await writer.close()
    reader = SQLiteCache(path)
    assert await reader.get("k") == {"chunks": [{"type": "text-delta", "payload": {"text": "x"}}]}
    await reader.delete("k")
    assert await reader.get("k") is None
    await reader.close()


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="cache"):
        ResponseCache(object())  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="ttl"):
        ResponseCache(InMemoryCache(), ttl=0)
    with pytest.raises(ConfigurationError, match="bust"):
        ResponseCache(InMemoryCache(), bust="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_entries"):
        InMemoryCache(max_entries=0)
    with pytest.raises(ConfigurationError, match="scope"):
        ResponseCache(InMemoryCache(), scope="")


@pytest.mark.asyncio
async def test_in_memory_cache_evicts_the_least_recently_used() -> None:
    cache = InMemoryCache(max_entries=2)
    await cache.set("a", 1, None)
    await cache.set("b", 2, None)
    assert await cache.get("a") == 1
    await cache.set("c", 3, None)
    assert await cache.get("b") is None
    assert await cache.get("a") == 1
    assert len(cache) == 2


@pytest.mark.asyncio
async def test_sqlite_cache_seals_values_with_an_encryption_key(tmp_path: Path) -> None:
    # issue 20: the cache stores raw chunks by design; with a key they rest encrypted
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()
    path = tmp_path / "sealed.db"
    sealed = SQLiteCache(path, encryption_key=key)
    await sealed.set("k", {"text": "card 4111 1111 1111 1111"}, ttl=None)
    assert await sealed.get("k") == {"text": "card 4111 1111 1111 1111"}
    await sealed.close()
    assert b"4111" not in path.read_bytes()
    plain, other = (
        SQLiteCache(path),
        SQLiteCache(path, encryption_key=Fernet.generate_key().decode()),
    )
    assert await plain.get("k") is None  # sealed, and no key here: a miss
    assert await other.get("k") is None  # another key: a miss, never served
    await plain.set("planted", {"text": "poison"}, ttl=None)
    await plain.close()
    await other.close()
    again = SQLiteCache(path, encryption_key=key)
    assert await again.get("planted") is None  # not sealed by this key: never served
    await again.close()
