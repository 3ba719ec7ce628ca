"""Message, SystemMessage, get_text and ids."""

from __future__ import annotations

from procession.messages import (
    FilePart,
    Message,
    MessageContent,
    SystemMessage,
    TextPart,
    get_text,
)
from procession.messages.message import new_id


def test_get_text_joins_text_parts_in_order_and_skips_others() -> None:
    message = Message(
        id="m",
        role="user",
        content=MessageContent(
            parts=[TextPart(text="a"), FilePart(mime_type="x/y", data="d"), TextPart(text="b")]
        ),
    )
    assert get_text(message) == "ab"
    assert message.text == "ab"


def test_get_text_prefers_parts_over_legacy_content() -> None:
    message = Message(
        id="m", role="user", content=MessageContent(parts=[TextPart(text="new")], content="old")
    )
    assert get_text(message) == "new"


def test_get_text_falls_back_to_legacy_content_when_parts_hold_no_text() -> None:
    message = Message(id="m", role="user", content=MessageContent(parts=[], content="legacy"))
    assert get_text(message) == "legacy"


def test_get_text_is_empty_without_text_or_legacy_content() -> None:
    message = Message(id="m", role="user", content=MessageContent(parts=[]))
    assert get_text(message) == ""


def test_get_text_sees_in_place_edits_of_parts() -> None:
    message = Message.user("before")
    part = message.content.parts[0]
    assert isinstance(part, TextPart)
    part.text = "after"
    assert message.text == "after"


def test_user_and_assistant_builders_set_role_text_and_id() -> None:
    user = Message.user("hi", id="u1")
    assistant = Message.assistant("yo")
    assert (user.id, user.role, user.text) == ("u1", "user", "hi")
    assert (assistant.role, assistant.text) == ("assistant", "yo")
    assert assistant.id.startswith("msg_")


def test_new_ids_are_unique_and_prefixed() -> None:
    ids = {new_id("call") for _ in range(1000)}
    assert len(ids) == 1000
    assert all(i.startswith("call_") for i in ids)


def test_system_message_core_form() -> None:
    assert SystemMessage("be nice").to_dict() == {"role": "system", "content": "be nice"}
    with_options = SystemMessage("x", {"anthropic": {"cacheControl": {"type": "ephemeral"}}})
    assert with_options.to_dict()["providerOptions"] == {
        "anthropic": {"cacheControl": {"type": "ephemeral"}}
    }


def test_new_ids_carry_128_random_bits_and_share_no_prefix() -> None:
    # issue 20: ids were a process prefix and a counter, so the next ones could be guessed
    import re

    from procession.messages.message import new_id

    ids = [new_id() for _ in range(1000)]
    assert all(re.fullmatch(r"msg_[0-9a-f]{32}", i) for i in ids)
    assert len({i[4:8] for i in ids}) > 900  # a shared prefix would give one value
    assert len({i[-4:] for i in ids}) > 900  # a counter would not vary its tail this way
