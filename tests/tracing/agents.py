"""Agents for the end-to-end tracing tests: a tool-using support agent with a redaction, a
check that asks for a retry, and an audit that trips, on a ScriptedModel."""

from __future__ import annotations

from typing import Any

from procession import Agent, StreamRedactor, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript

CARD = "4111 1111 1111 1111"


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped"}


@tool
def refund(order_id: str) -> str:
    """Refund an order."""
    raise RuntimeError(f"no refunds for {order_id}")


class NoSecrets:
    id = "no-secrets"
    description = "Blocks passwords in the input."

    def process_input(self, *, messages: list[Any], abort: Any, **_: Any) -> None:
        if any("password" in m.text for m in messages):
            abort("Blocked content detected in input")


class NotTooShort:
    id = "not-too-short"

    def process_output_step(
        self, *, text: str, tool_calls: list[Any], abort: Any, **_: Any
    ) -> None:
        if not tool_calls and len(text.split()) < 5:
            abort("Answer in a full sentence.", retry=True)


class Audit:
    id = "audit"

    def process_output_result(self, *, messages: list[Any], abort: Any, **_: Any) -> None:
        if any("[REDACTED]" in m.text for m in messages):
            abort("A card number reached the answer")


def support_agent(*replies: Reply, audit: bool = True) -> Agent:
    """A tool-using agent with a redaction, a check that retries and an audit that trips."""
    return Agent(
        id="support",
        name="Support",
        model=ScriptedModel(list(replies)),
        tools=[lookup_order, refund],
        input_processors=[NoSecrets()],
        output_processors=[StreamRedactor(), NotTooShort(), *([Audit()] if audit else [])],
        max_processor_retries=1,
    )


SCRIPT = (
    Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"}, "call-1")]),
    Reply(text=["Shipped."]),  # too short: retried
    Reply(text=["Order A-1001 shipped; card ", CARD, " was charged."]),  # redacted, then audited
)
