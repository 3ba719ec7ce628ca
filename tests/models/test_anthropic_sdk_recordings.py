"""Recordings shipped in the anthropic SDK's sdist (2.15.0, Apache-2.0), replayed byte for byte.

``fixtures/recorded/anthropic-sdk-python-2.15.0/`` holds the SDK's own recorded streams,
copied unchanged with the SDK's licence beside them. Each is served as it is from loopback to
the real SDK client and the adapter: the stream must end in one ``finish`` chunk, with the
text the recording holds.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from procession.models import ModelCallOptions
from procession.models.anthropic import AnthropicModel
from tests.models.scripted_server import Reply, ScriptedServer

pytest.importorskip("anthropic")

RECORDED = Path(__file__).parent / "fixtures" / "recorded" / "anthropic-sdk-python-2.15.0"
NAMES = sorted(p.name for p in RECORDED.iterdir() if p.suffix in (".txt", ".sse"))
USER = {"role": "user", "content": [{"type": "text", "text": "Hello"}]}


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


def _recorded_text(name: str) -> str:
    """The text of the recording's ``text_delta`` events, as the API sent them."""
    out = []
    for line in (RECORDED / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("data:"):
            data = json.loads(line[5:])
            delta = data.get("delta") or {}
            if data.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
                out.append(delta["text"])
    return "".join(out)


@pytest.mark.asyncio
@pytest.mark.parametrize("name", NAMES)
async def test_sdk_recording_replays_to_one_finish(server: ScriptedServer, name: str) -> None:
    body = (RECORDED / name).read_bytes()
    server.script(Reply(raw=[body], content_type="text/event-stream"))
    model = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    try:
        result = await model.do_stream(ModelCallOptions(prompt=[USER]))
        chunks = [chunk async for chunk in result.stream]
    finally:
        await model.aclose()
    assert [c.type for c in chunks].count("finish") == 1
    assert chunks[-1].type == "finish"
    text = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert text == _recorded_text(name)
