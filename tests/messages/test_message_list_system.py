"""System messages: untagged and tagged buckets, de-duplication, clear and replace (D17)."""

from __future__ import annotations

from procession.messages import Message, MessageList, SystemMessage


def _texts(messages: list[SystemMessage]) -> list[str]:
    return [m.content for m in messages]


def test_add_system_untagged_accepts_strings_dicts_objects_and_lists() -> None:
    ml = MessageList()
    ml.add_system("a")
    ml.add_system({"role": "system", "content": "b", "providerOptions": {"p": {}}})
    ml.add_system(SystemMessage("c"))
    ml.add_system(["d", "e"])
    assert _texts(ml.get_system_messages()) == ["a", "b", "c", "d", "e"]
    assert ml.get_system_messages()[1].provider_options == {"p": {}}


def test_add_system_core_dict_with_text_part_list() -> None:
    ml = MessageList()
    ml.add_system(
        {
            "role": "system",
            "content": [{"type": "text", "text": "x"}, {"type": "text", "text": "y"}],
        }
    )
    assert _texts(ml.get_system_messages()) == ["x\ny"]


def test_add_system_from_a_system_message_object() -> None:
    ml = MessageList()
    ml.add_system(Message(id="s", role="system", content=Message.user("from object").content))
    assert _texts(ml.get_system_messages()) == ["from object"]


def test_tagged_messages_live_in_their_own_bucket() -> None:
    ml = MessageList()
    ml.add_system("base")
    ml.add_system("remembered facts", tag="memory")
    assert _texts(ml.get_system_messages()) == ["base"]
    assert _texts(ml.get_system_messages("memory")) == ["remembered facts"]
    assert ml.get_system_messages("absent") == []


def test_duplicates_are_ignored_within_a_bucket_but_not_across_buckets() -> None:
    ml = MessageList()
    ml.add_system("same")
    ml.add_system("same")
    ml.add_system("same", tag="t")
    ml.add_system(["same", "other"], tag="t")
    assert _texts(ml.get_system_messages()) == ["same"]
    assert _texts(ml.get_system_messages("t")) == ["same", "other"]


def test_get_all_system_messages_is_untagged_then_tags_in_insertion_order() -> None:
    ml = MessageList()
    ml.add_system("t1", tag="first")
    ml.add_system("u")
    ml.add_system("t2", tag="second")
    ml.add_system("t1b", tag="first")
    assert _texts(ml.get_all_system_messages()) == ["u", "t1", "t1b", "t2"]


def test_returned_system_lists_are_copies() -> None:
    ml = MessageList()
    ml.add_system("a")
    ml.get_system_messages().append(SystemMessage("injected"))
    ml.get_all_system_messages().clear()
    assert _texts(ml.get_all_system_messages()) == ["a"]


def test_clear_system_messages_untagged_or_one_tag() -> None:
    ml = MessageList()
    ml.add_system("u")
    ml.add_system("x", tag="x")
    ml.add_system("y", tag="y")
    ml.clear_system_messages("x")
    assert _texts(ml.get_all_system_messages()) == ["u", "y"]
    ml.clear_system_messages()
    assert _texts(ml.get_all_system_messages()) == ["y"]


def test_replace_all_system_messages_replaces_tagged_ones_too() -> None:
    ml = MessageList()
    ml.add_system("u")
    ml.add_system("x", tag="x")
    ml.replace_all_system_messages(["new1", SystemMessage("new2")])
    assert _texts(ml.get_system_messages()) == ["new1", "new2"]
    assert ml.get_system_messages("x") == []


def test_replace_all_with_a_single_string_is_one_message() -> None:
    ml = MessageList()
    ml.replace_all_system_messages("only")
    assert _texts(ml.get_all_system_messages()) == ["only"]


def test_system_messages_never_appear_among_stored_messages() -> None:
    ml = MessageList(["hi"])
    ml.add_system("s", tag="t")
    assert all(m.role != "system" for m in ml.get.all.db())
    assert len(ml) == 1


def test_prompt_order_is_instructions_memory_user_provided_then_other_tags() -> None:  # D17
    ml = MessageList()
    ml.add_system("instructions")
    ml.add_system("feedback", tag="processor-retry-feedback")
    ml.add_system("caller text", tag="user-provided")
    ml.add_system("remembered facts", tag="memory")
    assert [m.content for m in ml.get_all_system_messages()] == [
        "instructions",
        "remembered facts",
        "caller text",
        "feedback",
    ]


def test_remembered_duplicates_do_not_override_what_the_caller_sent() -> None:
    ml = MessageList()
    ml.add({"id": "m1", "role": "user", "content": "from the caller"})
    ml.add({"id": "m1", "role": "user", "content": "stored copy"}, "memory")
    assert [m.text for m in ml.get.all.db()] == ["from the caller"]
    assert ml.get_source("m1") == "input"
