"""Tool approval (human in the loop): a tool marked ``requires_approval`` waits for a decision.

Before such a tool runs, the run sends a ``tool-call-approval`` chunk (``{toolCallId, toolName,
args}``) and asks its :class:`ApprovalBroker` for a decision. Approved, the tool runs; declined,
it does not: the client gets a ``tool-output-denied`` chunk, the tool's part is stored in state
``output-denied``, and the model sees the denial as the tool's error. :class:`LocalApprovals`
keeps waiting runs in this process (a server's approve and decline routes resolve them); a
durable runner supplies a broker that waits durably, so any replica can resume the run
(``procession.durable.DBOSApprovals``). A server answers decisions through a broker's
``find(run_id, tool_call_id)``, ``approve`` and ``decline`` (each may be sync or async).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["ApprovalBroker", "ApprovalRequest", "Decision", "LocalApprovals"]


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A tool call waiting for a decision.

    Attributes:
        run_id: The run it belongs to.
        tool_call_id: The call's id.
        tool_name: The tool.
        args: The arguments the tool would run with.
        resource_id: The resource (user) the run belongs to, if known.
    """

    run_id: str
    tool_call_id: str
    tool_name: str
    args: Any
    resource_id: str | None = None


@dataclass(frozen=True, slots=True)
class Decision:
    """An approval or a rejection, with an optional reason shown to the model."""

    approved: bool
    reason: str | None = None


@runtime_checkable
class ApprovalBroker(Protocol):
    """Where a run waits for a decision on a tool call."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Wait for, and return, the decision on ``request``."""
        ...


class LocalApprovals:
    """Decisions for runs of this process: ``approve()`` or ``decline()`` resolves a waiting
    run's call; a decision given before the run asks is kept until it does."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, str], asyncio.Future[Decision]] = {}
        self._requests: dict[tuple[str, str], ApprovalRequest] = {}

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Wait until :meth:`approve` or :meth:`decline` is called for this call."""
        key = (request.run_id, request.tool_call_id)
        future = self._waiting.get(key)
        if future is None:
            future = self._waiting[key] = asyncio.get_running_loop().create_future()
        self._requests[key] = request
        try:
            return await future
        finally:
            self._waiting.pop(key, None)
            self._requests.pop(key, None)

    def find(self, run_id: str, tool_call_id: str) -> ApprovalRequest | None:
        """The waiting request of one call, if it is waiting."""
        return self._requests.get((run_id, tool_call_id))

    def pending(self, run_id: str | None = None) -> list[ApprovalRequest]:
        """The calls waiting for a decision (of one run, or of every run)."""
        return [r for r in self._requests.values() if run_id is None or r.run_id == run_id]

    def approve(self, run_id: str, tool_call_id: str) -> None:
        """Let the call run."""
        self._resolve(run_id, tool_call_id, Decision(True))

    def decline(self, run_id: str, tool_call_id: str, reason: str | None = None) -> None:
        """Refuse the call; ``reason`` is shown to the model."""
        self._resolve(run_id, tool_call_id, Decision(False, reason))

    def _resolve(self, run_id: str, tool_call_id: str, decision: Decision) -> None:
        key = (run_id, tool_call_id)
        future = self._waiting.get(key)
        if future is None:
            future = self._waiting[key] = asyncio.get_running_loop().create_future()
        if not future.done():
            future.set_result(decision)
