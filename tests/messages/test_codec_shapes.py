"""The codec's quick reading of the usual stored shapes applies the same rules as the full
one (D24, D30): what it accepts decodes to the same message, what it refuses is named."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from procession.errors import MessageError
from procession.messages import TextPart, message_from_dict, message_to_dict
from procession.messages.message import Message


def _stored(parts: list[Any], **content: Any) -> dict[str, Any]:
    return {
        "id": "m1",
        "role": "user",
        "createdAt": "2026-12-02T10:00:00.123456Z",
        "content": {"format": 2, "parts": parts, **content},
    }


def test_text_parts_of_the_usual_shape_decode_as_before() -> None:  # D30
    message = message_from_dict(
        _stored([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])
    )
    assert [p.text for p in message.content.parts if isinstance(p, TextPart)] == ["a", "b"]
    assert message.created_at == datetime(2026, 12, 2, 10, 0, 0, 123456, tzinfo=UTC)
    assert (
        message_to_dict(message)["content"]
        == _stored([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])["content"]
    )


@pytest.mark.parametrize(
    ("parts", "field"),
    [
        ([{"text": "no type"}], "content.parts[0].type"),
        ([{"type": "text"}], "content.parts[0].text"),
        ([{"type": "text", "text": 5}], "content.parts[0].text"),
        ([{"type": "text", "text": "ok"}, {"type": "text", "text": None}], "content.parts[1].text"),
        ([{"type": "text", "text": "ok"}, "not a part"], "content.parts[1]"),
    ],
)
def test_a_bad_text_part_is_named_by_its_index(parts: list[Any], field: str) -> None:  # D30
    with pytest.raises(MessageError) as info:
        message_from_dict(_stored(parts))
    assert info.value.path == f"message.{field}"


def test_other_fields_of_parts_and_content_are_kept() -> None:  # D24
    parts = [
        {"type": "text", "text": "a", "providerMetadata": {"x": {"y": 1}}, "custom": 1},
        {"type": "step-start"},
    ]
    message = message_from_dict(_stored(parts, content="a", metadata={"k": "v"}, other=2))
    assert (
        message_to_dict(message)["content"]
        == _stored(parts, content="a", metadata={"k": "v"}, other=2)["content"]
    )


@pytest.mark.parametrize(
    ("created", "expected"),
    [
        (datetime(2026, 1, 1, 12, 0), datetime(2026, 1, 1, 12, 0, tzinfo=UTC)),  # naive: UTC
        (0, datetime(1970, 1, 1, tzinfo=UTC)),  # epoch milliseconds
    ],
)
def test_created_at_reads_every_accepted_form(created: object, expected: datetime) -> None:
    data = _stored([{"type": "text", "text": "a"}])
    data["createdAt"] = created
    assert message_from_dict(data).created_at == expected


def test_a_missing_created_at_is_now_and_a_bad_one_is_named() -> None:
    data = _stored([])
    del data["createdAt"]
    before = datetime.now(UTC)
    assert before <= message_from_dict(data).created_at <= datetime.now(UTC)
    data["createdAt"] = "yesterday"
    with pytest.raises(MessageError) as info:
        message_from_dict(data)
    assert info.value.path == "message.createdAt"


def test_a_decoded_message_passes_the_live_checks() -> None:  # D30
    from procession.messages.validation import validate_messages

    message = message_from_dict(_stored([{"type": "text", "text": "a"}]))
    assert isinstance(message, Message)
    validate_messages(message)
