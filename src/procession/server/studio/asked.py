"""What each run of Studio's runs table was asked: the first user text it stored.

The trace store keeps no content by default, so the question comes from memory, which holds
exactly what the caller may read on its own threads (the Threads tab shows the same
messages): for each run on a thread, the first user message stored while it ran. Runs on one
thread never overlap (D13's thread lock), so each run's window starts where the run before it
on the thread ended, or a second before its own start, whichever is later (a message may be
built just before its run starts). A run that stored nothing (a tripwire, an agent without
memory) has no ``asked``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from procession.errors import ThreadOwnershipError
from procession.memory.memory import Memory
from procession.server.state import ServerState

__all__ = ["ASKED_LIMIT", "SLACK_NS", "asked_texts", "shorten"]

ASKED_LIMIT = 120
"""The most characters of a question the runs table gets."""

SLACK_NS = 1_000_000_000
"""How long before its run a run's message may have been built (1 s)."""


def shorten(text: str, limit: int = ASKED_LIMIT) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


async def asked_texts(state: ServerState, runs: Sequence[Any]) -> dict[str, str]:
    """The first user text of each run in ``runs`` (``RunSummary`` rows), by run id."""
    by_thread: dict[tuple[str, str, str], list[Any]] = defaultdict(list)
    for run in runs:
        if run.thread_id and run.resource_id and run.agent_id:
            by_thread[(run.agent_id, run.thread_id, run.resource_id)].append(run)
    out: dict[str, str] = {}
    for (agent_id, thread_id, resource_id), on_thread in by_thread.items():
        agent = state.agents.get(agent_id)
        own = agent.memory if agent is not None else None
        memory = own if isinstance(own, Memory) else state.memory
        if memory is None:
            continue
        try:
            messages = await memory.list_messages(thread_id, resource_id=resource_id)
        except ThreadOwnershipError:
            continue
        asked = [
            (_ns(m.created_at), m.text) for m in messages if m.role == "user" and m.text.strip()
        ]
        out.update(_match(sorted(on_thread, key=lambda r: r.start_ns), asked))
    return out


def _match(runs: list[Any], asked: list[tuple[int, str]]) -> dict[str, str]:
    out: dict[str, str] = {}
    previous_end = 0
    for run in runs:
        low = max(previous_end, run.start_ns - SLACK_NS)
        for when, text in asked:
            if low <= when <= run.end_ns:
                out[run.run_id] = shorten(text)
                break
        previous_end = run.end_ns
    return out


def _ns(moment: Any) -> int:
    return int(moment.timestamp() * 1_000_000_000)
