"""The agent the AG-UI client tests add to the served app: shared state from a processor.

``planner`` (no memory) answers ``Planned: <the user's text>`` and its ``plan-state`` output
processor writes a ``data-plan-state`` chunk after every step (the front end's shared state,
an AG-UI ``STATE_SNAPSHOT``) and a ``data-plan-note`` chunk (a ``CUSTOM`` event).
"""

from __future__ import annotations

from typing import Any

from procession import Agent
from procession.testing import FunctionModel, Reply
from tests.server_clients.shared import prompt_texts


def plan(options: Any) -> Reply:
    """``planner``'s model: one short answer naming the user's last message."""
    users = prompt_texts(options.prompt, "user")
    return Reply(text=["Planned: ", users[-1] if users else ""])


class PlanState:
    """Publishes the plan as shared state after every step, and a note beside it."""

    id = "plan-state"

    async def process_output_step(self, *, text: str, step_number: int, writer: Any) -> None:
        state = {"plan": text, "step": step_number}
        await writer.custom({"type": "data-plan-state", "data": state})
        await writer.custom({"type": "data-plan-note", "data": {"length": len(text)}})


planner = Agent(
    id="planner",
    instructions="You plan.",
    model=FunctionModel(plan),
    output_processors=[PlanState()],
)
