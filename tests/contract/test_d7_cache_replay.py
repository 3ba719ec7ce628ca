"""D7 (amended): ``process_llm_response`` gets ``Chunk`` objects as the model produced them (or
as replayed), before any output processor; ``Chunk.to_dict()`` is what a cache stores, and a
replay takes either form; replayed chunks pass ``process_output_stream`` like live ones."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, Chunk
from procession.testing import Reply, ScriptedModel

from .kit import CALLS, MODES, processor, run


class Cache:
    """A cache built from hooks, storing ``to_dict()`` or the Chunk objects themselves."""

    def __init__(self, mode: str, *, as_dicts: bool) -> None:
        self.store: dict[str, list[Any]] = {}
        self.replays: list[bool] = []
        self.seen: list[list[Chunk]] = []

        def request(**kwargs: Any) -> Any:
            key = str(kwargs["prompt"][-1])
            kwargs["state"]["key"] = key
            if key in self.store:
                return {"response": {"chunks": self.store[key]}}
            return None

        def response(**kwargs: Any) -> None:
            chunks = kwargs["chunks"]
            self.seen.append(chunks)
            self.replays.append(kwargs["from_cache"])
            if not kwargs["from_cache"]:
                kept = [c.to_dict() for c in chunks] if as_dicts else chunks
                self.store[kwargs["state"]["key"]] = kept

        self.processor = processor(
            "cache", mode, {"process_llm_request": request, "process_llm_response": response}
        )


def _shout(**kwargs: Any) -> Any:
    part = kwargs["part"]
    if part.type == "text-delta":
        part.payload["text"] = part.payload["text"].upper()  # edits the live chunk in place
    return part


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("as_dicts", [True, False])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_a_cache_replays_raw_chunks_through_todays_guardrails(
    mode: str, as_dicts: bool, how: str
) -> None:  # D7
    cache = Cache(mode, as_dicts=as_dicts)
    model = ScriptedModel([Reply(text=["hel", "lo"])])
    agent = Agent(
        id="a",
        model=model,
        input_processors=[cache.processor],
        output_processors=[processor("shout", mode, {"process_output_stream": _shout})],
    )
    first = await run(agent, how, "hi")
    second = await run(agent, how, "hi")
    assert len(model.calls) == 1
    assert first.result.text == second.result.text == "HELLO"
    assert cache.replays == [False, True]
    for chunks in cache.seen:
        assert all(type(c) is Chunk for c in chunks)
        assert [c.payload["text"] for c in chunks if c.type == "text-delta"] == ["hel", "lo"]
    if how != "generate":
        assert first.text == second.text == "HELLO"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_llm_response_chunks_are_not_the_objects_output_processors_edit(
    mode: str,
) -> None:  # D7
    seen: list[Chunk] = []

    def keep(**kwargs: Any) -> None:
        seen.extend(kwargs["chunks"])

    agent = Agent(
        id="a",
        model=ScriptedModel([Reply(text=["quiet"])]),
        input_processors=[processor("keep", mode, {"process_llm_response": keep})],
        output_processors=[processor("shout", mode, {"process_output_stream": _shout})],
    )
    done = await run(agent, "live")
    assert done.text == "QUIET"
    assert [c.payload["text"] for c in seen if c.type == "text-delta"] == ["quiet"]
    kinds = [c.type for c in seen]
    assert kinds[0] == "response-metadata"
    assert kinds[-1] == "finish"
