"""``DBOSApprovals``: tool approval for durable runs, answered from any worker.

A run waiting for a decision publishes the request as a DBOS workflow event and waits with
DBOS ``recv`` in its workflow, so the wait survives a worker's death (the run, resumed on
another worker, waits again for the same message). Any process connected to the same DBOS
database finds the request (``find``) and answers it (``approve``, ``decline``) with DBOS
``send`` to the run's workflow, whose id is the run id.
"""

from __future__ import annotations

from typing import Any

from procession._checks import check_seconds
from procession.approvals import ApprovalRequest, Decision

__all__ = ["DBOSApprovals"]

_TOPIC = "procession.approval:"
"""The event key and message topic of one tool call's decision, by tool call id."""


class DBOSApprovals:
    """An approval broker for runs executed by :class:`~procession.durable.DurableRuns`.

    Args:
        timeout: Seconds a run waits for a decision before the call is declined.
        find_timeout: Seconds :meth:`find` waits for a request not published yet (the run
            shows its client the request just before it publishes it).
    """

    def __init__(self, *, timeout: float = 7 * 24 * 3600.0, find_timeout: float = 3.0) -> None:
        self.timeout = check_seconds("timeout", timeout)
        self.find_timeout = check_seconds("find_timeout", find_timeout)

    async def decide(self, request: ApprovalRequest) -> Decision:
        """Publish the request, then wait durably for its decision (in the run's workflow)."""
        from dbos import DBOS

        topic = _TOPIC + request.tool_call_id
        await DBOS.set_event_async(topic, _request_data(request))
        message = await DBOS.recv_async(topic, timeout_seconds=self.timeout)
        await DBOS.set_event_async(topic, None)  # answered: ``find`` no longer finds it
        if not isinstance(message, dict):
            return Decision(False, "no decision came in time")
        return Decision(bool(message.get("approved")), message.get("reason"))

    async def find(self, run_id: str, tool_call_id: str) -> ApprovalRequest | None:
        """The request of a run's call while it waits for a decision (from any worker)."""
        from dbos import DBOS

        data = await DBOS.get_event_async(
            run_id, _TOPIC + tool_call_id, timeout_seconds=self.find_timeout
        )
        if not isinstance(data, dict):
            return None
        return ApprovalRequest(**data)

    async def approve(self, run_id: str, tool_call_id: str) -> None:
        """Let the call run."""
        await self._send(run_id, tool_call_id, {"approved": True})

    async def decline(self, run_id: str, tool_call_id: str, reason: str | None = None) -> None:
        """Refuse the call; ``reason`` is shown to the model."""
        await self._send(run_id, tool_call_id, {"approved": False, "reason": reason})

    async def _send(self, run_id: str, tool_call_id: str, message: dict[str, Any]) -> None:
        from dbos import DBOS

        await DBOS.send_async(run_id, message, _TOPIC + tool_call_id)


def _request_data(request: ApprovalRequest) -> dict[str, Any]:
    return {
        "run_id": request.run_id,
        "tool_call_id": request.tool_call_id,
        "tool_name": request.tool_name,
        "args": request.args,
        "resource_id": request.resource_id,
    }
