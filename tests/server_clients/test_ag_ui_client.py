"""An AG-UI front end's view of POST /ag-ui/:agentId: the real ``@ag-ui/client`` HttpAgent
(issue 26), which verifies the event order itself and throws on an event out of place.

The server is uvicorn serving ``tests.server_clients.agui_app:app`` (the agents of
``agents.py`` and ``agui_agents.py``) on 127.0.0.1, without and with credentials.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_clients.clients import alice, bearer, mastra, message_text, ok, token, unique
from tests.server_clients.servers import RunNode, Served, free_port, server_env, start, stop
from tests.server_clients.shared import APOLOGY, RUDE

PLANNER = Path(__file__).with_name("agui_agents.py")
TOKEN = "agui-token-0123456789abcdef0123456789"


def _serve(tmp: Any, name: str, **extra: str) -> Served:
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "tests.server_clients.agui_app:app"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    return start(command, server_env(tmp / f"{name}.db", **extra), tmp / f"{name}.log", port)


@pytest.fixture(scope="module")
def agui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The AG-UI app without credentials."""
    served = _serve(tmp_path_factory.mktemp("agui-open"), "agui-open")
    yield served
    stop(served.process)


@pytest.fixture(scope="module")
def agui_auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The AG-UI app with an API key (resource ``alice``) and HS256 JWTs."""
    served = _serve(
        tmp_path_factory.mktemp("agui-auth"), "agui-auth", PROCESSION_TEST_SERVER_AUTH="1"
    )
    yield served
    stop(served.process)


def front_end(
    run_node: RunNode, served: Served, agent_id: str, *turns: str, **spec: Any
) -> dict[str, Any]:
    """Run ``turns`` through one HttpAgent; what it saw and ended with."""
    full = {"url": f"{served.url}/ag-ui/{agent_id}", "turns": list(turns), **spec}
    return run_node("ag-ui.mjs", full)


def kinds(turn: dict[str, Any]) -> list[str]:
    return [e["type"] for e in turn["events"]]


def answers(seen: dict[str, Any]) -> list[str]:
    """The assistant messages' texts the front end holds."""
    return [m.get("content") or "" for m in seen["messages"] if m["role"] == "assistant"]


def test_a_text_run_becomes_the_front_end_s_messages(
    run_node: RunNode, agui_server: Served
) -> None:
    seen = front_end(run_node, agui_server, "support", "hello", "and again")
    first, second = seen["turns"]
    assert first["error"] is None
    assert second["error"] is None
    assert kinds(first)[0] == "RUN_STARTED"
    assert kinds(first)[-1] == "RUN_FINISHED"
    assert answers(seen) == ["You said: hello", "You said: and again"]
    custom = [e for e in first["events"] if e["type"] == "CUSTOM"]
    assert {"type": "CUSTOM", "name": "data-progress", "value": {"step": 0}} in custom


def test_a_tool_call_shows_with_its_result(run_node: RunNode, agui_server: Served) -> None:
    seen = front_end(run_node, agui_server, "weather", "weather in Paris?")
    (turn,) = seen["turns"]
    assert turn["error"] is None
    calls = [m for m in seen["messages"] if m.get("toolCalls")]
    (call,) = calls[0]["toolCalls"]
    assert call["function"]["name"] == "get_weather"
    assert call["function"]["arguments"] == '{"city":"Paris"}'
    (result,) = [m for m in seen["messages"] if m["role"] == "tool"]
    assert result["toolCallId"] == call["id"]
    assert result["content"] == '{"city":"Paris","celsius":21}'
    assert answers(seen)[-1] == "It is 21°C in Paris."


def test_a_state_chunk_is_the_front_end_s_state(run_node: RunNode, agui_server: Served) -> None:
    seen = front_end(run_node, agui_server, "planner", "ship it", state={"plan": None})
    (turn,) = seen["turns"]
    assert turn["error"] is None
    assert seen["state"] == {"plan": "Planned: ship it", "step": 0}
    assert "STATE_SNAPSHOT" in kinds(turn)
    notes = [e for e in turn["events"] if e["type"] == "CUSTOM"]
    assert [(e["name"], e["value"]) for e in notes] == [("data-plan-note", {"length": 16})]


def test_a_tripwire_is_a_run_error(run_node: RunNode, agui_server: Served) -> None:
    seen = front_end(run_node, agui_server, "support", "my password is hunter2")
    (turn,) = seen["turns"]
    assert kinds(turn) == ["RUN_STARTED", "RUN_ERROR"]
    error = turn["events"][-1]
    assert error["code"] == "tripwire"
    assert error["message"] == "Blocked: the message mentions a password"
    assert error["metadata"]["processorId"] == "no-passwords"
    assert answers(seen) == []


def test_the_retry_and_the_card_number_never_reach_the_front_end(
    run_node: RunNode, agui_server: Served
) -> None:
    rude = front_end(run_node, agui_server, "support", "why so rude")
    card = front_end(run_node, agui_server, "support", "my card is 4111 1111 1111 1111 ok")
    assert answers(rude) == [APOLOGY]
    assert RUDE not in str(rude["turns"])
    assert answers(card) == ["You said: my card is [REDACTED] ok"]
    assert "4111" not in str(card["turns"])


def test_front_end_tools_are_refused(run_node: RunNode, agui_server: Served) -> None:
    tools = [{"name": "confirm", "description": "Ask the user", "parameters": {}}]
    seen = front_end(run_node, agui_server, "weather", "weather?", tools=tools)
    (turn,) = seen["turns"]
    assert turn["error"]["status"] == 400
    assert turn["error"]["payload"]["issues"][0]["field"] == "tools"


def test_the_thread_is_the_caller_s_memory_thread(
    run_node: RunNode, agui_auth_server: Served
) -> None:
    thread = unique("agui-thread")
    seen = front_end(
        run_node, agui_auth_server, "support", "one", "two", threadId=thread, headers=alice()
    )
    assert [t["error"] for t in seen["turns"]] == [None, None]
    (listed,) = mastra(
        run_node,
        agui_auth_server,
        [{"op": "listMessages", "threadId": thread, "agentId": "support"}],
        headers=alice(),
    )
    stored = [(m["role"], message_text(m)) for m in ok(listed)["messages"]]
    assert stored == [
        ("user", "one"),
        ("assistant", "You said: one"),
        ("user", "two"),
        ("assistant", "You said: two"),
    ]
    # another resource (a JWT for bob) naming alice's thread is refused like a missing one
    bob = front_end(
        run_node, agui_auth_server, "support", "hi", threadId=thread, headers=bearer(token("bob"))
    )
    assert bob["turns"][0]["error"]["status"] == 404
    nobody = front_end(run_node, agui_auth_server, "support", "hi", threadId=thread)
    assert nobody["turns"][0]["error"]["status"] == 401


def test_procession_serve_serves_it_behind_its_access_token(
    run_node: RunNode, tmp_path: Path
) -> None:
    port = free_port()
    procession = Path(sys.executable).with_name("procession")
    command = [str(procession), "serve", str(PLANNER), "--port", str(port), "--token", TOKEN]
    served = start(command, server_env(tmp_path / "serve.db"), tmp_path / "serve.log", port)
    try:
        seen = front_end(run_node, served, "planner", "go", headers=bearer(TOKEN))
        refused = front_end(run_node, served, "planner", "go")
    finally:
        stop(served.process)
    assert seen["turns"][0]["error"] is None
    assert seen["state"] == {"plan": "Planned: go", "step": 0}
    assert refused["turns"][0]["error"]["status"] == 401
