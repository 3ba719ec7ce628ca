"""Mastra's own client SDK, ``@mastra/client-js`` 1.47.0, unchanged, against procession's server.

Every assertion is on what the library parsed and returned (``listAgents()``, ``generate()``,
the chunks ``processDataStream()`` hands over, the thread objects), not on bytes.
"""

from __future__ import annotations

from tests.server_clients.clients import (
    chunks_of,
    failed,
    generate_step,
    mastra,
    message_text,
    ok,
    stream_step,
    unique,
)
from tests.server_clients.servers import RunNode, Served

CARD = "4111 1111 1111 1111"


def test_lists_and_describes_every_agent_of_the_module(
    run_node: RunNode, open_server: Served
) -> None:
    listed, details, missing = mastra(
        run_node,
        open_server,
        [
            {"op": "listAgents"},
            {"op": "agentDetails", "agentId": "support"},
            {"op": "agentDetails", "agentId": "nobody"},
        ],
    )
    agents = ok(listed)
    assert set(agents) == {"support", "echo", "slow", "weather", "refunds"}
    assert agents["support"]["name"] == "Support"
    support = ok(details)
    assert support["name"] == "Support"
    assert [p["id"] for p in support["inputProcessors"]] == ["no-passwords"]
    assert [p["id"] for p in support["outputProcessors"]] == [
        "stream-redactor",
        "polite",
        "progress",
    ]
    assert failed(missing)["status"] == 404


def test_generate_returns_the_answer_and_usage(run_node: RunNode, open_server: Served) -> None:
    (result,) = mastra(run_node, open_server, [generate_step("echo", "hello")])
    answer = ok(result)
    assert answer["text"] == "You said: hello"
    assert answer["finishReason"] == "stop"
    assert answer["usage"]["inputTokens"] == 10
    assert [s["text"] for s in answer["steps"]] == ["You said: hello"]


def test_stream_redacts_a_card_number_split_across_deltas(
    run_node: RunNode, open_server: Served
) -> None:
    (result,) = mastra(run_node, open_server, [stream_step("support", f"my card is {CARD} ok")])
    streamed = ok(result)
    assert streamed["status"] == 200
    assert streamed["types"][0] == "start"
    assert streamed["types"][-1] == "finish"
    assert streamed["text"] == "You said: my card is [REDACTED] ok"
    assert "4111" not in str(streamed["chunks"])
    finish = chunks_of(streamed, "finish")[0]
    assert finish["payload"]["stepResult"]["reason"] == "stop"


def test_stream_carries_data_chunks_stored_and_transient(
    run_node: RunNode, open_server: Served
) -> None:
    (result,) = mastra(run_node, open_server, [stream_step("support", "hello")])
    streamed = ok(result)
    # D22: data chunks are {type, data, transient?}, not {type, payload}
    assert chunks_of(streamed, "data-progress") == [{"type": "data-progress", "data": {"step": 0}}]
    (status,) = chunks_of(streamed, "data-status")
    assert status["data"] == {"state": "checked"}
    assert status["transient"] is True


def test_stream_marks_a_rejected_attempt_and_goes_on(
    run_node: RunNode, open_server: Served
) -> None:
    # D2: Mastra's stream route is live; the rejected attempt ends with a step-finish whose
    # reason is "retry", so a client can discard it.
    (result,) = mastra(run_node, open_server, [stream_step("support", "why so rude")])
    streamed = ok(result)
    finishes = chunks_of(streamed, "step-finish")
    assert [f["payload"]["stepResult"]["reason"] for f in finishes] == ["retry", "stop"]
    assert finishes[0]["payload"]["stepResult"]["retryProcessorId"] == "polite"
    deltas = [c["payload"]["text"] for c in chunks_of(streamed, "text-delta")]
    assert "".join(deltas).endswith("Sorry, happy to help.")
    assert "tripwire" not in streamed["types"]


def test_stream_in_step_mode_never_sends_the_rejected_attempt(
    run_node: RunNode, open_server: Served
) -> None:
    (result,) = mastra(
        run_node, open_server, [stream_step("support", "why so rude", release="step")]
    )
    streamed = ok(result)
    assert streamed["text"] == "Sorry, happy to help."  # D31
    assert "rude" not in str(streamed["chunks"])


def test_a_blocked_input_is_a_single_tripwire_chunk(run_node: RunNode, open_server: Served) -> None:
    streamed_result, generated_result = mastra(
        run_node,
        open_server,
        [
            stream_step("support", "my password is hunter2"),
            generate_step("support", "my password is hunter2"),
        ],
    )
    streamed = ok(streamed_result)
    assert streamed["types"] == ["tripwire"]
    payload = streamed["chunks"][0]["payload"]
    assert payload["processorId"] == "no-passwords"
    assert payload["reason"] == "Blocked: the message mentions a password"
    generated = ok(generated_result)
    assert generated["text"] == ""
    assert generated["tripwire"]["processorId"] == "no-passwords"
    assert generated["finishReason"] == "other"


def test_memory_threads_and_messages(run_node: RunNode, open_server: Served) -> None:
    # No credentials: the resource is the one the body names, here none, so "local".
    thread = unique("thread")
    memory = {"thread": thread}
    results = mastra(
        run_node,
        open_server,
        [
            stream_step("support", f"my card is {CARD}", memory=memory),
            stream_step("support", "why so rude", memory=memory),
            stream_step("support", "my password is hunter2", memory=memory),
            {"op": "listThreads", "params": {"agentId": "support"}},
            {"op": "getThread", "threadId": thread, "agentId": "support"},
            {"op": "listMessages", "threadId": thread, "agentId": "support"},
            {
                "op": "updateThread",
                "threadId": thread,
                "agentId": "support",
                "params": {"title": "Cards"},
            },
            {"op": "getThread", "threadId": thread, "agentId": "support"},
            {"op": "deleteThread", "threadId": thread, "agentId": "support"},
            {"op": "getThread", "threadId": thread, "agentId": "support"},
        ],
    )
    listed = ok(results[3])
    assert thread in [t["id"] for t in listed["threads"]]
    got = ok(results[4])
    assert got["id"] == thread
    assert got["resourceId"] == "local"
    messages = ok(results[5])["messages"]
    texts = [(m["role"], message_text(m)) for m in messages]
    # D13: only what survived every processor is stored; the blocked turn stores nothing
    assert texts == [
        ("user", f"my card is {CARD}"),
        ("assistant", "You said: my card is [REDACTED]"),
        ("user", "why so rude"),
        ("assistant", "Sorry, happy to help."),
    ]
    assert ok(results[7])["title"] == "Cards"
    ok(results[8])
    assert failed(results[9])["status"] == 404


def test_create_thread_ahead_and_run_in_it(run_node: RunNode, open_server: Served) -> None:
    thread = unique("thread")
    created, streamed, listed = mastra(
        run_node,
        open_server,
        [
            {
                "op": "createThread",
                "params": {"agentId": "support", "threadId": thread, "title": "Ahead"},
            },
            stream_step("support", "hello", memory={"thread": thread}),
            {"op": "listMessages", "threadId": thread, "agentId": "support"},
        ],
    )
    assert ok(created)["id"] == thread
    assert ok(created)["title"] == "Ahead"
    assert ok(streamed)["text"] == "You said: hello"
    assert [m["role"] for m in ok(listed)["messages"]] == ["user", "assistant"]


def test_a_tool_call_and_its_result_stream_to_the_client(
    run_node: RunNode, open_server: Served
) -> None:
    streamed_result, generated_result = mastra(
        run_node,
        open_server,
        [
            stream_step("weather", "weather in Paris?"),
            generate_step("weather", "weather in Paris?"),
        ],
    )
    streamed = ok(streamed_result)
    (call,) = chunks_of(streamed, "tool-call")
    assert call["payload"]["toolName"] == "get_weather"
    assert call["payload"]["args"] == {"city": "Paris"}
    (result,) = chunks_of(streamed, "tool-result")
    assert result["payload"]["toolCallId"] == call["payload"]["toolCallId"]
    assert result["payload"]["result"] == {"city": "Paris", "celsius": 21}
    assert streamed["text"] == "It is 21°C in Paris."
    assert [f["payload"]["stepResult"]["reason"] for f in chunks_of(streamed, "step-finish")] == [
        "tool-calls",
        "stop",
    ]
    generated = ok(generated_result)
    assert generated["text"] == "It is 21°C in Paris."
    assert [s["finishReason"] for s in generated["steps"]] == ["tool-calls", "stop"]
    assert generated["steps"][0]["toolCalls"][0]["payload"]["toolName"] == "get_weather"


def test_a_malformed_option_is_422_naming_the_field(run_node: RunNode, open_server: Served) -> None:
    (result,) = mastra(run_node, open_server, [generate_step("echo", "hi", maxSteps="many")])
    error = failed(result)
    assert error["status"] == 422
    assert [issue["field"] for issue in error["body"]["issues"]] == ["maxSteps"]


def test_a_body_over_the_limit_is_413(run_node: RunNode, open_server: Served) -> None:
    (result,) = mastra(run_node, open_server, [generate_step("echo", "x" * 1_100_000)])
    error = failed(result)
    assert error["status"] == 413
    assert "error" in error["body"]


def test_a_lone_surrogate_from_the_model_still_finishes_the_stream(
    run_node: RunNode, open_server: Served
) -> None:
    # D34 (decision 0226): U+FFFD instead, and the stream ends with finish, not a cut
    streamed, generated = mastra(
        run_node,
        open_server,
        [stream_step("echo", "a lone surrogate"), generate_step("echo", "a lone surrogate")],
    )
    chunks = ok(streamed)["chunks"]
    assert chunks[-1]["type"] == "finish"
    assert not [c for c in chunks if c["type"] == "error"]
    text = "".join(c["payload"]["text"] for c in chunks if c["type"] == "text-delta")
    assert text == "caf\ufffd ok"
    assert ok(generated)["text"] == "caf\ufffd ok"
