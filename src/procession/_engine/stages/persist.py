"""Persistence, the loop's last stage (D13): a completed run goes to memory's commit.

Only a run that completed gets here: every ``process_output_result`` ran, no tripwire, no
error. Its input and response messages as they stand (and, memory's business, working memory
and vectors) are stored in one transaction; memory reads nothing from processors' state.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from procession._engine.config import RunConfig
from procession._engine.state import RunState
from procession.memory.base import Turn
from procession.messages.message import Message
from procession.messages.message_list import MessageList

__all__ = ["persist", "record_usage", "run_messages"]

logger = logging.getLogger("procession")


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
    if config.journal is None:
        await memory.commit(turn)
    else:  # a durable run commits exactly once (D13)
        await config.journal.once(f"{state.run_id}:commit", lambda: memory.commit(turn))


async def record_usage(state: RunState, config: RunConfig) -> None:
    """The run's line in memory's usage ledger, whatever its outcome: a blocked or failed run
    spent tokens too. Only runs that called a model; a failing write is logged, never raised,
    and a cancelled caller does not stop it."""
    memory = config.memory
    record = getattr(memory, "record_usage", None)
    if state.last_model is None or not callable(record):
        return
    from procession.pricing import run_prices  # memory's ledger loads it; a bare run never

    options: dict[str, Any] = {}
    prices = run_prices(
        (*config.input_processors, *config.output_processors, *config.error_processors)
    )
    if prices is not None:  # priced as the run's budget guard prices it
        options["prices"] = prices
    write = asyncio.ensure_future(
        record(
            run_id=state.run_id,
            agent_id=state.agent_id,
            model=state.last_model,
            usage=state.usage,
            request_context=state.request_context,
            **options,
        )
    )
    try:
        await asyncio.shield(write)
    except asyncio.CancelledError:
        write.add_done_callback(_log_failure)
        raise
    except Exception:
        logger.exception("the usage ledger of run %r was not written", state.run_id)


def _log_failure(write: asyncio.Future[None]) -> None:
    if not write.cancelled() and write.exception() is not None:
        logger.error("the usage ledger was not written", exc_info=write.exception())


def run_messages(message_list: MessageList) -> list[Message]:
    """The run's own messages, in order: its input and response, never system messages, nor
    remembered or context ones (they came from elsewhere and stay there)."""
    return [
        m
        for m in message_list.get.all.db()
        if m.role != "system" and message_list.get_source(m) in ("input", "response")
    ]
