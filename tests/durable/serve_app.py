"""The app ``procession serve`` replicas serve in ``test_serve_replicas.py``.

Environment: ``SERVE_DSN`` and ``SERVE_SCHEMA`` (memory), ``SERVE_EFFECTS`` (a file each
execution of the ``refund`` tool appends a line to). The ``desk`` agent asks for one
``refund`` call, which requires approval, then answers.
"""

from __future__ import annotations

import os
from typing import Any

from procession import Agent, ToolContext, tool
from procession.memory import Memory
from procession.memory.postgres import PostgresStorage
from procession.testing import FunctionModel, Reply, ToolCallScript


@tool(requires_approval=True)
def refund(amount: int, context: ToolContext) -> str:
    """Refund an order."""
    with open(os.environ["SERVE_EFFECTS"], "a", encoding="utf-8") as effects:
        effects.write(f"{context.idempotency_key} {os.getpid()}\n")
    return f"refunded {amount}"


def _reply(options: Any) -> Reply:
    if any(m["role"] == "tool" for m in options.prompt):
        return Reply(text=["Refund ", "done."])
    return Reply(text=["Checking."], tool_calls=[ToolCallScript("refund", {"amount": 9}, "c1")])


desk = Agent(
    id="desk",
    model=FunctionModel(_reply),
    tools=[refund],
    memory=Memory(PostgresStorage(os.environ["SERVE_DSN"], schema=os.environ["SERVE_SCHEMA"])),
)
