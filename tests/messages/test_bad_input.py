"""Malformed input raises MessageError naming the field path and the value, and changes nothing."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from procession.errors import MessageError
from procession.messages import (
    Message,
    MessageContent,
    MessageList,
    SystemMessage,
    ToolInvocation,
    ToolInvocationPart,
    message_from_dict,
    message_to_dict,
    messages_from_json,
    part_from_dict,
    to_model_messages,
    to_prompt,
)
from tests.messages.factories import core_call, core_result, snapshot


def _populated() -> MessageList:
    ml = MessageList(["question"])
    ml.add(Message.user("remembered"), "memory")
    ml.add(core_call("c1"), "response")
    ml.add_system("base")
    ml.add_system("facts", tag="memory")
    return ml


def _stored(parts: Any) -> dict[str, Any]:
    return {"id": "bad", "role": "assistant", "content": {"format": 2, "parts": parts}}


def _tool(invocation: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool-invocation", "toolInvocation": invocation}


# Values the type checker would reject, typed Any to reach the runtime checks.
_ANY_BOT: Any = "bot"
_ANY_DICT_PART: Any = {"type": "text"}
_ANY_FINISHED: Any = "finished"
_CALL = {"state": "call", "toolCallId": "c", "toolName": "t", "args": {}}
_ANY_INT: Any = 123
_ANY_MESSAGE: Any = Message.user("not an id")

# (case id, operation on a populated list, path the message must name, value it must show)
Case = tuple[str, Callable[[MessageList], object], str, str]
CASES: list[Case] = [
    ("missing-role", lambda ml: ml.add({"content": "x"}), "messages.role", ""),
    (
        "unknown-role",
        lambda ml: ml.add({"role": "robot", "content": "x"}),
        "messages.role",
        "'robot'",
    ),
    (
        "unhashable-role",
        lambda ml: ml.add({"role": ["user"], "content": "x"}),
        "messages.role",
        "['user']",
    ),
    (
        "message-object-bad-role",
        lambda ml: ml.add(Message(id="m", role=_ANY_BOT, content=MessageContent(parts=[]))),
        "messages.role",
        "'bot'",
    ),
    (
        "message-object-dict-part",
        lambda ml: ml.add(
            Message(id="m", role="user", content=MessageContent(parts=[_ANY_DICT_PART]))
        ),
        "messages.content.parts[0]",
        "{'type': 'text'}",
    ),
    (
        "stored-part-no-type",
        lambda ml: ml.add(_stored([{"text": "x"}])),
        "messages.content.parts[0].type",
        "",
    ),
    (
        "stored-text-missing",
        lambda ml: ml.add(_stored([{"type": "text"}])),
        "messages.content.parts[0].text",
        "",
    ),
    (
        "stored-text-wrong-type",
        lambda ml: ml.add(_stored([{"type": "text", "text": 5}])),
        "messages.content.parts[0].text",
        "5",
    ),
    (
        "stored-file-missing-mime",
        lambda ml: ml.add(_stored([{"type": "file", "data": "x"}])),
        "messages.content.parts[0].mimeType",
        "",
    ),
    (
        "stored-reasoning-bad-detail",
        lambda ml: ml.add(_stored([{"type": "reasoning", "reasoning": "r", "details": ["x"]}])),
        "messages.content.parts[0].details[0]",
        "'x'",
    ),
    (
        "stored-source-missing-id",
        lambda ml: ml.add(_stored([{"type": "source", "source": {"url": "u"}}])),
        "messages.content.parts[0].source.id",
        "",
    ),
    (
        "stored-tool-bad-state",
        lambda ml: ml.add(_stored([_tool({**_CALL, "state": "done"})])),
        "messages.content.parts[0].toolInvocation.state",
        "'done'",
    ),
    (
        "stored-tool-result-missing",
        lambda ml: ml.add(_stored([_tool({**_CALL, "state": "result"})])),
        "messages.content.parts[0].toolInvocation.result",
        "",
    ),
    (
        "stored-tool-call-id-wrong-type",
        lambda ml: ml.add(_stored([_tool({**_CALL, "toolCallId": 7})])),
        "messages.content.parts[0].toolInvocation.toolCallId",
        "7",
    ),
    (
        "stored-parts-bare-string",
        lambda ml: ml.add(_stored("hello")),
        "messages.content.parts",
        "'hello'",
    ),
    (
        "stored-content-bare-string-in-list",
        lambda ml: ml.add(["fine", {"id": "x", "role": "user", "content": {"parts": ["hi"]}}]),
        "messages[1].content.parts[0]",
        "'hi'",
    ),
    (
        "core-part-bare-string",
        lambda ml: ml.add({"role": "user", "content": ["hi"]}),
        "messages.content[0]",
        "'hi'",
    ),
    (
        "core-part-no-type",
        lambda ml: ml.add({"role": "user", "content": [{"text": "hi"}]}),
        "messages.content[0].type",
        "",
    ),
    (
        "core-tool-call-bad-name",
        lambda ml: ml.add(
            {
                "role": "assistant",
                "content": [{"type": "tool-call", "toolCallId": "c", "toolName": 1}],
            }
        ),
        "messages.content[0].toolName",
        "1",
    ),
    (
        "ui-bad-tool-state",
        lambda ml: ml.add(
            {
                "role": "assistant",
                "parts": [{"type": "tool-x", "toolCallId": "c", "state": "weird"}],
            }
        ),
        "messages.parts[0].state",
        "'weird'",
    ),
    (
        "ui-parts-not-a-list",
        lambda ml: ml.add({"role": "user", "parts": "hello"}),
        "messages.parts",
        "'hello'",
    ),
    (
        "tool-result-unknown-call",
        lambda ml: ml.add(core_result("nope", 1)),
        "messages.content[0].toolCallId",
        "'nope'",
    ),
    (
        "tool-result-after-valid-messages",
        lambda ml: ml.add(["first", core_call("c2"), core_result("zzz", 1)]),
        "messages[2].content[0].toolCallId",
        "'zzz'",
    ),
    (
        "tool-result-for-call-on-user-message",
        lambda ml: ml.add(
            [
                {
                    "id": "u",
                    "role": "user",
                    "content": {"parts": [_tool({**_CALL, "toolCallId": "cu"})]},
                },
                core_result("cu", 1),
            ]
        ),
        "messages[1].content[0].toolCallId",
        "'cu'",
    ),
    (
        "tool-message-not-result-part",
        lambda ml: ml.add({"role": "tool", "content": [{"type": "text", "text": "x"}]}),
        "messages.content[0]",
        "'text'",
    ),
    ("bad-source", lambda ml: ml.add("x", "history"), "source", "'history'"),  # type: ignore[arg-type]
    ("not-a-message", lambda ml: ml.add(42), "messages", "42"),
    (
        "update-bad-state-object",
        lambda ml: ml.update_tool_invocation(
            ToolInvocationPart(
                tool_invocation=ToolInvocation(
                    state=_ANY_FINISHED, tool_call_id="c1", tool_name="t", args={}
                )
            )
        ),
        "part.toolInvocation.state",
        "'finished'",
    ),
    (
        "update-bad-state-dict",
        lambda ml: ml.update_tool_invocation(_tool({**_CALL, "toolCallId": "c1", "state": "x"})),
        "part.toolInvocation.state",
        "'x'",
    ),
    (
        "update-not-a-tool-part",
        lambda ml: ml.update_tool_invocation({"type": "text", "text": "x"}),
        "part",
        "'text'",
    ),
    (
        "system-bad-role",
        lambda ml: ml.add_system({"role": "user", "content": "x"}),
        "system[0].role",
        "'user'",
    ),
    (
        "system-bad-content-in-list",
        lambda ml: ml.add_system(["ok", {"role": "system", "content": 3}]),
        "system[1].content",
        "3",
    ),
    (
        "replace-set-not-a-list",
        lambda ml: ml.apply_replace_set(ml.get.all.db(), "x", "input"),
        "returned",
        "'x'",
    ),
    (
        "replace-set-bad-entry",
        lambda ml: ml.apply_replace_set(
            ml.get.all.db(), [*ml.get.all.db(), {"role": "x"}], "input"
        ),
        "returned[3].role",
        "'x'",
    ),
    (
        "replace-set-duplicate-id",
        lambda ml: ml.apply_replace_set(ml.get.all.db(), [ml.get.all.db()[0]] * 2, "input"),
        "returned",
        "",
    ),
    (
        "replace-set-bad-default-source",
        lambda ml: ml.apply_replace_set([], ["x"], "nowhere"),  # type: ignore[arg-type]
        "default_source",
        "'nowhere'",
    ),
    (
        "replace-set-result-for-removed-call",
        lambda ml: ml.apply_replace_set(
            ml.get.all.db(), [{"role": "system", "content": "new"}, core_result("c1", 1)], "input"
        ),
        "returned[1].content[0].toolCallId",
        "'c1'",
    ),
    ("rollback-foreign-marker", lambda ml: ml.rollback("marker"), "checkpoint", "'marker'"),
    (
        "system-object-bad-content",
        lambda ml: ml.add_system(SystemMessage(_ANY_INT)),
        "system[0].content",
        "123",
    ),
    (
        "replace-set-bad-scope",
        lambda ml: ml.apply_replace_set(_ANY_INT, [], "input"),
        "scope",
        "123",
    ),
    # D35: call options of the wrong type are refused by name, with the value
    ("remove-by-an-int", lambda ml: ml.remove_by_ids(_ANY_INT), "ids", "123"),
    ("remove-by-a-message", lambda ml: ml.remove_by_ids(_ANY_MESSAGE), "ids", "Message("),
    ("remove-by-ints", lambda ml: ml.remove_by_ids(["x", _ANY_INT]), "ids[1]", "123"),
    ("get-source-of-an-int", lambda ml: ml.get_source(_ANY_INT), "message", "123"),
    ("system-tag-not-a-string", lambda ml: ml.add_system("x", tag=_ANY_INT), "tag", "123"),
    ("system-tag-empty", lambda ml: ml.add_system("x", tag=""), "tag", "''"),
    ("get-system-bad-tag", lambda ml: ml.get_system_messages(_ANY_INT), "tag", "123"),
    ("clear-system-bad-tag", lambda ml: ml.clear_system_messages(_ANY_INT), "tag", "123"),
    (
        "replace-system-not-a-list",
        lambda ml: ml.replace_all_system_messages(_ANY_INT),
        "messages",
        "123",
    ),
]


@pytest.mark.parametrize(
    ("operation", "path", "value"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_raises_message_error_and_changes_nothing(
    operation: Callable[[MessageList], object], path: str, value: str
) -> None:
    ml = _populated()
    before = snapshot(ml)
    with pytest.raises(MessageError) as caught:
        operation(ml)
    text = str(caught.value)
    assert text.startswith(f"{path}: ")
    assert caught.value.path == path
    if value:
        assert value in text
    assert snapshot(ml) == before


def test_message_error_is_a_value_error_with_its_parts() -> None:
    error = MessageError("a.b", "must be x", [1])
    assert isinstance(error, ValueError)
    assert (error.path, error.problem, error.value) == ("a.b", "must be x", [1])
    assert str(error) == "a.b: must be x (got [1])"


def test_long_values_are_shortened_in_the_message() -> None:
    with pytest.raises(MessageError) as caught:
        message_from_dict({"role": "x" * 500, "content": {"parts": []}})
    assert len(str(caught.value)) < 200
    assert caught.value.value == "x" * 500


@pytest.mark.parametrize(
    ("obj", "path"),
    [
        ("text", "part"),
        ({"type": 3}, "part.type"),
        ({"type": "error"}, "part.error"),
        ({"type": "source-document", "sourceId": "s", "mediaType": "m"}, "part.title"),
        ({"type": "data-x"}, "part.data"),
        ({"type": "text", "text": "x", "providerMetadata": "p"}, "part.providerMetadata"),
        ({"type": "text", "text": "x", "createdAt": "yesterday"}, "part.createdAt"),
        ({"type": "step-start", "model": 1}, "part.model"),
    ],
)
def test_part_decoder_names_the_bad_field(obj: object, path: str) -> None:
    with pytest.raises(MessageError) as caught:
        part_from_dict(obj)
    assert caught.value.path == path


@pytest.mark.parametrize(
    ("obj", "path"),
    [
        ([], "message"),
        ({"role": "user"}, "message.content"),
        ({"role": "user", "content": "flat"}, "message.content"),
        ({"role": "user", "content": {"format": 3, "parts": []}}, "message.content.format"),
        ({"role": "user", "content": {"parts": [], "content": 1}}, "message.content.content"),
        ({"role": "user", "id": "", "content": {"parts": []}}, "message.id"),
        ({"role": "user", "threadId": 1, "content": {"parts": []}}, "message.threadId"),
        ({"role": "user", "createdAt": True, "content": {"parts": []}}, "message.createdAt"),
        ({"role": "user", "content": {"parts": [], "metadata": []}}, "message.content.metadata"),
    ],
)
def test_message_decoder_names_the_bad_field(obj: object, path: str) -> None:
    with pytest.raises(MessageError) as caught:
        message_from_dict(obj)
    assert caught.value.path == path


def test_messages_from_json_rejects_bad_json_and_non_arrays() -> None:
    with pytest.raises(MessageError, match=re.escape("json: is not valid JSON")):
        messages_from_json("{")
    with pytest.raises(MessageError, match=re.escape("json: must be an array")):
        messages_from_json("{}")
    with pytest.raises(MessageError, match=re.escape("messages[0].role")):
        messages_from_json('[{"content": {"parts": []}}]')


@pytest.mark.parametrize(
    ("make", "path"),
    [
        (lambda: Message.user(_ANY_INT), "text"),
        (lambda: Message.assistant(None), "text"),  # type: ignore[arg-type]
        (lambda: Message.user("x", id=_ANY_INT), "id"),
        (lambda: Message.user("x", id=""), "id"),
        (lambda: MessageList(thread_id=_ANY_INT), "thread_id"),
        (lambda: MessageList(resource_id=_ANY_INT), "resource_id"),
        (lambda: messages_from_json(_ANY_INT), "json"),
        (lambda: message_to_dict(_ANY_INT), "message"),
        (lambda: to_model_messages(_ANY_INT), "messages"),
        (lambda: to_model_messages([Message.user("x"), _ANY_INT]), "messages[1]"),
        (lambda: to_prompt([SystemMessage("s"), _ANY_INT], []), "system[1]"),
        (lambda: to_prompt([], ["text"]), "messages[0]"),  # type: ignore[list-item]
    ],
)
def test_constructors_and_helpers_refuse_wrong_types(  # D35
    make: Callable[[], object], path: str
) -> None:
    with pytest.raises(MessageError) as caught:
        make()
    assert caught.value.path == path
