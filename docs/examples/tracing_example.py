"""Trace an agent's runs into the trace store, then read a run's timeline back.

Run: ``.venv/bin/python docs/examples/tracing_example.py`` (needs ``procession[tracing]``).

The provider is handed to procession with ``use_tracer_provider`` instead of being installed
globally (``configure_tracing(store)`` alone would do that), so the example can run anywhere.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from procession import Agent, Chunk, tool
from procession.testing import Reply, ScriptedModel, ToolCallScript
from procession.tracing import configure_tracing, trace_store, use_tracer_provider


@tool
def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its id."""
    return {"order_id": order_id, "status": "shipped"}


class HideDigits:
    """Replaces every digit in streamed text (a stand-in for a real redactor)."""

    id = "hide-digits"
    description = "Replaces digits with #."

    def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        if part.type != "text-delta" or not any(c.isdigit() for c in part.payload["text"]):
            return part
        text = "".join("#" if c.isdigit() else c for c in part.payload["text"])
        return part.copy(payload={**part.payload, "text": text})


async def main() -> list[str]:
    """One traced run; the lines of its timeline (hook calls with their outcomes)."""
    with tempfile.TemporaryDirectory() as folder:
        store = trace_store(Path(folder) / "app.db")
        provider = configure_tracing(store, set_global=False)
        use_tracer_provider(provider)
        model = ScriptedModel(
            [
                Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})]),
                Reply(text=["Order A-1001 ", "has shipped."]),
            ]
        )
        agent = Agent(
            id="support", model=model, tools=[lookup_order], output_processors=[HideDigits()]
        )
        try:
            result = await agent.generate("Where is order A-1001?", thread_id="t-1")
            print(result.text)
        finally:
            use_tracer_provider(None)
            provider.force_flush()
        timeline = await store.run_timeline(result.run_id)
        assert timeline is not None
        lines = [f"{'  ' * entry.depth}{entry.span.name}" for entry in timeline.entries]  # the tree
        lines += [
            f"{call.hook} {call.processor_id}: {call.outcome} (step {call.step_number})"
            for call in timeline.hook_calls()
        ]
        provider.shutdown()  # flushes and closes the store
        print("\n".join(lines))
        return lines


if __name__ == "__main__":
    asyncio.run(main())
