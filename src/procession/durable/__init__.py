"""Durable runs on DBOS (the ``durable`` extra): a run is a workflow whose model and tool
calls are checkpointed (in ``procession.checkpoints`` on PostgreSQL, as DBOS steps on
SQLite), resumed on another worker when its worker dies.

::

    from procession.durable import DurableRuns
    runs = DurableRuns([agent], database_url="postgresql://.../procession_dbos")
    await runs.launch()
    run = await runs.start("support", "Where is my order?", thread_id="t1", resource_id="ada")
    async for chunk in run: ...

See ``docs/scaling.md``.
"""

from procession.durable.approvals import DBOSApprovals
from procession.durable.checkpoints import CheckpointConflict, Checkpoints, RunCheckpoints
from procession.durable.dbos_journal import DBOSJournal, check_states, stored_states
from procession.durable.runs import (
    QUEUE,
    WORKFLOW,
    ChunkSink,
    DurableRun,
    DurableRuns,
    RunObserver,
    enqueue,
)

__all__ = [
    "QUEUE",
    "WORKFLOW",
    "CheckpointConflict",
    "Checkpoints",
    "ChunkSink",
    "DBOSApprovals",
    "DBOSJournal",
    "DurableRun",
    "DurableRuns",
    "RunCheckpoints",
    "RunObserver",
    "check_states",
    "enqueue",
    "stored_states",
]
