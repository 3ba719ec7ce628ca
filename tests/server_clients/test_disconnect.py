"""A client that leaves cancels the run (D32): nothing of it is stored.

``slow`` streams 100 deltas 20 ms apart (2 s) into memory. A run that went on after its client
left would finish and be stored; a cancelled run stores nothing. So the tests leave early and
then watch the thread for longer than the whole run would have taken.
"""

from __future__ import annotations

import time

from tests.server_clients.clients import chat, failed, mastra, ok, stream_step, unique
from tests.server_clients.servers import RunNode, Served
from tests.server_clients.shared import SLOW_DELAY, SLOW_DELTAS

ANSWER = "".join(SLOW_DELTAS)
RUN_SECONDS = len(SLOW_DELTAS) * SLOW_DELAY


def assert_nothing_stored(run_node: RunNode, served: Served, thread: str) -> None:
    """The thread stays empty (or absent) for longer than the whole run would take."""
    deadline = time.monotonic() + RUN_SECONDS + 1.0
    while True:
        (listed,) = mastra(
            run_node, served, [{"op": "listMessages", "threadId": thread, "agentId": "slow"}]
        )
        if "ok" in listed:
            assert ok(listed)["messages"] == [], "a cancelled run was stored"
        else:
            assert failed(listed)["status"] == 404
        if time.monotonic() > deadline:
            return
        time.sleep(0.5)


def test_leaving_a_stream_cancels_the_run(run_node: RunNode, open_server: Served) -> None:
    thread = unique("left")
    step = {
        **stream_step("slow", "take your time", memory={"thread": thread}),
        "abortAfterChunks": 5,
    }
    (result,) = mastra(run_node, open_server, [step])
    streamed = ok(result)
    assert streamed["aborted"] is True
    assert 0 < len(streamed["text"]) < len(ANSWER)
    assert_nothing_stored(run_node, open_server, thread)


def test_leaving_a_chat_in_step_mode_cancels_the_run(
    run_node: RunNode, open_server: Served
) -> None:
    # Step mode holds the step until it is accepted, so the page has only "start" when it
    # leaves: the run is then mid-step, and must be cancelled with nothing stored.
    thread = unique("left-chat")
    seen = chat(
        run_node, open_server, "slow", "take your time", chat_id=thread, abort_after_chunks=1
    )
    assert seen["aborted"] is True
    assert [c["type"] for c in seen["chunks"]] == ["start"]
    assert_nothing_stored(run_node, open_server, thread)


def test_leaving_a_live_chat_cancels_the_run(run_node: RunNode, open_server: Served) -> None:
    thread = unique("left-live-chat")
    seen = chat(
        run_node,
        open_server,
        "slow",
        "take your time",
        chat_id=thread,
        body={"release": "live"},
        abort_after_chunks=8,
    )
    assert seen["aborted"] is True
    assert 0 < len(seen["snapshots"][-1]) < len(ANSWER)
    assert_nothing_stored(run_node, open_server, thread)
    (healthy,) = mastra(run_node, open_server, [{"op": "listAgents"}])
    assert "slow" in ok(healthy)
