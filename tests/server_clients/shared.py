"""Values the served app modules and the tests share (importing them starts no server)."""

from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[2] / "docs" / "server.md"
"""The server's documentation page, whose examples the tests run."""

API_KEY = "alice-key-0123456789abcdef"
"""The API key of resource ``alice``."""

JWT_SECRET = "a-shared-secret-of-at-least-32-bytes!"
"""The HS256 secret the JWTs of the tests are signed with."""

FEEDBACK = "[Processor Feedback]"
"""How a processor's retry feedback starts in the prompt."""

RUDE = "That is a rude question."
"""``support``'s first answer to a rude question, which ``polite`` rejects."""

APOLOGY = "Sorry, happy to help."
"""``support``'s second answer, after the feedback."""

SLOW_DELTAS = [f"w{i} " for i in range(100)]
"""What ``slow`` streams, one delta every 20 ms."""

SLOW_DELAY = 0.02
"""Seconds between two of ``slow``'s deltas."""


def prompt_texts(prompt: list[dict[str, Any]], role: str) -> list[str]:
    """The texts of the prompt's messages of one role, in order."""
    texts = []
    for message in prompt:
        if message.get("role") != role:
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return texts
