"""The get.* views and their db(), ui(), core() and prompt() forms."""

from __future__ import annotations

from procession.messages import (
    DataPart,
    FilePart,
    Message,
    MessageContent,
    MessageList,
    ReasoningPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
)
from tests.messages.factories import core_call, core_result


def _sources_list() -> tuple[MessageList, dict[str, Message]]:
    ml = MessageList()
    named = {
        "memory": Message.user("remembered"),
        "input": Message.user("question"),
        "response": Message.assistant("answer"),
        "context": Message.user("background"),
    }
    for source, message in named.items():
        ml.add(message, source)  # type: ignore[arg-type]
    return ml, named


def test_each_view_holds_only_its_source() -> None:
    ml, named = _sources_list()
    assert ml.get.remembered.db() == [named["memory"]]
    assert ml.get.input.db() == [named["input"]]
    assert ml.get.response.db() == [named["response"]]
    assert ml.get.context.db() == [named["context"]]
    assert ml.get.all.db() == list(named.values())


def test_db_returns_a_new_list_of_live_objects() -> None:
    ml, named = _sources_list()
    listed = ml.get.all.db()
    listed.clear()
    assert len(ml) == 4
    assert ml.get.input.db()[0] is named["input"]


def test_ui_view_converts_parts_to_ui_form() -> None:
    message = Message(
        id="a1",
        role="assistant",
        content=MessageContent(
            parts=[
                StepStartPart(),
                ReasoningPart(reasoning="r", details=[]),
                TextPart(text="t"),
                ToolInvocationPart(
                    tool_invocation=ToolInvocation(
                        state="result", tool_call_id="c", tool_name="calc", args={"x": 1}, result=2
                    )
                ),
                SourcePart(source={"sourceType": "url", "id": "s", "url": "u", "title": "T"}),
                FilePart(mime_type="image/png", data="aGk="),
                DataPart(type="data-x", data=1),
            ],
            metadata={"m": 1},
        ),
    )
    ml = MessageList()
    ml.add(message, "response")
    assert ml.get.response.ui() == [
        {
            "id": "a1",
            "role": "assistant",
            "metadata": {"m": 1},
            "parts": [
                {"type": "step-start"},
                {"type": "reasoning", "text": "r"},
                {"type": "text", "text": "t"},
                {
                    "type": "tool-calc",
                    "toolCallId": "c",
                    "state": "output-available",
                    "input": {"x": 1},
                    "output": 2,
                },
                {"type": "source-url", "sourceId": "s", "url": "u", "title": "T"},
                {"type": "file", "mediaType": "image/png", "url": "data:image/png;base64,aGk="},
                {"type": "data-x", "data": 1},
            ],
        }
    ]


def test_core_view_splits_tool_results_into_a_tool_message() -> None:
    ml = MessageList(["what is 1+1?"])
    ml.add(core_call("c1", "calc", {"e": "1+1"}), "response")
    ml.add(core_result("c1", 2, "calc"), "response")
    ml.get.response.db()[0].content.parts.append(TextPart(text="2"))
    assert ml.get.all.core() == [
        {"role": "user", "content": [{"type": "text", "text": "what is 1+1?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "c1", "toolName": "calc", "input": {"e": "1+1"}}
            ],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "calc",
                    "output": {"type": "json", "value": 2},
                }
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "2"}]},
    ]


def test_core_view_drops_tool_calls_without_results() -> None:
    ml = MessageList()
    ml.add(core_call("pending"), "response")
    assert ml.get.all.core() == []


def test_core_view_of_one_source_only() -> None:
    ml, _ = _sources_list()
    assert ml.get.input.core() == [
        {"role": "user", "content": [{"type": "text", "text": "question"}]}
    ]


def test_prompt_puts_every_system_message_first() -> None:
    ml = MessageList(["hi"])
    ml.add_system("tagged", tag="memory")
    ml.add_system("base")
    assert ml.get.all.prompt() == [
        {"role": "system", "content": "base"},
        {"role": "system", "content": "tagged"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    ]


def test_prompt_uses_legacy_content_for_messages_without_parts() -> None:
    ml = MessageList()
    ml.add(Message(id="u", role="user", content=MessageContent(parts=[], content="old text")))
    assert ml.get.all.prompt() == [
        {"role": "user", "content": [{"type": "text", "text": "old text"}]}
    ]
