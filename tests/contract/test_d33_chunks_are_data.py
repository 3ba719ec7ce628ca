"""D33: every chunk is data (its ``to_dict()`` is JSON); a malformed chunk a processor returns
fails the run as that processor's error, never as a model or API error."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from procession import Agent, APICallError, Chunk, ProcessorError, ToolContext, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .kit import CALLS, MODES, processor, run

MALFORMED: dict[str, Callable[[Any], Any]] = {
    "tool-call without toolCallId": lambda part: Chunk("tool-call", {"toolName": "x", "args": {}}),
    "int as text": lambda part: Chunk("text-delta", {"id": part.payload["id"], "text": 5}),
    "dict without text": lambda part: {"type": "text-delta", "payload": {"id": "t"}},
    "payload not a dict": lambda part: Chunk("text-delta", ["a"]),  # type: ignore[arg-type]
    "one bad chunk in a list": lambda part: [part, Chunk("reasoning-delta", {"text": None})],
    "not a chunk": lambda part: 42,
    "dict without type": lambda part: {"payload": {"text": "x"}},
}


def _error_lane(asked: list[str]) -> Any:
    def retry(**kwargs: Any) -> dict[str, bool]:
        asked.append(type(kwargs["error"]).__name__)
        return {"retry": True}

    return processor("retrier", "sync", {"process_api_error": retry})


@pytest.mark.parametrize("how", CALLS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(MALFORMED))
@pytest.mark.asyncio
async def test_a_malformed_returned_chunk_is_the_processors_error(
    name: str, mode: str, how: str
) -> None:  # D33, D10
    make = MALFORMED[name]

    def bad(**kwargs: Any) -> Any:
        part = kwargs["part"]
        return make(part) if part.type == "text-delta" else part

    asked: list[str] = []
    model = ScriptedModel([Reply(text=["hello"])], repeat_last=True)
    agent = Agent(
        id="a",
        model=model,
        output_processors=[processor("mangler", mode, {"process_output_stream": bad})],
        error_processors=[_error_lane(asked)],
        max_retries=0,
    )
    done = await run(agent, how)
    error = done.result.error
    assert isinstance(error, ProcessorError), error
    assert (error.processor_id, error.hook) == ("mangler", "process_output_stream")
    assert asked == []  # never handed to the error lane as a model error
    assert len(model.calls) == 1  # and never retried
    if how != "generate":
        assert done.types[-1] == "error"
        json.dumps(done.chunks[-1].to_dict())
        assert done.chunks[-1].payload["error"]["processorId"] == "mangler"


def _rich_agent(mode: str) -> Agent:
    @tool
    async def lookup(order_id: str, context: ToolContext) -> dict[str, Any]:
        """Look up an order."""
        await context.writer.custom({"type": "data-progress", "data": {"pct": 50}})
        return {"order_id": order_id, "status": "shipped", "items": [1, 2]}

    def note(**kwargs: Any) -> None:
        kwargs["writer"].custom({"type": "data-note", "data": {"step": kwargs["step_number"]}})
        if kwargs["retry_count"] == 0 and not kwargs["tool_calls"]:
            kwargs["abort"]("once more", retry=True, metadata={"why": ["short"]})

    model = ScriptedModel(
        [
            Reply(
                reasoning=["thinking"],
                text=["Looking."],
                tool_calls=[ToolCallScript("lookup", {"order_id": "A1"})],
            ),
            Reply(text=["first try"]),
            Reply(text=["Shipped."]),
        ]
    )
    return Agent(
        id="a",
        model=model,
        tools=[lookup],
        max_processor_retries=1,
        output_processors=[processor("note", mode, {"process_output_step": note})],
    )


@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_every_chunk_of_a_rich_run_is_json(mode: str, release: str) -> None:  # D33, D22
    done = await run(_rich_agent(mode), release)
    assert done.types[-1] == "finish"
    kinds = set(done.types)
    assert {"reasoning-delta", "tool-call", "tool-result", "data-progress", "data-note"} <= kinds
    for chunk in done.chunks:
        wire = json.loads(json.dumps(chunk.to_dict()))
        assert Chunk.from_dict(wire).type == chunk.type


@pytest.mark.parametrize(
    "failure",
    [
        Reply(error=APICallError("rate limited", status_code=429, is_retryable=True)),
        Reply(text=["partial"], stream_error=APICallError("upstream broke", status_code=502)),
        Reply(error=RuntimeError("socket closed")),
    ],
)
@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.asyncio
async def test_a_model_error_chunk_carries_data_not_the_exception(
    failure: Reply, release: str
) -> None:  # D33, D21
    agent = Agent(id="a", model=ScriptedModel([failure]), max_retries=0)
    done = await run(agent, release)
    last = done.chunks[-1]
    assert last.type == "error"
    wire = json.loads(json.dumps(last.to_dict()))
    detail = wire["payload"]["error"]
    assert detail["name"] == type(done.result.error).__name__
    assert detail["message"] == str(done.result.error)
    if isinstance(done.result.error, APICallError):
        assert detail["statusCode"] == done.result.error.status_code
        assert detail["isRetryable"] == done.result.error.is_retryable
    assert "processorId" not in detail
    assert not any(isinstance(v, BaseException) for v in _leaves(last.to_dict()))


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.asyncio
async def test_a_tripwire_chunk_with_metadata_is_json(mode: str) -> None:  # D33, D12
    def block(**kwargs: Any) -> None:
        kwargs["abort"]("blocked", metadata={"scores": [0.1, 0.9], "label": "pii"})

    agent = Agent(
        id="a",
        model=ScriptedModel([Reply(text=["x"])]),
        output_processors=[processor("b", mode, {"process_output_step": block})],
    )
    done = await run(agent, "live")
    wire = json.loads(json.dumps(done.chunks[-1].to_dict()))
    assert wire["type"] == "tripwire"
    assert wire["payload"]["metadata"] == {"scores": [0.1, 0.9], "label": "pii"}


@pytest.mark.parametrize(
    "spoil",
    [
        lambda p: p.payload.__setitem__("text", 5),
        lambda p: p.payload.pop("text"),
    ],
)
@pytest.mark.parametrize("release", ["live", "step"])
@pytest.mark.parametrize("kind", ["text-delta", "reasoning-delta"])
@pytest.mark.asyncio
async def test_a_chunk_spoiled_in_place_is_the_processors_error(
    spoil: Any, release: str, kind: str
) -> None:  # D33
    def mangle(**kwargs: Any) -> Any:
        part = kwargs["part"]
        if part.type == kind:
            spoil(part)
        return part

    agent = Agent(
        id="a",
        model=ScriptedModel([Reply(reasoning=["think"], text=["hello"])]),
        output_processors=[processor("mangler", "sync", {"process_output_stream": mangle})],
    )
    done = await run(agent, release)
    assert isinstance(done.result.error, ProcessorError)
    assert done.result.error.processor_id == "mangler"
    assert all(isinstance(c.payload.get("text"), str) for c in done.chunks if c.type == kind)
