"""Reading server-sent events the way the JavaScript clients do."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["events", "read_events"]


def events(text: str) -> list[Any]:
    """The JSON of each ``data:`` event, ``"[DONE]"`` kept as the string."""
    out: list[Any] = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        assert block.startswith("data: "), block
        data = block[len("data: ") :]
        out.append(data if data == "[DONE]" else json.loads(data))
    return out


async def read_events(client: Any, path: str, body: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
    """POST ``body`` and read the whole event stream: ``(response, events)``."""
    async with client.stream("POST", path, json=body, **kwargs) as response:
        text = (await response.aread()).decode()
    return response, events(text)
