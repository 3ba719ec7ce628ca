"""MessageList.add in every accepted form, sources and memory placement."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from procession.messages import (
    FilePart,
    Message,
    MessageList,
    ReasoningPart,
    StepStartPart,
    TextPart,
    ToolInvocationPart,
    UnknownPart,
)
from tests.messages.factories import core_call, core_result


def _tool_part(message: Message) -> ToolInvocationPart:
    [part] = [p for p in message.content.parts if isinstance(p, ToolInvocationPart)]
    return part


def test_add_string_becomes_a_user_text_message_with_input_source() -> None:
    ml = MessageList()
    ml.add("hello")
    [message] = ml.get.all.db()
    assert (message.role, message.text) == ("user", "hello")
    assert ml.get_source(message) == "input"


def test_add_returns_the_list_for_chaining() -> None:
    ml = MessageList()
    assert ml.add("a").add("b") is ml
    assert len(ml) == 2


def test_add_message_object_keeps_the_live_object() -> None:
    ml = MessageList()
    message = Message.assistant("hi")
    ml.add(message, "response")
    assert ml.get.all.db()[0] is message
    assert ml.get_source(message.id) == "response"


def test_add_same_id_replaces_in_place() -> None:
    ml = MessageList(["first", Message.user("old", id="x"), "last"])
    ml.add(Message.user("new", id="x"))
    assert [m.text for m in ml.get.all.db()] == ["first", "new", "last"]


def test_add_stored_dict_decodes_it() -> None:
    ml = MessageList()
    ml.add(
        {
            "id": "s1",
            "role": "assistant",
            "createdAt": "2025-01-01T00:00:00.000Z",
            "content": {"format": 2, "parts": [{"type": "text", "text": "stored"}]},
        }
    )
    [message] = ml.get.all.db()
    assert (message.id, message.text) == ("s1", "stored")
    assert message.created_at == datetime(2025, 1, 1, tzinfo=UTC)


def test_add_core_string_content() -> None:
    ml = MessageList()
    ml.add({"role": "assistant", "content": "plain", "id": "a1"})
    [message] = ml.get.all.db()
    assert (message.id, message.role, message.text) == ("a1", "assistant", "plain")


def test_add_core_parts_are_converted() -> None:
    ml = MessageList()
    ml.add(
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "image": "aGk=", "mediaType": "image/png"},
                {"type": "file", "data": "ZA==", "mediaType": "text/plain"},
            ],
        }
    )
    parts = ml.get.all.db()[0].content.parts
    assert parts == [
        TextPart(text="look"),
        FilePart(mime_type="image/png", data="aGk="),
        FilePart(mime_type="text/plain", data="ZA=="),
    ]


def test_add_core_reasoning_keeps_the_text_as_a_detail() -> None:
    ml = MessageList()
    ml.add({"role": "assistant", "content": [{"type": "reasoning", "text": "because"}]})
    assert ml.get.all.db()[0].content.parts == [
        ReasoningPart(reasoning="because", details=[{"type": "text", "text": "because"}])
    ]


def test_core_tool_call_becomes_a_call_invocation() -> None:
    ml = MessageList()
    ml.add(core_call("c1", "weather", {"city": "Oslo"}), "response")
    inv = _tool_part(ml.get.all.db()[0]).tool_invocation
    assert (inv.state, inv.tool_call_id, inv.tool_name, inv.args) == (
        "call",
        "c1",
        "weather",
        {"city": "Oslo"},
    )


def test_core_tool_result_is_stored_on_the_earlier_call() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    ml.add(core_result("c1", {"temp": 3}), "response")
    assert len(ml) == 1
    inv = _tool_part(ml.get.all.db()[0]).tool_invocation
    assert (inv.state, inv.result) == ("result", {"temp": 3})


def test_core_tool_result_in_the_same_batch_as_its_call() -> None:
    ml = MessageList()
    ml.add(["question", core_call("c1"), core_result("c1", 42)])
    assert len(ml) == 2
    assert _tool_part(ml.get.all.db()[1]).tool_invocation.result == 42


def test_core_tool_error_result_sets_output_error() -> None:
    ml = MessageList()
    ml.add(core_call("c1"))
    ml.add(
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "search",
                    "output": {"type": "error-text", "value": "timeout"},
                }
            ],
        }
    )
    inv = _tool_part(ml.get.all.db()[0]).tool_invocation
    assert (inv.state, inv.error_text) == ("output-error", "timeout")


def test_core_tool_result_with_legacy_result_key() -> None:
    ml = MessageList()
    ml.add(core_call("c1"))
    ml.add(
        {
            "role": "tool",
            "content": [{"type": "tool-result", "toolCallId": "c1", "toolName": "s", "result": 7}],
        }
    )
    assert _tool_part(ml.get.all.db()[0]).tool_invocation.result == 7


def test_ui_form_text_and_tool_parts() -> None:
    ml = MessageList()
    ml.add(
        {
            "id": "ui1",
            "role": "assistant",
            "metadata": {"k": 1},
            "parts": [
                {"type": "step-start"},
                {"type": "text", "text": "checking"},
                {
                    "type": "tool-weather",
                    "toolCallId": "c1",
                    "state": "output-available",
                    "input": {"city": "Rome"},
                    "output": {"temp": 20},
                },
            ],
        }
    )
    [message] = ml.get.all.db()
    assert message.id == "ui1"
    assert message.content.metadata == {"k": 1}
    step, text, tool = message.content.parts
    assert isinstance(step, StepStartPart)
    assert text == TextPart(text="checking")
    assert isinstance(tool, ToolInvocationPart)
    inv = tool.tool_invocation
    assert (inv.state, inv.tool_name, inv.args, inv.result) == (
        "result",
        "weather",
        {"city": "Rome"},
        {"temp": 20},
    )


@pytest.mark.parametrize(
    ("ui_state", "state"),
    [
        ("input-streaming", "partial-call"),
        ("input-available", "call"),
        ("output-error", "output-error"),
        ("approval-requested", "approval-requested"),
        ("output-denied", "output-denied"),
    ],
)
def test_ui_tool_states_map_to_stored_states(ui_state: str, state: str) -> None:
    ml = MessageList()
    ml.add(
        {"role": "assistant", "parts": [{"type": "tool-t", "toolCallId": "c", "state": ui_state}]}
    )
    assert _tool_part(ml.get.all.db()[0]).tool_invocation.state == state


def test_ui_file_url_and_unknown_part() -> None:
    ml = MessageList()
    ml.add(
        {
            "role": "user",
            "parts": [
                {"type": "file", "url": "https://e.x/a.png", "mediaType": "image/png"},
                {"type": "thinking", "thinking": "x"},
            ],
        }
    )
    file_part, unknown = ml.get.all.db()[0].content.parts
    assert file_part == FilePart(mime_type="image/png", data="https://e.x/a.png")
    assert unknown == UnknownPart(type="thinking", raw={"type": "thinking", "thinking": "x"})


def test_system_role_dict_goes_to_the_system_bucket_not_the_messages() -> None:
    ml = MessageList()
    ml.add([{"role": "system", "content": "rules"}, "hi"])
    assert [m.text for m in ml.get.all.db()] == ["hi"]
    assert [s.content for s in ml.get_system_messages()] == ["rules"]


def test_system_message_object_with_role_system_goes_to_system_bucket() -> None:
    ml = MessageList()
    ml.add(Message(id="s", role="system", content=Message.user("sys").content))
    assert len(ml) == 0
    assert [s.content for s in ml.get_system_messages()] == ["sys"]


def test_stored_system_message_uses_its_text() -> None:
    ml = MessageList()
    ml.add(
        {
            "role": "system",
            "content": {
                "format": 2,
                "parts": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
        }
    )
    assert [s.content for s in ml.get_system_messages()] == ["a\nb"]


def test_system_messages_from_memory_are_dropped() -> None:
    ml = MessageList()
    ml.add({"role": "system", "content": "old rules"}, "memory")
    assert ml.get_all_system_messages() == []


def test_memory_messages_are_placed_before_the_conversation() -> None:
    ml = MessageList(["new question"])
    ml.add(["old q", "old a"], "memory")
    ml.add("older still?", "memory")
    texts = [m.text for m in ml.get.all.db()]
    assert texts == ["old q", "old a", "older still?", "new question"]
    assert [m.text for m in ml.get.remembered.db()] == ["old q", "old a", "older still?"]


def test_thread_and_resource_ids_are_stamped_on_added_messages() -> None:
    ml = MessageList(thread_id="t1", resource_id="r1")
    ml.add("hi")
    own = Message.user("mine")
    own.thread_id = "other"
    ml.add(own)
    first, second = ml.get.all.db()
    assert (first.thread_id, first.resource_id) == ("t1", "r1")
    assert (second.thread_id, second.resource_id) == ("other", "r1")


def test_get_latest_user_content_reads_the_newest_user_message() -> None:
    ml = MessageList()
    assert ml.get_latest_user_content() is None
    ml.add(["first", "second"])
    ml.add(Message.assistant("reply"), "response")
    assert ml.get_latest_user_content() == "second"


def test_get_source_of_an_absent_message_is_none() -> None:
    assert MessageList().get_source("nope") is None


def test_repr_counts_messages_and_system_messages() -> None:
    ml = MessageList(["a"])
    ml.add_system("s")
    assert repr(ml) == "<MessageList 1 messages, 1 system>"
