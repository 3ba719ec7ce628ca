"""Run ids bound to the resource that holds them.

Mastra's clients may choose a run's id (``runId`` in the body), so the server keeps
accepting one, but only for the resource that holds it: a run id another resource's run
holds (live in this process, in the chunk log, or a durable run) is refused for that caller
with 409 naming the id, and never disturbs the run that holds it. Approvals are answered
per resource and run (:class:`~procession.approvals.LocalApprovals`), and the reconnect
routes only return a run to its resource. Run ids the server makes carry 128 random bits
(decision 0215).
"""

from __future__ import annotations

from procession.server.errors import HTTPError

__all__ = ["LiveRunIds", "run_id_taken"]


def run_id_taken(run_id: str) -> HTTPError:
    """The answer to a run id that another resource's run holds (409, naming the id; whose
    run it is stays unsaid)."""
    return HTTPError(
        409, f"Run id {run_id!r} is taken by another run: choose another runId (or omit it)"
    )


class LiveRunIds:
    """The run ids of runs live in this process and the resource each belongs to."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[str, tuple[str, int]] = {}

    def claim(self, run_id: str, resource_id: str) -> None:
        """Hold ``run_id`` for ``resource_id`` until :meth:`release`; 409 when another
        resource holds it."""
        held = self._held.get(run_id)
        if held is not None and held[0] != resource_id:
            raise run_id_taken(run_id)
        self._held[run_id] = (resource_id, 1 if held is None else held[1] + 1)

    def release(self, run_id: str) -> None:
        """The run ended: its id is free again (once every claim on it was released)."""
        held = self._held.get(run_id)
        if held is None:
            return
        if held[1] <= 1:
            del self._held[run_id]
        else:
            self._held[run_id] = (held[0], held[1] - 1)

    def owner(self, run_id: str) -> str | None:
        """The resource holding ``run_id`` here, if a run holds it."""
        held = self._held.get(run_id)
        return None if held is None else held[0]
