"""What durable runs need from the loop (issue 16); each test fails today and is skipped
until the loop provides it."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, ConfigurationError, Processor, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript


@pytest.mark.skip(
    reason="needs loop: AgentStream.processor_states (a read-only view of the "
    "run's processor state dicts) so the DBOS journal can check them at checkpoints"
)
@pytest.mark.asyncio
async def test_processor_state_that_json_cannot_hold_fails_a_durable_run() -> None:
    from procession.durable import check_states

    class Keeps(Processor):
        id = "keeps"

        def process_input(self, *, messages: list[Any], state: dict[str, Any]) -> None:
            state["seen"] = object()  # not JSON-serialisable

    agent = Agent(id="a", model=ScriptedModel([Reply(text=["hi"])]), input_processors=[Keeps()])
    stream = agent.stream("hello")
    async for _ in stream:
        break
    with pytest.raises(ConfigurationError, match="keeps"):
        check_states(stream.processor_states)  # type: ignore[attr-defined]


@pytest.mark.skip(
    reason="needs loop: Tool(requires_approval=True) emits a 'tool-call-approval' "
    "chunk, awaits run_options['approvals'].decide(run_id, tool_call_id, name, "
    "args) -> (approved, reason) before executing, and reports a denial as a "
    "'tool-output-denied' result the model reads"
)
@pytest.mark.asyncio
async def test_a_tool_needing_approval_waits_for_the_decision() -> None:
    decided: list[tuple[str, str]] = []

    class Approvals:
        async def decide(self, run_id: str, tool_call_id: str, name: str, args: Any) -> Any:
            decided.append((tool_call_id, name))
            return (False, "not today")

    @tool(requires_approval=True)  # type: ignore[call-overload,untyped-decorator,unused-ignore]
    def refund(amount: int) -> str:
        """Refund the customer."""
        raise AssertionError("a denied tool must not run")

    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("refund", {"amount": 5}, "c1")]), Reply(text=["Ok."])]
    )
    agent = Agent(id="a", model=model, tools=[refund])
    kinds = [c.type async for c in agent.stream("refund me", approvals=Approvals())]  # type: ignore[call-arg]
    assert "tool-call-approval" in kinds
    assert "tool-output-denied" in kinds
    assert decided == [("c1", "refund")]
