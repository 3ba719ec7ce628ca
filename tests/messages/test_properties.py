"""Property-based tests: lossless codec round trips and MessageList invariants."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from procession.errors import MessageError
from procession.messages import (
    Message,
    MessageList,
    ToolInvocation,
    ToolInvocationPart,
    message_from_dict,
    message_to_dict,
    messages_from_json,
    messages_to_json,
)
from tests.messages.factories import core_call, core_result, snapshot
from tests.messages.strategies import json_values, messages, short_text

SOURCES = ("input", "response", "memory", "context")

# -- codec round trip ------------------------------------------------------------------------


@settings(max_examples=100)
@given(messages)
def test_codec_round_trips_a_message_losslessly(message: Message) -> None:
    encoded = message_to_dict(message)
    text = json.dumps(encoded, ensure_ascii=False)
    decoded = message_from_dict(json.loads(text))
    assert message_to_dict(decoded) == encoded
    assert [type(p) for p in decoded.content.parts] == [type(p) for p in message.content.parts]


@settings(max_examples=100)
@given(st.lists(messages, max_size=4))
def test_json_array_codec_round_trips(batch: list[Message]) -> None:
    text = messages_to_json(batch)
    assert messages_to_json(messages_from_json(text)) == text


# -- MessageList operations ------------------------------------------------------------------

sources = st.sampled_from(SOURCES)
indices = st.integers(min_value=0, max_value=30)
operations = st.one_of(
    st.tuples(st.just("add_text"), short_text, sources),
    st.tuples(st.just("add_assistant"), st.integers(min_value=0, max_value=2), sources),
    st.tuples(st.just("add_stored"), short_text, sources),
    st.tuples(st.just("add_core_call"), short_text, sources),
    st.tuples(st.just("add_result"), indices, json_values),
    st.tuples(st.just("add_result_unknown"), short_text),
    st.tuples(st.just("add_invalid"), st.sampled_from(["role", "part", "string-part", "state"])),
    st.tuples(st.just("add_system"), short_text, st.none() | st.sampled_from(["a", "b"])),
    st.tuples(st.just("remove"), st.lists(indices, max_size=3)),
    st.tuples(st.just("update"), indices, json_values, st.booleans()),
    st.tuples(
        st.just("replace"),
        st.sampled_from(["all", "input", "response", "remembered", "context"]),
        st.lists(st.booleans(), max_size=8),
        st.integers(min_value=0, max_value=2),
        st.sampled_from([*SOURCES, "bogus"]),
    ),
    st.tuples(st.just("checkpoint")),
    st.tuples(st.just("rollback")),
)


@dataclass
class Model:
    """What the test knows about the list independently of it."""

    counter: int = 0
    call_ids: list[str] = field(default_factory=list)
    results: dict[str, Any] = field(default_factory=dict)
    checkpoint: object = None

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"


def _calls(ml: MessageList) -> dict[str, ToolInvocation]:
    return {
        p.tool_invocation.tool_call_id: p.tool_invocation
        for m in ml.get.all.db()
        if m.role == "assistant"
        for p in m.content.parts
        if isinstance(p, ToolInvocationPart)
    }


def _assistant_with_calls(model: Model, count: int) -> Message:
    message = Message.assistant("calling", id=model.fresh("a"))
    for _ in range(count):
        call_id = model.fresh("call")
        model.call_ids.append(call_id)
        invocation = ToolInvocation(state="call", tool_call_id=call_id, tool_name="t", args={})
        message.content.parts.append(ToolInvocationPart(tool_invocation=invocation))
    return message


_INVALID: dict[str, Any] = {
    "role": {"role": "robot", "content": "x"},
    "part": {"role": "user", "content": [{"text": "no type"}]},
    "string-part": {"role": "user", "content": ["bare"]},
    "state": {
        "role": "assistant",
        "parts": [{"type": "tool-t", "toolCallId": "zz", "state": "nonsense"}],
    },
}


def _run(ml: MessageList, model: Model, op: tuple[Any, ...]) -> bool:
    """Apply ``op``; return whether it must have raised MessageError."""
    kind = op[0]
    if kind == "add_text":
        ml.add(op[1], op[2])
    elif kind == "add_assistant":
        ml.add(_assistant_with_calls(model, op[1]), op[2])
    elif kind == "add_stored":
        stored_parts = [{"type": "text", "text": op[1]}]
        ml.add({"id": model.fresh("s"), "role": "user", "content": {"parts": stored_parts}}, op[2])
    elif kind == "add_core_call":
        call_id = model.fresh("core")
        model.call_ids.append(call_id)
        ml.add(core_call(call_id, args={"q": op[1]}), op[2])
    elif kind == "add_result":
        if not model.call_ids:
            return False
        call_id = model.call_ids[op[1] % len(model.call_ids)]
        present = call_id in _calls(ml)
        ml.add(core_result(call_id, op[2]), "response")
        model.results[call_id] = op[2]
        return not present
    elif kind == "add_result_unknown":
        ml.add(core_result(f"unknown-{op[1]}", 1))
        return True
    elif kind == "add_invalid":
        ml.add(["valid first", _INVALID[op[1]]])
        return True
    elif kind == "add_system":
        ml.add_system(op[1], tag=op[2])
    elif kind == "remove":
        current = ml.get.all.db()
        if current:
            ml.remove_by_ids([current[i % len(current)].id for i in op[1]])
    elif kind == "update":
        if not model.call_ids:
            return False
        call_id = model.call_ids[op[1] % len(model.call_ids)]
        present = call_id in _calls(ml)
        state: Any = "result" if op[3] else "finished"
        invocation = ToolInvocation(
            state=state, tool_call_id=call_id, tool_name="t", args={}, result=op[2]
        )
        updated = ml.update_tool_invocation(ToolInvocationPart(tool_invocation=invocation))
        assert updated is present
        if updated:
            model.results[call_id] = op[2]
        return not op[3]
    elif kind == "replace":
        _, view, mask, new_count, default = op
        scope = getattr(ml.get, view).db()
        returned: list[Any] = [m for m, keep in zip(scope, mask, strict=False) if keep]
        new = [Message.user("new", id=model.fresh("n")) for _ in range(new_count)]
        before = {m.id: ml.get_source(m) for m in ml.get.all.db()}
        ml.apply_replace_set(scope, [*returned, *new, {"role": "system", "content": "r"}], default)
        kept_ids = {m.id for m in returned}
        assert all(ml.get_source(m) is None for m in scope if m.id not in kept_ids)
        assert all(ml.get_source(m) == before[m.id] for m in returned)
        assert all(ml.get_source(m) == default for m in new)
        ids = [m.id for m in ml.get.all.db()]
        assert [i for i in ids if i in kept_ids or i in {m.id for m in new}] == [
            m.id for m in [*returned, *new]
        ]
        return bool(default == "bogus")
    elif kind == "checkpoint":
        model.checkpoint = ml.checkpoint()
    elif kind == "rollback":
        if model.checkpoint is None:
            model.checkpoint = ml.checkpoint()
        ml.rollback(model.checkpoint)
    return False


def _check_invariants(ml: MessageList, model: Model) -> None:
    all_messages = ml.get.all.db()
    ids = [m.id for m in all_messages]
    assert len(ids) == len(set(ids)), "ids are unique"
    views = [ml.get.input, ml.get.response, ml.get.remembered, ml.get.context]
    for message in all_messages:
        assert ml.get_source(message) in SOURCES
        assert sum(message in view.db() for view in views) == 1, "exactly one source"
    assert sum(len(view.db()) for view in views) == len(all_messages)
    for message in all_messages:
        assert message.role in ("user", "assistant")
        for part in message.content.parts:
            assert part.type != "tool-result", "results never stand alone"
    calls = _calls(ml)
    for call_id, value in model.results.items():
        if call_id in calls:
            assert calls[call_id].state == "result"
            assert calls[call_id].result == value, "a result sits on the call it answers"


@settings(max_examples=300, deadline=None)
@given(st.lists(operations, max_size=25))
def test_any_operation_sequence_keeps_the_invariants(ops: list[tuple[Any, ...]]) -> None:
    ml = MessageList()
    model = Model()
    for op in ops:
        before = snapshot(ml)
        results_before = dict(model.results)
        try:
            must_fail = _run(ml, model, op)
        except MessageError:
            assert snapshot(ml) == before, f"failed {op[0]} changed the list"
            model.results = results_before
        else:
            assert not must_fail, f"{op} should have raised"
        _check_invariants(ml, model)
