"""``procession serve`` as a user runs it, driven by ``@mastra/client-js``; and its shutdown.

On SIGTERM the server lets in-flight runs finish for ``--shutdown-grace`` seconds and then
cancels them; either way a turn is stored whole or not at all. ``slow``'s run takes two
seconds and the signal comes once its stream has started, so a grace of 30 s lets it finish
and a grace of 0 cancels it.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server_clients.clients import mastra, message_text, ok, stream_step, unique
from tests.server_clients.servers import (
    JS,
    ROOT,
    RunNode,
    Served,
    free_port,
    server_env,
    start,
    stop,
)
from tests.server_clients.shared import SLOW_DELTAS

AGENTS = ROOT / "tests" / "server_clients" / "agents.py"
ANSWER = "".join(SLOW_DELTAS)


def procession_serve(tmp: Path, *options: str) -> Served:
    """``procession serve tests/server_clients/agents.py`` on a free port, as a user runs it."""
    port = free_port()
    procession = Path(sys.executable).with_name("procession")
    # the token's own tests are in tests/server/test_strangers.py; these drive the routes
    command = [str(procession), "serve", str(AGENTS), "--port", str(port), "--no-token", *options]
    return start(command, server_env(tmp / "serve.db"), tmp / "serve.log", port)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A ``procession serve`` process for one test."""
    server = procession_serve(tmp_path)
    yield server
    stop(server.process)


def test_serves_every_agent_of_the_module(run_node: RunNode, served: Served) -> None:
    listed, streamed = mastra(
        run_node,
        served,
        [
            {"op": "listAgents"},
            stream_step("support", "hello"),
        ],
    )
    assert set(ok(listed)) == {"support", "echo", "slow", "weather", "refunds"}
    assert ok(streamed)["text"] == "You said: hello"


def wait_for_stream(served: Served, client: subprocess.Popen[str]) -> None:
    """Wait until the server answered the slow stream (its access log says so), so SIGTERM
    lands while the run is going, however slowly Node started."""
    deadline = time.monotonic() + 30
    while "POST /api/agents/slow/stream" not in served.output():
        assert client.poll() is None, "the client ended before the server saw its request"
        assert time.monotonic() < deadline, f"no stream request:\n{served.output()}"
        time.sleep(0.05)


def stored_after_sigterm(node: Path, run_node: RunNode, tmp: Path, *options: str) -> list[str]:
    """Start a slow run and send SIGTERM while it streams; what the thread then holds (read
    from a restarted server on the same database)."""
    served = procession_serve(tmp, *options)
    thread = unique("shutdown")
    step = stream_step("slow", "take your time", memory={"thread": thread})
    plan = {"baseUrl": served.url, "steps": [step]}
    client = subprocess.Popen(
        [str(node), "mastra-client.mjs", json.dumps(plan)],
        cwd=JS,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_stream(served, client)
        served.process.send_signal(signal.SIGTERM)
        _, err = client.communicate(timeout=60)
        # uvicorn re-raises the signal once it shut down gracefully
        assert served.process.wait(60) in (0, -signal.SIGTERM), served.output()
    finally:
        if client.poll() is None:
            client.kill()
        stop(served.process)
    assert client.returncode == 0, err
    restarted = procession_serve(tmp)
    try:
        (listed,) = mastra(
            run_node, restarted, [{"op": "listMessages", "threadId": thread, "agentId": "slow"}]
        )
    finally:
        stop(restarted.process)
    stored = ok(listed)["messages"] if "ok" in listed else []
    return [f"{m['role']}: {message_text(m)}" for m in stored]


def test_sigterm_lets_a_running_turn_finish(node: Path, run_node: RunNode, tmp_path: Path) -> None:
    stored = stored_after_sigterm(node, run_node, tmp_path, "--shutdown-grace", "30")
    assert stored == ["user: take your time", f"assistant: {ANSWER}"]


def test_sigterm_after_the_grace_cancels_the_turn_whole(
    node: Path, run_node: RunNode, tmp_path: Path
) -> None:
    stored = stored_after_sigterm(node, run_node, tmp_path, "--shutdown-grace", "0")
    assert stored == []
