"""SSE keep-alive comments while a run is quiet, on a real uvicorn socket."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from procession import Agent, ServerLimits, create_app
from procession.chunks import Chunk
from procession.models.base import ModelCallOptions, StreamResult
from procession.server.keep_alive import KEEP_ALIVE_COMMENT
from procession.testing import Reply, ScriptedModel

from .conftest import live_server
from .helpers import events


class WaitsForTheTest:
    """A model whose first chunk waits until the test has seen a keep-alive comment."""

    specification_version = "v2"
    provider = "waiting"
    model_id = "waiting-1"
    supports_structured_output = False

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.inner = ScriptedModel([Reply(text=["after the wait"])])

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        started = await self.inner.do_stream(options)
        return StreamResult(stream=self._after_go(started.stream), request=started.request)

    async def _after_go(self, stream: AsyncIterator[Chunk]) -> AsyncIterator[Chunk]:
        await self.go.wait()
        async for chunk in stream:
            yield chunk


async def _read(path: str, limits: ServerLimits) -> tuple[bytes, int]:
    model = WaitsForTheTest()
    app = create_app(Agent(id="slow", model=model), limits=limits)
    body = {"messages": [{"role": "user", "content": "hello"}]}
    raw = b""
    async with (
        live_server(app) as live,
        live.client() as client,
        client.stream("POST", path, json=body) as response,
    ):
        status = response.status_code
        async for piece in response.aiter_bytes():
            raw += piece
            if KEEP_ALIVE_COMMENT in raw:
                model.go.set()  # the model answers only once the silence was filled
    return raw, status


@pytest.mark.asyncio
@pytest.mark.parametrize("path", ["/api/agents/slow/stream", "/chat/slow"])
async def test_a_quiet_stream_gets_comments_that_clients_ignore(path: str) -> None:
    raw, status = await asyncio.wait_for(_read(path, ServerLimits(keep_alive=0.05)), 20)
    assert status == 200
    text = raw.decode()
    before, _, after = text.partition(KEEP_ALIVE_COMMENT.decode())
    assert '"start"' in before  # the run's start went out before the model answered
    assert "after the wait" in after
    blocks = [block for block in text.split("\n\n") if not block.startswith(":")]
    parsed = events("\n\n".join(blocks))  # what a client reads once comments are skipped
    kinds = [item.get("type") for item in parsed if isinstance(item, dict)]
    assert kinds[0] == "start"
    assert "text-delta" in kinds


@pytest.mark.parametrize("bad", [-1, True, "15", float("inf")])
def test_a_bad_keep_alive_is_named(bad: object) -> None:
    with pytest.raises(Exception, match=r"ServerLimits\.keep_alive"):
        ServerLimits(keep_alive=bad)  # type: ignore[arg-type]
