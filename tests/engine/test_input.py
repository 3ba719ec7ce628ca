"""process_input and process_input_step: returns, scopes and system messages (D16, D17, D26)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Message, MessageList, SystemMessage, tool
from procession.testing import RecordingProcessor, Reply, ScriptedModel, Trace

from .helpers import agent, collect, tool_call


@tool
def act() -> str:
    """Act."""
    return "done"


def system_texts(prompt: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in prompt if m["role"] == "system"]


@pytest.mark.asyncio
async def test_process_input_sees_only_this_calls_input() -> None:  # D26
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_input"], trace=trace)
    model = ScriptedModel([Reply(text=["ok"])])
    await agent(model, input_processors=[seen]).generate("Hello", context="background info")
    (call,) = trace.of("process_input")
    assert [m.text for m in call["messages"]] == ["Hello"]
    assert [m.text for m in call["message_list"].get.context.db()] == ["background info"]


@pytest.mark.asyncio
async def test_returned_list_replaces_the_input_messages() -> None:  # D16
    def lowercase(**kw: Any) -> list[Message]:
        return [Message.user(m.text.lower(), id=m.id) for m in kw["messages"]]

    model = ScriptedModel([Reply(text=["ok"])])
    await agent(
        model, input_processors=[RecordingProcessor("low", process_input=lowercase)]
    ).generate("SHOUT")
    assert model.calls[0].prompt[-1]["content"][0]["text"] == "shout"


@pytest.mark.asyncio
async def test_returned_empty_list_from_process_input_removes_input() -> None:  # D16
    model = ScriptedModel([Reply(text=["ok"])])
    await agent(
        model, input_processors=[RecordingProcessor("wipe", process_input=lambda **kw: [])]
    ).generate("gone")
    assert [m["role"] for m in model.calls[0].prompt] == ["system"]


@pytest.mark.asyncio
async def test_next_processor_sees_the_previous_ones_changes() -> None:
    trace = Trace()

    def add(**kw: Any) -> list[Message]:
        return [*kw["messages"], Message.user("added")]

    first = RecordingProcessor("first", trace=trace, process_input=add)
    second = RecordingProcessor("second", ["process_input"], trace=trace)
    await agent(ScriptedModel([Reply(text=["ok"])]), input_processors=[first, second]).generate(
        "orig"
    )
    assert [m.text for m in trace.of("process_input", "second")[0]["messages"]] == [
        "orig",
        "added",
    ]


@pytest.mark.asyncio
async def test_process_input_system_messages_replace_for_the_run() -> None:  # D17
    def replace(**kw: Any) -> dict[str, Any]:
        return {
            "messages": kw["messages"],
            "system_messages": [*kw["system_messages"], SystemMessage("Be brief.")],
        }

    model = ScriptedModel([tool_call("act", {}), Reply(text=["ok"])])
    await agent(
        model, tools=[act], input_processors=[RecordingProcessor("sys", process_input=replace)]
    ).generate("x", system="Caller note.")
    expected = ["You are a test agent.", "Caller note.", "Be brief."]
    assert system_texts(model.calls[0].prompt) == expected
    assert system_texts(model.calls[1].prompt) == expected


@pytest.mark.asyncio
async def test_system_messages_argument_holds_every_system_message() -> None:  # D17
    trace = Trace()

    def tag(**kw: Any) -> None:
        kw["message_list"].add_system("tagged", tag="memory")

    tagger = RecordingProcessor("tagger", trace=trace, process_input=tag)
    seen = RecordingProcessor("seen", ["process_input_step"], trace=trace)
    await agent(ScriptedModel([Reply(text=["ok"])]), input_processors=[tagger, seen]).generate(
        "x", system="from caller"
    )
    (call,) = trace.of("process_input_step")
    assert [s.content for s in call["system_messages"]] == [
        "You are a test agent.",  # instructions
        "tagged",  # memory context
        "from caller",  # user-provided
    ]


@pytest.mark.asyncio
async def test_input_step_system_messages_last_one_step() -> None:  # D17
    def step_note(**kw: Any) -> dict[str, Any] | None:
        if kw["step_number"] == 0:
            return {"system_messages": [*kw["system_messages"], "only step 0"]}
        return None

    def run_scoped(**kw: Any) -> None:
        if kw["step_number"] == 0:
            kw["message_list"].add_system("for the whole run", tag="notes")

    model = ScriptedModel([tool_call("act", {}), Reply(text=["ok"])])
    await agent(
        model,
        tools=[act],
        input_processors=[
            RecordingProcessor("scoped", process_input_step=run_scoped),
            RecordingProcessor("step", process_input_step=step_note),
        ],
    ).generate("x")
    assert system_texts(model.calls[0].prompt) == [
        "You are a test agent.",
        "for the whole run",
        "only step 0",
    ]
    assert system_texts(model.calls[1].prompt) == ["You are a test agent.", "for the whole run"]


@pytest.mark.asyncio
async def test_input_step_overrides_apply_to_one_step_and_chain() -> None:
    trace = Trace()
    first = RecordingProcessor(
        "first",
        trace=trace,
        process_input_step=lambda **kw: (
            {"tool_choice": "required"} if kw["step_number"] == 0 else None
        ),
    )
    second = RecordingProcessor("second", ["process_input_step"], trace=trace)
    model = ScriptedModel([tool_call("act", {}), Reply(text=["ok"])])
    await agent(model, tools=[act], input_processors=[first, second]).generate("x")
    assert trace.of("process_input_step", "second")[0]["tool_choice"] == "required"
    assert model.calls[0].tool_choice == {"type": "required"}
    assert model.calls[1].tool_choice == {"type": "auto"}


@pytest.mark.asyncio
async def test_tool_choice_none_sends_no_tools_and_active_tools_filter() -> None:
    @tool
    def other() -> str:
        """Other."""
        return "o"

    model = ScriptedModel([Reply(text=["a"])])
    await agent(
        model,
        tools=[act, other],
        input_processors=[
            RecordingProcessor("f", process_input_step=lambda **kw: {"active_tools": ["other"]})
        ],
    ).generate("x")
    assert [t["name"] for t in model.calls[0].tools] == ["other"]
    model = ScriptedModel([Reply(text=["a"])])
    await agent(model, tools=[act], tool_choice="none").generate("x")
    assert model.calls[0].tools == []


@pytest.mark.asyncio
async def test_input_step_can_switch_the_model_by_object_or_id() -> None:
    from procession import register_model

    fast = ScriptedModel([Reply(text=["fast"])], model_id="fast")
    register_model("test/fast", fast)
    try:
        main = ScriptedModel([])
        result = await agent(
            main,
            input_processors=[
                RecordingProcessor("m", process_input_step=lambda **kw: {"model": "test/fast"})
            ],
        ).generate("x")
        assert result.text == "fast"
        assert main.calls == []
    finally:
        register_model("test/fast", None)


@pytest.mark.asyncio
async def test_input_step_returning_messages_and_message_list_is_an_error() -> None:  # D16
    bad = RecordingProcessor(
        "bad",
        process_input_step=lambda **kw: {
            "messages": kw["messages"],
            "message_list": kw["message_list"],
        },
    )
    chunks = await collect(agent(ScriptedModel([]), input_processors=[bad]).stream("x"))
    assert chunks[-1].type == "error"
    assert "both messages and message_list" in str(chunks[-1].payload["error"])


@pytest.mark.asyncio
async def test_returning_a_foreign_message_list_is_an_error() -> None:  # D16
    bad = RecordingProcessor("bad", process_input=lambda **kw: MessageList())
    with pytest.raises(Exception, match="MessageList other than the one it was given"):
        await agent(ScriptedModel([]), input_processors=[bad]).generate("x")


@pytest.mark.asyncio
async def test_unknown_step_keys_are_an_error() -> None:  # D16
    bad = RecordingProcessor("bad", process_input_step=lambda **kw: {"toolChoice": "none"})
    with pytest.raises(Exception, match=r"unknown keys \['toolChoice'\]"):
        await agent(ScriptedModel([]), input_processors=[bad]).generate("x")


@pytest.mark.asyncio
async def test_output_step_empty_list_means_no_change() -> None:  # D16
    model = ScriptedModel([Reply(text=["kept"])])
    result = await agent(
        model, output_processors=[RecordingProcessor("q", process_output_step=lambda **kw: [])]
    ).generate("x")
    assert result.messages[0].text == "kept"


@pytest.mark.asyncio
async def test_input_step_sees_every_non_system_message() -> None:  # D26
    trace = Trace()
    seen = RecordingProcessor("seen", ["process_input_step", "process_output_result"], trace=trace)
    model = ScriptedModel([tool_call("act", {}), Reply(text=["ok"])])
    await agent(model, tools=[act], input_processors=[seen], output_processors=[seen]).generate("x")
    second = trace.of("process_input_step")[1]["messages"]
    assert [m.role for m in second] == ["user", "assistant"]
    (result_call,) = trace.of("process_output_result")
    assert [m.role for m in result_call["messages"]] == ["assistant"]


@pytest.mark.asyncio
async def test_reasoning_transformer_example_edits_in_place() -> None:  # D24
    from typing import cast

    def transform(**kw: Any) -> MessageList:
        for message in kw["messages"]:
            for part in message.content.parts:
                if part.type == "reasoning":
                    cast(Any, part).type = "thinking"
        result: MessageList = kw["message_list"]
        return result

    model = ScriptedModel(
        [Reply(reasoning=["hmm"], tool_calls=tool_call("act", {}).tool_calls), Reply(text=["ok"])]
    )
    result = await agent(
        model,
        tools=[act],
        input_processors=[RecordingProcessor("rt", process_input_step=transform)],
    ).generate("x")
    assert next(p.type for p in result.messages[0].content.parts) == "thinking"
