"""The engine: runs one agent call from a frozen spec. Internal, not public API.

Nothing here is a stable interface: names, signatures and modules may change in any release
(the way openai-agents keeps ``run_internal/``). Use :class:`procession.Agent` instead. The
engine never imports ``Agent``; ``agent.py`` checks its arguments into an ``AgentSpec`` and
calls in here.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from procession._engine.config import CALL_DEFAULTS, CallOptions, check_call
from procession._engine.loop import run
from procession._engine.spec import AgentSpec, check_spec, place_lanes
from procession._engine.state import RunState
from procession.chunks import Chunk
from procession.messages.message import new_id

__all__ = ["AgentSpec", "CallOptions", "check_spec", "place_lanes", "start_run", "stream_run"]


def start_run(spec: AgentSpec, call: CallOptions) -> tuple[RunState, AsyncGenerator[Chunk, None]]:
    """The engine's entry point: the run's state and the generator of its client-visible
    chunks (nothing runs until it is iterated; ``state.result`` is final when it ends)."""
    state = RunState(
        run_id=call.run_id or new_id("run"),
        agent_id=spec.id,
        request_context=call.request_context,
        signal=call.abort_signal,
        hold=call.release == "step",
    )
    return state, run(spec, call, state)


def stream_run(
    spec: AgentSpec, messages: Any, **options: Any
) -> tuple[RunState, AsyncGenerator[Chunk, None]]:
    """:func:`start_run` with call options as keywords (``Agent.stream``'s, checked, D35):
    how a built-in starts a sub-run."""
    unknown = set(options) - set(CALL_DEFAULTS)
    if unknown:
        raise TypeError(f"stream_run: unknown call options {sorted(unknown)}")
    return start_run(spec, check_call(messages, {**CALL_DEFAULTS, **options}))
