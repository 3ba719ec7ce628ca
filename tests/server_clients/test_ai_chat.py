"""A ``useChat`` page's view of ``POST /chat/:agentId``: the real ``ai`` package's
``DefaultChatTransport`` and ``readUIMessageStream``.

``snapshots`` are the texts the page rendered over time (one per update of the assistant
message), so "a rejected attempt never reaches the page" is checked on every frame, not only
on the last.
"""

from __future__ import annotations

from typing import Any

from tests.server_clients.clients import chat, mastra, message_text, ok, page_text, parts, unique
from tests.server_clients.servers import RunNode, Served
from tests.server_clients.shared import APOLOGY, RUDE


def chunk_types(seen: dict[str, Any]) -> list[str]:
    """The types of the UI message chunks the transport parsed."""
    return [c["type"] for c in seen["chunks"]]


def test_the_page_gets_the_answer_and_its_data_parts(
    run_node: RunNode, open_server: Served
) -> None:
    seen = chat(run_node, open_server, "support", "hello")
    assert seen["error"] is None
    assert seen["streamErrors"] == []
    message = seen["message"]
    assert message["role"] == "assistant"
    assert page_text(message) == "You said: hello"
    assert parts(message, "data-progress") == [{"type": "data-progress", "data": {"step": 0}}]
    # a transient data chunk reaches the page's onData but is not kept in the message
    assert parts(message, "data-status") == []
    assert {"type": "data-status", "data": {"state": "checked"}, "transient": True} in seen[
        "chunks"
    ]
    types = chunk_types(seen)
    assert types[0] == "start"
    assert types[-1] == "finish"
    assert seen["chunks"][-1]["finishReason"] == "stop"


def test_step_mode_never_shows_the_rejected_attempt(run_node: RunNode, open_server: Served) -> None:
    # D31: the route streams with release="step" by default
    seen = chat(run_node, open_server, "support", "why so rude")
    assert page_text(seen["message"]) == APOLOGY
    assert all(RUDE not in frame for frame in seen["snapshots"])
    assert "rude" not in str(seen["chunks"])
    assert "reset-step" not in chunk_types(seen)


def test_live_mode_on_request_takes_the_rejected_attempt_back(
    run_node: RunNode, open_server: Served
) -> None:
    seen = chat(run_node, open_server, "support", "why so rude", body={"release": "live"})
    assert RUDE in seen["snapshots"]  # the page showed it while it streamed...
    assert "reset-step" in chunk_types(seen)
    assert page_text(seen["message"]) == APOLOGY  # ...and took it back


def test_live_and_step_mode_leave_the_same_message(run_node: RunNode, open_server: Served) -> None:
    step = chat(run_node, open_server, "support", "why so rude")
    live = chat(run_node, open_server, "support", "why so rude", body={"release": "live"})
    assert [p["type"] for p in live["message"]["parts"]] == [
        p["type"] for p in step["message"]["parts"]
    ]


def test_a_blocked_message_shows_the_tripwire(run_node: RunNode, open_server: Served) -> None:
    seen = chat(run_node, open_server, "support", "my password is hunter2")
    assert seen["error"] is None
    (tripwire,) = parts(seen["message"], "data-tripwire")
    assert tripwire["data"]["reason"] == "Blocked: the message mentions a password"
    assert tripwire["data"]["processorId"] == "no-passwords"
    assert page_text(seen["message"]) == ""
    assert seen["chunks"][-1] == {"type": "finish", "finishReason": "other"}


def test_a_card_number_never_reaches_the_page(run_node: RunNode, open_server: Served) -> None:
    seen = chat(run_node, open_server, "support", "my card is 4111 1111 1111 1111 ok")
    assert page_text(seen["message"]) == "You said: my card is [REDACTED] ok"
    assert all("4111" not in frame for frame in seen["snapshots"])


def test_a_conversation_resends_its_history_and_is_stored_once(
    run_node: RunNode, open_server: Served
) -> None:
    # useChat sends every message of the chat each time; the chat id is the thread
    chat_id = unique("chat")
    first = chat(run_node, open_server, "support", "first", chat_id=chat_id)
    history = [*first["sent"], first["message"]]
    second = chat(run_node, open_server, "support", "second", chat_id=chat_id, history=history)
    assert page_text(second["message"]) == "You said: second"
    (listed,) = mastra(
        run_node,
        open_server,
        [{"op": "listMessages", "threadId": chat_id, "agentId": "support"}],
    )
    stored = [(m["role"], message_text(m)) for m in ok(listed)["messages"]]
    assert stored == [
        ("user", "first"),
        ("assistant", "You said: first"),
        ("user", "second"),
        ("assistant", "You said: second"),
    ]


def test_a_tool_call_shows_as_a_tool_part(run_node: RunNode, open_server: Served) -> None:
    seen = chat(run_node, open_server, "weather", "weather in Paris?")
    message = seen["message"]
    assert [p["type"] for p in message["parts"]] == [
        "step-start",
        "tool-get_weather",
        "step-start",
        "text",
    ]
    (tool,) = parts(message, "tool-get_weather")
    assert tool["state"] == "output-available"
    assert tool["input"] == {"city": "Paris"}
    assert tool["output"] == {"city": "Paris", "celsius": 21}
    assert page_text(message) == "It is 21°C in Paris."
