"""JSON for the wire: U+2028 and U+2029 never reach an event stream raw."""

from __future__ import annotations

import json

import pytest

from procession.server import create_app
from procession.server.encoding import dumps
from procession.testing import Reply

from .conftest import live_server, scripted_agent

SEPARATED = "one\u2028two\u2029three"


def test_line_and_paragraph_separators_leave_as_escapes() -> None:
    data = dumps({"text": SEPARATED, "n": 1})
    assert "\u2028".encode() not in data
    assert "\u2029".encode() not in data
    assert json.loads(data) == {"text": SEPARATED, "n": 1}


def test_the_fallback_encoder_escapes_them_too() -> None:
    wide = 1 << 70  # wider than orjson's 64 bits: the standard library encodes it
    data = dumps({"text": SEPARATED, "wide": wide})
    assert b"\\u2028" in data
    assert b"\\u2029" in data
    assert json.loads(data) == {"text": SEPARATED, "wide": wide}


def test_other_text_is_left_as_it_is() -> None:
    assert dumps({"t": "café \u2013 ok"}) == '{"t":"café \u2013 ok"}'.encode()


@pytest.mark.asyncio
async def test_a_line_reader_sees_whole_events_on_the_stream_routes() -> None:
    agent = scripted_agent("support", Reply(text=["a\u2028b", "c\u2029d"]))
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
    routes = {
        "/chat/support": {"id": "c1", "messages": [user]},
        "/api/agents/support/stream": {"messages": "hi"},
    }
    async with live_server(create_app(agent)) as live, live.client() as client:
        for path, body in routes.items():
            async with client.stream("POST", path, json=body) as response:
                lines = [line async for line in response.aiter_lines()]  # str.splitlines
            events = [line.removeprefix("data: ") for line in lines if line.startswith("data: ")]
            assert all(e == "[DONE]" or json.loads(e) for e in events), path
            text = "".join(
                e.get("delta", "") or e.get("payload", {}).get("text", "")
                for e in map(json.loads, (e for e in events if e != "[DONE]"))
                if isinstance(e, dict)
            )
            assert text == "a\u2028bc\u2029d", path
