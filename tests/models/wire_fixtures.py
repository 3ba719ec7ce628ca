"""Recorded wire fixtures (``tests/models/fixtures/``) as :class:`Reply` objects.

See ``fixtures/README.md`` for where each shape was observed. Anthropic ``.sse`` files are
sent event by event as written; Gemini ``.sse`` files event by event with ``\\r\\n`` line ends;
``.txt`` and ``.json`` files exactly as written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.models.scripted_server import Reply

__all__ = ["FIXTURES", "anthropic_events", "fixture_reply", "fixture_text"]

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_text(name: str) -> str:
    """A fixture file's text (``name`` relative to ``fixtures/``)."""
    return (FIXTURES / name).read_text(encoding="utf-8")


def _events(text: str) -> list[str]:
    return [block for block in text.replace("\r\n", "\n").split("\n\n") if block.strip()]


def fixture_reply(name: str, **kwargs: Any) -> Reply:
    """The fixture as a reply; ``kwargs`` go to :class:`Reply` (``status``, ``headers``...)."""
    text = fixture_text(name)
    if name.endswith(".json"):
        return Reply(body=json.loads(text), **kwargs)
    if not name.endswith(".sse"):
        kwargs.setdefault("content_type", "text/event-stream")
        return Reply(raw=[text.encode()], **kwargs)
    newline = "\r\n" if name.startswith("google/") else "\n"
    pieces = [(block.replace("\n", newline) + newline * 2).encode() for block in _events(text)]
    return Reply(raw=pieces, **kwargs)


def anthropic_events(name: str) -> list[dict[str, Any]]:
    """The JSON ``data`` of every event of an Anthropic ``.sse`` fixture, ``ping`` included."""
    out = []
    for block in _events(fixture_text(name)):
        for line in block.splitlines():
            if line.startswith("data:"):
                out.append(json.loads(line[5:]))
    return out
