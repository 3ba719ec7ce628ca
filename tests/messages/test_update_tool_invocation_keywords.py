"""``MessageList.update_tool_invocation`` in its Pythonic forms: a tool call id with keywords,
or a ``ToolInvocation``; the camelCase dict form keeps working (``test_message_list_edit.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, MessageError, ToolInvocation, ToolInvocationPart, tool
from procession.messages import MessageList
from procession.testing import Reply, ScriptedModel, ToolCallScript

from .factories import core_call


def _invocation(ml: MessageList) -> ToolInvocation:
    part = ml.get.all.db()[0].content.parts[0]
    assert isinstance(part, ToolInvocationPart)
    return part.tool_invocation


def test_a_result_by_keyword_sets_state_and_result_and_keeps_args() -> None:
    ml = MessageList()
    ml.add(core_call("c1", "search", {"q": "orig"}), "memory")
    assert ml.update_tool_invocation("c1", result={"hits": 3}) is True
    inv = _invocation(ml)
    assert (inv.state, inv.result, inv.args) == ("result", {"hits": 3}, {"q": "orig"})
    assert ml.get.response.db() == ml.get.all.db()  # moved to the response: it is saved


@pytest.mark.parametrize("result", [None, 0, "", []])
def test_a_falsy_result_is_a_result(result: Any) -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    ml.update_tool_invocation("c1", result=result)
    inv = _invocation(ml)
    assert (inv.state, inv.result) == ("result", result)


def test_an_error_by_keyword_sets_the_error_state() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    assert ml.update_tool_invocation("c1", error_text="lookup failed") is True
    inv = _invocation(ml)
    assert (inv.state, inv.error_text, inv.is_error) == ("output-error", "lookup failed", True)


def test_an_explicit_state_wins() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    ml.update_tool_invocation("c1", error_text="denied by policy", state="output-denied")
    inv = _invocation(ml)
    assert (inv.state, inv.error_text) == ("output-denied", "denied by policy")


def test_a_tool_invocation_object_is_accepted() -> None:
    ml = MessageList()
    ml.add(core_call("c1", "search", {"q": "orig"}), "response")
    update = ToolInvocation(
        state="result", tool_call_id="c1", tool_name="search", args={"q": "x"}, result=[1]
    )
    assert ml.update_tool_invocation(update) is True
    inv = _invocation(ml)
    assert (inv.result, inv.args) == ([1], {"q": "orig"})


def test_an_unknown_id_returns_false() -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    assert ml.update_tool_invocation("other", result=1) is False
    assert _invocation(ml).state != "result"


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        (lambda ml: ml.update_tool_invocation("c1"), "needs result="),
        (lambda ml: ml.update_tool_invocation("c1", result=1, state="done"), "state"),
        (lambda ml: ml.update_tool_invocation("c1", error_text=3), "must be a string"),
        (
            lambda ml: ml.update_tool_invocation(
                {"type": "tool-invocation", "toolInvocation": {}}, result=1
            ),
            "not both",
        ),
    ],
)
def test_a_wrong_keyword_call_names_the_problem(call: Any, problem: str) -> None:
    ml = MessageList()
    ml.add(core_call("c1"), "response")
    with pytest.raises(MessageError, match=problem):
        call(ml)


@pytest.mark.asyncio
async def test_a_processor_redacts_a_tool_result_by_keyword() -> None:  # the lifecycle guide
    @tool
    def lookup_customer(customer_id: str) -> dict[str, str]:
        """Look up a customer."""
        return {"name": "Ada", "ssn": "123-45-6789"}

    class RedactToolResult:
        id = "redact-tool-result"

        def process_tool_result(
            self, *, tool_call_id: str, result: Any, message_list: MessageList, **_: Any
        ) -> None:
            message_list.update_tool_invocation(
                tool_call_id, result={**result, "ssn": "[REDACTED]"}
            )

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("lookup_customer", {"customer_id": "c-7"})]), "Done."]
    )
    agent = Agent(
        id="a", model=model, tools=[lookup_customer], output_processors=[RedactToolResult()]
    )
    stream = agent.stream("Who is c-7?")
    chunks = [c async for c in stream]
    shown = next(c for c in chunks if c.type == "tool-result")
    assert shown.payload["result"] == {"name": "Ada", "ssn": "[REDACTED]"}
    assert "123-45-6789" not in str(model.calls[1].prompt)
    assert "123-45-6789" not in str([m.content.parts for m in (await stream.result()).messages])
