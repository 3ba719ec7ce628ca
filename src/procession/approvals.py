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
from typing import Any, Protocol, runtime_checkable

from procession._records import record

__all__ = ["ApprovalBroker", "ApprovalRequest", "Decision", "LocalApprovals"]


@record(frozen=True, slots=True)
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


@record(frozen=True, slots=True)
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


_Key = tuple[str | None, str, str]
"""A waiting call: its resource, run id and tool call id."""


class LocalApprovals:
    """Decisions for runs of this process: ``approve()`` or ``decline()`` resolves a waiting
    run's call; a decision given before the run asks is kept until it does.

    Calls are kept per resource, run and tool call: a decision that names a resource
    (``resource_id=``, as the server's approval route always does) reaches only that
    resource's call, so another resource's run that uses the same run id and tool call id
    is never answered by it. Without ``resource_id`` a decision reaches the call of that run
    id and tool call id, whichever resource it belongs to (in-process callers).
    """

    def __init__(self) -> None:
        self._waiting: dict[_Key, asyncio.Future[Decision]] = {}
        self._requests: dict[_Key, ApprovalRequest] = {}

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Wait until :meth:`approve` or :meth:`decline` is called for this call."""
        key = (request.resource_id, request.run_id, request.tool_call_id)
        future = self._waiting.get(key)
        early = self._waiting.pop((None, request.run_id, request.tool_call_id), None)
        if future is None:
            future = early or asyncio.get_running_loop().create_future()
            self._waiting[key] = future
        self._requests[key] = request
        try:
            return await future
        finally:
            self._waiting.pop(key, None)
            self._requests.pop(key, None)

    def find(
        self, run_id: str, tool_call_id: str, *, resource_id: str | None = None
    ) -> ApprovalRequest | None:
        """The waiting request of one call (of ``resource_id``'s run, when given)."""
        key = self._key(run_id, tool_call_id, resource_id)
        return None if key is None else self._requests.get(key)

    def pending(
        self, run_id: str | None = None, *, resource_id: str | None = None
    ) -> list[ApprovalRequest]:
        """The calls waiting for a decision (of one run, or of every run; of one resource
        when ``resource_id`` is given)."""
        return [
            r
            for r in self._requests.values()
            if (run_id is None or r.run_id == run_id)
            and (resource_id is None or r.resource_id == resource_id)
        ]

    def approve(self, run_id: str, tool_call_id: str, *, resource_id: str | None = None) -> None:
        """Let the call run."""
        self._resolve(run_id, tool_call_id, resource_id, Decision(True))

    def decline(
        self,
        run_id: str,
        tool_call_id: str,
        reason: str | None = None,
        *,
        resource_id: str | None = None,
    ) -> None:
        """Refuse the call; ``reason`` is shown to the model."""
        self._resolve(run_id, tool_call_id, resource_id, Decision(False, reason))

    def _key(self, run_id: str, tool_call_id: str, resource_id: str | None) -> _Key | None:
        if resource_id is not None:
            return (resource_id, run_id, tool_call_id)
        return next((k for k in self._requests if k[1] == run_id and k[2] == tool_call_id), None)

    def _resolve(
        self, run_id: str, tool_call_id: str, resource_id: str | None, decision: Decision
    ) -> None:
        key = self._key(run_id, tool_call_id, resource_id) or (resource_id, run_id, tool_call_id)
        future = self._waiting.get(key)
        if future is None:
            future = self._waiting[key] = asyncio.get_running_loop().create_future()
        if not future.done():
            future.set_result(decision)
