"""The async storage interface memory is built on, and the records it reads and writes.

Everything is scoped by a *resource* (a user, an account: whoever owns the conversation). A
thread belongs to exactly one resource; a call that names another resource's thread raises
:class:`~procession.errors.ThreadOwnershipError` and reads or changes nothing of it. A message
belongs to one thread for good: saving its id into another thread raises
:class:`~procession.errors.MessageThreadError` (D34).

Every write checks what it stores with the rules of :mod:`procession.memory.limits`: a record
a later run could not load (D30), or a value some backend cannot hold such as a NUL character
(D34), raises :class:`~procession.errors.InvalidRecordError` on every backend alike, and
nothing of the call is written. Ids are checked the same way on reads.

Two backends ship: :class:`~procession.memory.sqlite.SQLiteStorage` (embedded, the default) and
:class:`~procession.memory.postgres.PostgresStorage`. Any other backend can be checked against
the same rules with :func:`procession.testing.check_storage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, Protocol, TypeAlias, runtime_checkable

from procession.memory.ledger import UsageRecord, UsageTotals
from procession.messages.message import Message

__all__ = [
    "Resource",
    "Storage",
    "Thread",
    "VectorHit",
    "VectorItem",
    "WorkingMemoryUpdate",
]

VectorItem: TypeAlias = tuple[str, str, str, Sequence[float]]
"""``(message_id, thread_id, resource_id, vector)``: one embedding to store."""


class VectorHit(NamedTuple):
    """One semantic-recall match: the message, its thread, and the cosine similarity."""

    message_id: str
    thread_id: str
    score: float


@dataclass(frozen=True, slots=True)
class WorkingMemoryUpdate:
    """A working-memory write that :meth:`Storage.save_turn` makes with the turn."""

    text: str | None
    thread_id: str | None = None
    """The thread whose working memory is replaced; ``None`` for the resource's."""


@dataclass(slots=True, kw_only=True)
class Thread:
    """A conversation, owned by one resource."""

    id: str
    resource_id: str
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: datetime
    updated_at: datetime


@dataclass(slots=True, kw_only=True)
class Resource:
    """Whoever owns threads: resource-scoped working memory and metadata."""

    id: str
    working_memory: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Storage(Protocol):
    """Async storage for threads, messages, working memory and message embeddings.

    Every method is safe to call from many tasks at once. Backends create their schema on first
    use. Messages are returned oldest-first, ordered by ``created_at`` and then by the order in
    which they were first saved.
    """

    # -- threads ---------------------------------------------------------------------------

    async def create_thread(
        self,
        *,
        resource_id: str,
        thread_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Create a thread; a taken id raises ``StorageError`` (``ThreadOwnershipError`` if
        another resource owns it)."""
        ...

    async def get_thread(self, thread_id: str, *, resource_id: str) -> Thread | None:
        """The thread, or ``None`` when there is none with that id."""
        ...

    async def update_thread(
        self,
        thread_id: str,
        *,
        resource_id: str,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Set the title (when given) and merge ``metadata`` into the thread's (shallowly).

        A missing thread raises ``StorageError``.
        """
        ...

    async def list_threads(
        self, resource_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Thread]:
        """The resource's threads, most recently updated first."""
        ...

    async def delete_thread(self, thread_id: str, *, resource_id: str) -> bool:
        """Delete a thread with its messages and vectors; ``False`` when it did not exist."""
        ...

    # -- messages --------------------------------------------------------------------------

    async def save_turn(
        self,
        thread_id: str,
        resource_id: str,
        messages: Sequence[Message],
        *,
        working_memory: WorkingMemoryUpdate | None = None,
        vectors: Sequence[VectorItem] = (),
    ) -> None:
        """Persist one completed run in one transaction (D13).

        Messages are upserted by id: a message already in this thread is replaced; one
        stored in another thread raises ``MessageThreadError``, one of another resource
        ``ThreadOwnershipError`` (D34). Every message is checked first with the rules of
        :func:`procession.memory.check_storable`: one a later run could not load, or holding a
        value a backend cannot store, raises ``InvalidRecordError`` naming thread, message and
        field (D30). The thread is created on first use and its ``updated_at`` is bumped. A
        working-memory update and the new messages' vectors, when given, are written in the
        same transaction: all of the run is stored, or none of it. Concurrent turns on one
        thread are serialised: a reader sees all of a turn or none of it.
        """
        ...

    async def check_message_ids(
        self, thread_id: str, message_ids: Sequence[str], *, resource_id: str
    ) -> None:
        """Refuse what ``save_turn`` would refuse for these ids, without writing (D34).

        A thread of another resource raises ``ThreadOwnershipError``; an id stored for another
        resource ``ThreadOwnershipError`` (naming the message), one stored in another thread
        ``MessageThreadError``. Ids not stored yet, or stored in this thread, pass. Memory
        calls it on a run's input messages before any hook runs.
        """
        ...

    async def list_messages(
        self,
        thread_id: str,
        *,
        resource_id: str,
        last: int | None = None,
        before: datetime | str | None = None,
    ) -> list[Message]:
        """A thread's messages, oldest first.

        ``before`` keeps only messages older than a datetime, or than a message of the thread
        given by id (a cursor); ``last=N`` then keeps the newest N of those.
        """
        ...

    async def list_messages_around(
        self,
        thread_id: str,
        message_ids: Sequence[str],
        *,
        resource_id: str,
        before: int = 0,
        after: int = 0,
    ) -> list[Message]:
        """The thread's messages with these ids and up to ``before``/``after`` neighbours of
        each, oldest first, without repeats (semantic recall's message range)."""
        ...

    async def get_messages_by_ids(
        self, message_ids: Sequence[str], *, resource_id: str
    ) -> list[Message]:
        """The resource's messages with these ids, oldest first; unknown ids are left out."""
        ...

    async def delete_messages(self, message_ids: Sequence[str], *, resource_id: str) -> int:
        """Delete the resource's messages with these ids (and their vectors); the count."""
        ...

    # -- working memory and resources ------------------------------------------------------

    async def get_working_memory(
        self, *, resource_id: str, thread_id: str | None = None
    ) -> str | None:
        """Working memory of a thread (when ``thread_id`` is given) or of the resource."""
        ...

    async def set_working_memory(
        self, text: str | None, *, resource_id: str, thread_id: str | None = None
    ) -> None:
        """Replace the working memory of a thread (created if missing) or of the resource."""
        ...

    async def get_resource(self, resource_id: str) -> Resource | None:
        """The resource record, or ``None`` when nothing was stored for it."""
        ...

    async def update_resource(self, resource_id: str, *, metadata: dict[str, Any]) -> Resource:
        """Merge ``metadata`` into the resource's (shallowly), creating the record if needed."""
        ...

    # -- vectors ---------------------------------------------------------------------------

    async def upsert_vectors(self, items: Sequence[VectorItem]) -> None:
        """Store message embeddings (replacing any earlier one for the same message id)."""
        ...

    async def query_vectors(
        self,
        vector: Sequence[float],
        *,
        resource_id: str,
        thread_id: str | None = None,
        top_k: int = 4,
        threshold: float | None = None,
    ) -> list[VectorHit]:
        """The ``top_k`` most cosine-similar stored embeddings of the resource (or thread),
        best first, with a score of at least ``threshold`` when given."""
        ...

    # -- the usage ledger ------------------------------------------------------------------

    async def record_usage(self, record: UsageRecord) -> None:
        """Write a run's usage row (``procession.memory.ledger``); a row already stored for
        the same run id is replaced. An invalid record raises ``StorageError``."""
        ...

    async def usage_totals(
        self,
        *,
        resource_id: str | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        currency: str = "USD",
    ) -> UsageTotals:
        """Usage summed over the rows matching every filter given (none: every row), with
        ``since <= created_at < until``; ``cost`` sums the priced rows in ``currency``."""
        ...

    async def list_usage(
        self,
        *,
        resource_id: str | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        agent_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[UsageRecord]:
        """The matching rows, newest first (at most ``limit``)."""
        ...

    # -- lifetime --------------------------------------------------------------------------

    async def close(self) -> None:
        """Release connections and threads. The storage may not be used afterwards."""
        ...
