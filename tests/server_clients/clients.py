"""Calling the JavaScript clients from tests: plans for ``@mastra/client-js``, chats for ``ai``.

Each call runs one Node process (``tests/js/*.mjs``) and returns what the library parsed.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import jwt

from tests.server_clients.servers import RunNode, Served
from tests.server_clients.shared import API_KEY, JWT_SECRET

_ids = itertools.count()


def unique(prefix: str) -> str:
    """An id no other test of the session uses (threads, chats, messages)."""
    return f"{prefix}-{next(_ids)}"


def bearer(token: str) -> dict[str, str]:
    """``Authorization: Bearer <token>``, as the clients' ``headers`` option sends it."""
    return {"Authorization": f"Bearer {token}"}


def alice() -> dict[str, str]:
    """The API key of resource ``alice``."""
    return bearer(API_KEY)


def token(sub: str, *, secret: str = JWT_SECRET, expires_in: int = 300) -> str:
    """An HS256 JWT for resource ``sub``."""
    now = int(time.time())
    claims = {"sub": sub, "iat": now, "exp": now + expires_in}
    return jwt.encode(claims, secret, algorithm="HS256")


def mastra(
    run_node: RunNode,
    served: Served,
    steps: list[dict[str, Any]],
    headers: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Run ``steps`` with ``@mastra/client-js``; one ``{"ok": ...}`` or ``{"error": ...}`` each."""
    out = run_node(
        "mastra-client.mjs", {"baseUrl": served.url, "headers": headers or {}, "steps": steps}
    )
    assert out["node"].startswith("v22."), out["node"]
    results: list[dict[str, Any]] = out["results"]
    return results


def stream_step(agent_id: str, text: str, **options: Any) -> dict[str, Any]:
    """A ``stream`` step of a ``mastra`` plan; ``support`` has memory, so it gets a new
    thread unless ``memory`` names one."""
    if agent_id == "support":
        options.setdefault("memory", {"thread": unique("thread")})
    return {"op": "stream", "agentId": agent_id, "messages": text, "options": options}


def generate_step(agent_id: str, text: str, **options: Any) -> dict[str, Any]:
    """A ``generate`` step of a plan, with a new thread for ``support``."""
    step = stream_step(agent_id, text, **options)
    return {**step, "op": "generate"}


def chunks_of(streamed: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The chunks of one type that ``processDataStream`` handed over (a ``stream`` step's value)."""
    return [c for c in streamed["chunks"] if c["type"] == kind]


def ok(result: dict[str, Any]) -> Any:
    """The value of a step that must have succeeded."""
    assert "error" not in result, result["error"]
    return result["ok"]


def failed(result: dict[str, Any]) -> dict[str, Any]:
    """The error of a step that must have failed."""
    assert "error" in result, f"expected an error, got {result.get('ok')!r}"
    error: dict[str, Any] = result["error"]
    return error


def user_message(text: str) -> dict[str, Any]:
    """A UI message from the user, as ``useChat`` keeps it."""
    return {"id": unique("msg"), "role": "user", "parts": [{"type": "text", "text": text}]}


def chat(
    run_node: RunNode,
    served: Served,
    agent_id: str,
    text: str,
    *,
    chat_id: str | None = None,
    body: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    abort_after_chunks: int | None = None,
    history: list[dict[str, Any]] | None = None,
    approve: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Send one user message through ``DefaultChatTransport`` after ``history`` (the chat's
    earlier UI messages, which ``useChat`` sends every time); what the page saw, with the
    messages sent under ``"sent"``."""
    spec: dict[str, Any] = {
        "api": f"{served.url}/chat/{agent_id}",
        "chatId": chat_id or unique("chat"),
        "messages": [*(history or []), user_message(text)],
        "body": body or {},
        "headers": headers or {},
    }
    if abort_after_chunks is not None:
        spec["abortAfterChunks"] = abort_after_chunks
    if approve is not None:
        spec["approve"] = approve
    return {**run_node("chat.mjs", spec), "sent": spec["messages"]}


def parts(message: dict[str, Any] | None, kind: str) -> list[dict[str, Any]]:
    """The parts of one type of a UI message."""
    assert message is not None, "the page got no assistant message"
    return [p for p in message["parts"] if p["type"] == kind]


def page_text(message: dict[str, Any] | None) -> str:
    """The text a page shows for a UI message."""
    return "".join(p["text"] for p in parts(message, "text"))


def message_text(message: dict[str, Any]) -> str:
    """The text of a stored message as ``@mastra/client-js`` returns it (Mastra's v2 shape)."""
    content = message["content"]
    if isinstance(content, str):
        return content
    found = content.get("parts", []) if isinstance(content, dict) else content
    return "".join(p.get("text", "") for p in found if p.get("type") == "text")
