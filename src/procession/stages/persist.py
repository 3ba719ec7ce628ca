"""Persistence, the loop's last stage (D13): a completed run goes to memory's commit.

Only a run that completed gets here: every ``process_output_result`` ran, no tripwire, no
error. Its input and response messages as they stand (and, memory's business, working memory
and vectors) are stored in one transaction; memory reads nothing from processors' state.
"""

from __future__ import annotations

from procession._config import RunConfig
from procession._state import RunState
from procession.memory.base import Turn
from procession.messages.message import Message
from procession.messages.message_list import MessageList

__all__ = ["persist", "run_messages"]


async def persist(state: RunState, config: RunConfig) -> None:
    """Hand the completed run to the agent's memory, if it has one."""
    memory = config.memory
    if memory is None:
        return
    turn = Turn(
        run_id=state.run_id,
        agent_id=state.agent_id,
        request_context=state.request_context,
        messages=run_messages(state.message_list),
        response=state.message_list.get.response.db(),
        output_processors=tuple(config.output_processors),
    )
    await memory.commit(turn)


def run_messages(message_list: MessageList) -> list[Message]:
    """The run's own messages, in order: its input and response, never system messages, nor
    remembered or context ones (they came from elsewhere and stay there)."""
    return [
        m
        for m in message_list.get.all.db()
        if m.role != "system" and message_list.get_source(m) in ("input", "response")
    ]
