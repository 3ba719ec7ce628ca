"""Removing, tool-invocation updates, replace sets, recording and step checkpoints."""

from __future__ import annotations

from typing import Any

import pytest

from procession.messages import (
    Message,
    MessageList,
    Mutation,
    TextPart,
    ToolInvocation,
    ToolInvocationPart,
)
from tests.messages.factories import core_call, core_result


def _invocation(ml: MessageList, index: int = 0) -> ToolInvocation:
    parts = ml.get.all.db()[index].content.parts
    [part] = [p for p in parts if isinstance(p, ToolInvocationPart)]
    return part.tool_invocation


def _texts(ml: MessageList) -> list[str]:
    return [m.text for m in ml.get.all.db()]


# -- remove_by_ids ---------------------------------------------------------------------------


def test_remove_by_ids_returns_removed_and_forgets_their_source() -> None:
    a, b, c = Message.user("a"), Message.user("b"), Message.user("c")
    ml = MessageList([a, b, c])
    removed = ml.remove_by_ids([c.id, a.id, "missing"])
    assert removed == [a, c]
    assert _texts(ml) == ["b"]
    assert ml.get_source(a) is None


def test_remove_by_ids_with_nothing_to_remove() -> None:
    ml = MessageList(["a"])
    assert ml.remove_by_ids([]) == []
    assert ml.remove_by_ids(["nope"]) == []
    assert len(ml) == 1


def test_remove_by_ids_accepts_a_single_id_string() -> None:
    keep, drop = Message.user("keep"), Message.user("drop")
    ml = MessageList([keep, drop])
    assert ml.remove_by_ids(drop.id) == [drop]
    assert _texts(ml) == ["keep"]


# -- update_tool_invocation ------------------------------------------------------------------


def test_update_with_a_part_object_sets_state_and_result_but_keeps_args() -> None:
    ml = MessageList()
    ml.add(core_call("c1", "search", {"q": "orig"}), "input")
    update = ToolInvocationPart(
        tool_invocation=ToolInvocation(
            state="result", tool_call_id="c1", tool_name="search", args={"q": "other"}, result=[1]
        )
    )
    assert ml.update_tool_invocation(update) is True
    inv = _invocation(ml)
    assert (inv.state, inv.result, inv.args) == ("result", [1], {"q": "orig"})


def test_update_with_mastra_dict_form() -> None:
    ml = MessageList()
    ml.add(core_call("c1", "search", {"q": "orig"}), "response")
    update: dict[str, Any] = {
        "type": "tool-invocation",
        "toolInvocation": {
            "state": "output-error",
            "toolCallId": "c1",
            "toolName": "search",
            "args": {},
            "errorText": "denied",
        },
    }
    assert ml.update_tool_invocation(update) is True
    inv = _invocation(ml)
    assert (inv.state, inv.error_text, inv.args) == ("output-error", "denied", {"q": "orig"})


def test_update_moves_the_message_to_the_response_source() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "memory")
    message = ml.get.all.db()[0]
    update = ToolInvocationPart(
        tool_invocation=ToolInvocation(
            state="result", tool_call_id="c1", tool_name="search", args={}, result="ok"
        )
    )
    ml.update_tool_invocation(update)
    assert ml.get_source(message) == "response"
    assert ml.get.response.db() == [message]


def test_update_merges_provider_metadata_and_provider_executed() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    stored = ml.get.all.db()[0].content.parts[0]
    assert isinstance(stored, ToolInvocationPart)
    stored.provider_metadata = {"p": {"a": 1}}
    update = ToolInvocationPart(
        tool_invocation=ToolInvocation(
            state="result", tool_call_id="c1", tool_name="search", args={}, result=1
        ),
        provider_metadata={"p": {"b": 2}, "q": {"c": 3}},
        provider_executed=True,
    )
    ml.update_tool_invocation(update)
    assert stored.provider_metadata == {"p": {"a": 1, "b": 2}, "q": {"c": 3}}
    assert stored.provider_executed is True


def test_update_for_an_unknown_call_id_returns_false_and_changes_nothing() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "input")
    update = ToolInvocationPart(
        tool_invocation=ToolInvocation(
            state="result", tool_call_id="other", tool_name="search", args={}, result=1
        )
    )
    assert ml.update_tool_invocation(update) is False
    assert _invocation(ml).state == "call"
    assert ml.get_source(ml.get.all.db()[0]) == "input"


def test_update_ignores_tool_parts_on_user_messages() -> None:
    ml = MessageList()
    ml.add(
        {
            "role": "user",
            "content": {
                "format": 2,
                "parts": [
                    {
                        "type": "tool-invocation",
                        "toolInvocation": {
                            "state": "call",
                            "toolCallId": "c1",
                            "toolName": "t",
                            "args": {},
                        },
                    }
                ],
            },
        }
    )
    update = ToolInvocationPart(
        tool_invocation=ToolInvocation(
            state="result", tool_call_id="c1", tool_name="t", args={}, result=1
        )
    )
    assert ml.update_tool_invocation(update) is False


# -- apply_replace_set -----------------------------------------------------------------------


def test_replace_set_removes_scope_messages_missing_from_the_return() -> None:
    a, b, c = Message.user("a"), Message.user("b"), Message.user("c")
    ml = MessageList([a, b, c])
    ml.apply_replace_set([a, b], [b], "input")
    assert _texts(ml) == ["b", "c"]


def test_replace_set_gives_new_ids_the_default_source_and_keeps_existing_sources() -> None:
    remembered, question = Message.user("old"), Message.user("q")
    ml = MessageList()
    ml.add(remembered, "memory")
    ml.add(question, "input")
    added = Message.assistant("new")
    ml.apply_replace_set([remembered, question], [remembered, question, added], "response")
    assert ml.get_source(remembered) == "memory"
    assert ml.get_source(question) == "input"
    assert ml.get_source(added) == "response"


def test_replace_set_keeps_the_returned_order_in_scope_places() -> None:
    a, b, c = Message.user("a"), Message.user("b"), Message.user("c")
    outside = Message.assistant("outside")
    ml = MessageList([a, b])
    ml.add(outside, "response")
    ml.add(c)
    ml.apply_replace_set([a, b, c], [c, b, a], "input")
    assert _texts(ml) == ["c", "b", "outside", "a"]


def test_replace_set_replaces_the_stored_object_for_a_returned_copy() -> None:
    a = Message.user("a")
    ml = MessageList([a])
    copy = Message.user("edited", id=a.id)
    ml.apply_replace_set([a], [copy], "input")
    assert ml.get.all.db() == [copy]
    assert ml.get.all.db()[0] is copy


def test_replace_set_system_entries_go_to_the_system_bucket() -> None:
    a = Message.user("a")
    ml = MessageList([a])
    ml.apply_replace_set([a], [a, {"role": "system", "content": "extra rule"}], "input")
    assert _texts(ml) == ["a"]
    assert [s.content for s in ml.get_system_messages()] == ["extra rule"]


def test_replace_set_stored_system_entry_prefers_legacy_content() -> None:
    a = Message.user("a")
    ml = MessageList([a])
    system = {
        "role": "system",
        "content": {"format": 2, "parts": [{"type": "text", "text": "parts"}], "content": "legacy"},
    }
    ml.apply_replace_set([a], [a, system], "input")
    assert [s.content for s in ml.get_system_messages()] == ["legacy"]


def test_replace_set_with_empty_list_clears_the_scope_only() -> None:
    remembered = Message.user("old")
    ml = MessageList(["q1", "q2"])
    ml.add(remembered, "memory")
    ml.apply_replace_set(ml.get.input.db(), [], "input")
    assert ml.get.all.db() == [remembered]


def test_replace_set_tool_result_lands_on_a_returned_call() -> None:
    ml = MessageList(["q"])
    ml.apply_replace_set(
        ml.get.all.db(), [*ml.get.all.db(), core_call("c9"), core_result("c9", 5)], "response"
    )
    assert len(ml) == 2
    assert (_invocation(ml, 1).state, _invocation(ml, 1).result) == ("result", 5)


# -- recording -------------------------------------------------------------------------------


def test_recording_logs_each_mutation_in_order() -> None:
    ml = MessageList()
    ml.start_recording()
    message = Message.user("a")
    ml.add(message)
    ml.add_system("s", tag="t")
    ml.add(core_call("c1"), "response")
    call_id = ml.get.all.db()[1].id
    ml.update_tool_invocation(
        ToolInvocationPart(
            tool_invocation=ToolInvocation(
                state="result", tool_call_id="c1", tool_name="search", args={}, result=1
            )
        )
    )
    ml.apply_replace_set([message], [message], "input")
    ml.remove_by_ids([message.id])
    recorded = ml.stop_recording()
    assert recorded == [
        Mutation("add", (message.id,), "input"),
        Mutation("add_system", tag="t", text="s"),
        Mutation("add", (call_id,), "response"),
        Mutation("update_tool_invocation", (call_id,), "response"),
        Mutation("replace", (message.id,)),
        Mutation("remove", (message.id,)),
    ]


def test_nothing_is_recorded_outside_a_recording() -> None:
    ml = MessageList()
    ml.add("before")
    ml.start_recording()
    assert ml.stop_recording() == []
    ml.add("after")
    assert ml.stop_recording() == []


def test_duplicate_system_message_is_not_recorded() -> None:
    ml = MessageList()
    ml.add_system("s")
    ml.start_recording()
    ml.add_system("s")
    assert ml.stop_recording() == []


# -- checkpoint / rollback (D1) --------------------------------------------------------------


def test_rollback_removes_only_response_messages_added_since_the_checkpoint() -> None:
    # An error processor's continuation message (context) must survive the rollback of the
    # failed attempt it is meant to fix (D14).
    ml = MessageList(["q"])
    ml.add(Message.assistant("step 1"), "response")
    mark = ml.checkpoint()
    ml.add(Message.assistant("rejected"), "response")
    ml.add(Message.user("ctx"), "context")
    ml.add("late input")
    removed = ml.rollback(mark)
    assert [m.text for m in removed] == ["rejected"]
    assert _texts(ml) == ["q", "step 1", "ctx", "late input"]


def test_rollback_drops_parts_appended_to_an_earlier_response_message() -> None:
    response = Message.assistant("kept")
    ml = MessageList()
    ml.add(response, "response")
    mark = ml.checkpoint()
    response.content.parts.append(TextPart(text=" and rejected"))
    ml.rollback(mark)
    assert response.text == "kept"


def test_rollback_keeps_edits_to_input_messages() -> None:
    question = Message.user("q")
    ml = MessageList([question])
    mark = ml.checkpoint()
    question.content.parts.append(TextPart(text="!"))
    ml.rollback(mark)
    assert question.text == "q!"


def test_rollback_can_be_repeated_from_the_same_checkpoint() -> None:
    ml = MessageList(["q"])
    mark = ml.checkpoint()
    ml.add(Message.assistant("try 1"), "response")
    ml.rollback(mark)
    ml.add(Message.assistant("try 2"), "response")
    ml.rollback(mark)
    assert _texts(ml) == ["q"]


def test_rollback_rejects_a_foreign_marker() -> None:
    ml = MessageList(["q"])
    with pytest.raises(Exception, match="checkpoint"):
        ml.rollback(object())
