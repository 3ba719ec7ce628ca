"""``validate_messages``: live message objects checked with the codec's read rules (D24, D30)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession.errors import MessageError
from procession.messages import (
    DataPart,
    ErrorPart,
    FilePart,
    Message,
    MessageContent,
    MessageList,
    ReasoningPart,
    SourceDocumentPart,
    SourcePart,
    StepStartPart,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
    UnknownPart,
    message_from_dict,
    message_to_dict,
    validate_messages,
)
from procession.messages.validation import message_problem
from tests.messages.factories import snapshot
from tests.messages.strategies import messages


def _tool_message() -> Message:
    invocation = ToolInvocation(state="call", tool_call_id="c1", tool_name="lookup", args={})
    return Message(
        id="m-tool",
        role="assistant",
        content=MessageContent(
            parts=[
                TextPart(text="let me look"),
                ToolInvocationPart(tool_invocation=invocation),
                ReasoningPart(reasoning="r", details=[{"type": "text", "text": "r"}]),
                SourcePart(source={"id": "s1", "url": "http://127.0.0.1/"}),
                DataPart(type="data-progress", data={"pct": 50}),
                UnknownPart(type="thinking", raw={"type": "thinking", "text": "hmm"}),
            ]
        ),
    )


def _part(index: int, name: str, value: object) -> Callable[[Message], None]:
    return lambda m: setattr(m.content.parts[index], name, value)


def _invocation(name: str, value: object) -> Callable[[Message], None]:
    def edit(message: Message) -> None:
        part = message.content.parts[1]
        assert isinstance(part, ToolInvocationPart)
        setattr(part.tool_invocation, name, value)

    return edit


# (case, in-place edit a hook could make, the path the error names, the value it shows)
EDITS: list[tuple[str, Callable[[Message], None], str, str]] = [
    ("text None", _part(0, "text", None), "content.parts[0].text", "None"),
    ("text bytes", _part(0, "text", b"x"), "content.parts[0].text", "b'x'"),
    ("state", _invocation("state", "done"), "content.parts[1].toolInvocation.state", "'done'"),
    ("call id", _invocation("tool_call_id", 7), "content.parts[1].toolInvocation.toolCallId", "7"),
    ("is_error", _invocation("is_error", "yes"), "content.parts[1].toolInvocation.isError", ""),
    ("invocation", _part(1, "tool_invocation", {}), "content.parts[1].toolInvocation", "{}"),
    ("details", _part(2, "details", [{"type": "x"}]), "content.parts[2].details[0]", ""),
    ("source id", _part(3, "source", {"url": "u"}), "content.parts[3].source.id", "None"),
    ("data type", _part(4, "type", "progress"), "content.parts[4].type", "'progress'"),
    ("unknown raw", _part(5, "raw", "x"), "content.parts[5].raw", "'x'"),
    ("created bool", _part(0, "created_at", True), "content.parts[0].createdAt", "True"),
    ("type swapped", _part(0, "type", "reasoning"), "content.parts[0].type", "'reasoning'"),
    ("not a part", lambda m: m.content.parts.append("hi"), "content.parts[6]", "'hi'"),  # type: ignore[arg-type]
    ("parts", lambda m: setattr(m.content, "parts", None), "content.parts", "None"),
    ("metadata", lambda m: setattr(m.content, "metadata", [1]), "content.metadata", "[1]"),
    ("content", lambda m: setattr(m, "content", "text"), "content", "'text'"),
    ("role", lambda m: setattr(m, "role", "tool"), "role", "'tool'"),
    ("created", lambda m: setattr(m, "created_at", "now"), "createdAt", "'now'"),
    ("type", lambda m: setattr(m, "type", 2), "type", "2"),
]


@pytest.mark.parametrize(("case", "edit", "path", "shown"), EDITS, ids=[e[0] for e in EDITS])
def test_an_invalid_in_place_edit_names_message_id_and_field(  # D30
    case: str, edit: Callable[[Message], None], path: str, shown: str
) -> None:
    message = _tool_message()
    validate_messages([message])
    edit(message)
    with pytest.raises(MessageError) as caught:
        validate_messages([Message.user("fine"), message])
    assert caught.value.path == f"message['m-tool'].{path}"
    assert f"message['m-tool'].{path}:" in str(caught.value)
    assert shown in str(caught.value)


def test_a_bad_id_is_named_by_field() -> None:  # D30
    message = Message.user("hi")
    message.id = ""
    with pytest.raises(MessageError, match=r"^message\.id: must be a non-empty string"):
        validate_messages(message)


def test_a_single_message_or_any_iterable_is_accepted() -> None:
    one, two = _tool_message(), Message.user("x")
    validate_messages(one)
    validate_messages((one, two))
    validate_messages(m for m in (one, two))
    validate_messages([])


@pytest.mark.parametrize("value", ["text", {"id": "m"}, 3, None, ["text"]])
def test_what_is_not_messages_is_refused(value: Any) -> None:  # D35
    with pytest.raises(MessageError, match="must be a Message"):
        validate_messages(value)


def test_message_list_add_refuses_an_invalid_message_and_changes_nothing() -> None:  # D24
    message_list = MessageList(["question"])
    before = snapshot(message_list)
    bad = _tool_message()
    bad.content.parts[0].text = None  # type: ignore[union-attr]
    with pytest.raises(MessageError, match=r"messages\[1\]\.content\.parts\[0\]\.text"):
        message_list.add([Message.user("ok"), bad])
    assert snapshot(message_list) == before


# -- the validator and the codec agree ---------------------------------------------------------

_VALUES: list[object] = [None, 0, 1.5, True, "s", "", [], [1], {}, {"type": "text"}]


def _objects(message: Message) -> list[object]:
    """Every dataclass object of a message: itself, its content, parts and invocations."""
    out: list[object] = [message, message.content, *message.content.parts]
    out += [p.tool_invocation for p in message.content.parts if isinstance(p, ToolInvocationPart)]
    return out


def _codec_reads(message: Message) -> bool:
    """Whether storage could write the message and read the same message back."""
    try:
        encoded = message_to_dict(message)
        decoded = message_from_dict(json.loads(json.dumps(encoded)))
    except (MessageError, AttributeError, TypeError, ValueError):
        return False
    return message_to_dict(decoded) == encoded  # a missing id would come back as a new one


def _agrees(message: Message) -> None:
    problem = message_problem(message)
    if problem is None:
        assert _codec_reads(message)  # what the validator accepts always loads again (D30)
    elif _codec_reads(message):
        # The validator is stricter in three places only: a part's type tag changed to one
        # the codec reads as another kind of part, an ``extra`` that is a falsy non-dict (the
        # encoder skips it), and ``parts`` that are an empty str or dict, not a list.
        assert problem[0].endswith((".type", "extra", "content.parts")), problem


def _every_part() -> Message:
    message = _tool_message()
    message.content.parts += [
        SourceDocumentPart(source_id="d", media_type="text/plain", title="t"),
        FilePart(mime_type="image/png", data="AAAA"),
        StepStartPart(),
        ErrorPart(error={"name": "E", "message": "m"}),
    ]
    return message


def test_the_validator_agrees_with_the_codec_on_every_field() -> None:  # D30
    count = len(_objects(_every_part()))
    for index in range(count):
        fields = dataclasses.fields(_objects(_every_part())[index])  # type: ignore[arg-type]
        for name in (f.name for f in fields):
            for value in _VALUES:
                message = _every_part()
                setattr(_objects(message)[index], name, value)
                _agrees(message)


@settings(max_examples=200)
@given(messages, st.data())
def test_the_validator_agrees_with_the_codec_on_random_messages(
    message: Message, data: st.DataObject
) -> None:
    assert message_problem(message) is None  # every generated message is valid
    target = data.draw(st.sampled_from(_objects(message)))
    names = [f.name for f in dataclasses.fields(target)]  # type: ignore[arg-type]
    name = data.draw(st.sampled_from(names))
    setattr(target, name, data.draw(st.sampled_from(_VALUES)))
    _agrees(message)


def test_every_part_type_and_a_naive_datetime_pass() -> None:
    message = _tool_message()
    message.created_at = datetime(2024, 1, 1)  # naive: read as UTC
    validate_messages(message)
    message.created_at = datetime(2024, 1, 1, tzinfo=UTC)
    validate_messages(message)


def test_a_subclass_of_a_part_is_checked_as_its_base() -> None:
    @dataclasses.dataclass(slots=True, kw_only=True)
    class Marked(TextPart):
        pass

    message = Message(id="m", role="user", content=MessageContent(parts=[Marked(text="x")]))
    validate_messages(message)
    message.content.parts[0].text = None  # type: ignore[union-attr]
    with pytest.raises(MessageError, match=r"parts\[0\]\.text"):
        validate_messages(message)


class _Incomparable:
    """A value whose ``==`` raises, as a numpy array's truth value does."""

    def __eq__(self, other: object) -> bool:
        raise ValueError("ambiguous")

    __hash__ = object.__hash__


def test_a_value_whose_equality_raises_is_still_named() -> None:
    message = Message.user("x", id="m1")
    message.content.metadata = _Incomparable()  # type: ignore[assignment]
    with pytest.raises(MessageError, match=r"message\['m1'\]\.content\.metadata: must be an obj"):
        validate_messages(message)
