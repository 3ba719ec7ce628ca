"""``Memory``: conversation history, working memory and semantic recall for an agent.

::

    memory = Memory(SQLiteStorage("chat.db"), last_messages=20, working_memory=True)
    agent = Agent(id="assistant", model=..., memory=memory)
    await agent.generate("Hi, I'm Ada", thread_id="t-1", resource_id="user-42")

Every call of an agent with memory names its thread and resource; a missing one is a
``ConfigurationError`` (as a checkpointer without a thread id is elsewhere): running without
memory by accident would silently forget the conversation. A thread is created the first time
a run stores into it. A completed run is stored once, after every ``process_output_result``
(D13); a tripwire or an error stores nothing.
"""

from __future__ import annotations

import contextlib
import inspect
import os
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from procession.chunks import Usage
from procession.context import RequestContext
from procession.errors import ConfigurationError
from procession.memory import _options as opt
from procession.memory.base import Turn
from procession.memory.config import SemanticRecallConfig, WorkingMemoryConfig
from procession.memory.embedding import Embedder, default_embedder
from procession.memory.limits import check_storable
from procession.memory.processors import (
    MessageHistory,
    SemanticRecall,
    WorkingMemory,
    messages_to_store,
    require_ids,
)
from procession.memory.storage import Storage, Thread, VectorItem, WorkingMemoryUpdate
from procession.memory.thread_locks import DEFAULT_LOCK_TIMEOUT, ThreadLocks
from procession.messages.message import Message
from procession.pricing import PriceTable

__all__ = ["DEFAULT_DB", "Memory"]

DEFAULT_DB = "procession.db"
"""The SQLite file ``Memory()`` uses without a storage (``$PROCESSION_DB`` overrides it)."""


class Memory:
    """An agent's memory: pass it as ``Agent(memory=...)``.

    Args:
        storage: Where threads, messages, working memory and vectors live (default: a SQLite
            file, ``$PROCESSION_DB`` or ``./procession.db``, owned and closed by this memory).
        last_messages: How many recent messages of the thread join each prompt (0: none; the
            run is still stored).
        working_memory: ``True`` or a :class:`WorkingMemoryConfig` to keep working memory.
        semantic_recall: ``True`` or a :class:`SemanticRecallConfig` to recall similar
            messages (needs an embedder: by default the offline MiniLM one).
        read_only: Read history, working memory and recall, but store nothing and offer no
            ``update_working_memory`` tool.

    Raises:
        ConfigurationError: an argument of the wrong type or out of range (D35), naming the
            argument, the value and what is expected.
    """

    def __init__(
        self,
        storage: Storage | None = None,
        *,
        last_messages: int = 10,
        working_memory: bool | WorkingMemoryConfig = False,
        semantic_recall: bool | SemanticRecallConfig = False,
        read_only: bool = False,
    ) -> None:
        if storage is not None and not isinstance(storage, Storage):
            raise ConfigurationError(
                f"Memory: storage must implement the Storage protocol (got {storage!r}, "
                f"which lacks {', '.join(_missing_methods(storage))})"
            )
        self.read_only = opt.flag("Memory", "read_only", read_only)
        last_messages = opt.integer("Memory", "last_messages", last_messages, 0)
        self.working_memory_config = _working(working_memory)
        self.semantic_recall_config = _recall(semantic_recall)
        self._owns_storage = storage is None
        if storage is None:
            from procession.memory.sqlite import SQLiteStorage

            path = os.environ.get("PROCESSION_DB") or DEFAULT_DB
            storage = SQLiteStorage(os.path.abspath(path))
        self.storage: Storage = storage
        self._locks: ThreadLocks | None = None
        self.embedder: Embedder | None = None
        self.history = MessageHistory(storage, last_messages=last_messages)
        self.working = (
            WorkingMemory(storage, self.working_memory_config, read_only=read_only)
            if working_memory
            else None
        )
        self.recall: SemanticRecall | None = None
        if semantic_recall:
            config = self.semantic_recall_config
            self.embedder = config.embedder if config.embedder is not None else default_embedder()
            self.recall = SemanticRecall(storage, config, self.embedder)

    def __repr__(self) -> str:
        return f"Memory({self.storage!r}, last_messages={self.history.last_messages})"

    # -- the AgentMemory seam --------------------------------------------------------------

    async def prepare(
        self, request_context: RequestContext, messages: Sequence[Message] | None = None
    ) -> None:
        """Check the call before any hook runs; errors end the run as they are.

        The call names a thread and a resource that storage can hold, and the thread, if it
        exists, belongs to that resource (``ThreadOwnershipError``). Given the run's input
        ``messages`` (unless the memory is read-only), they are checked too (D34): each is a
        record every backend can store (:func:`~procession.memory.check_storable`,
        ``InvalidRecordError``), and no id is stored in another thread
        (``MessageThreadError``) or for another resource (``ThreadOwnershipError``), so such
        a run fails before the model is called instead of at the commit.
        """
        thread_id, resource_id = require_ids(request_context)
        check_storable(thread_id=thread_id, resource_id=resource_id)
        if messages and not self.read_only:
            check_storable(messages, thread_id=thread_id)
            ids = [m.id for m in messages]
            await self.storage.check_message_ids(thread_id, ids, resource_id=resource_id)
        else:
            await self.storage.get_thread(thread_id, resource_id=resource_id)  # raises if foreign

    def input_processors(self, request_context: RequestContext) -> list[Any]:
        """Working memory, message history, semantic recall (Mastra's order).

        Raises ``ConfigurationError`` when the call named no thread or no resource.
        """
        require_ids(request_context)
        processors: list[Any] = [self.working, self.history, self.recall]
        return [p for p in processors if p is not None]

    def output_processors(self, request_context: RequestContext) -> list[Any]:
        """Semantic recall, then message history: last in the output lane (none if read-only)."""
        if self.read_only:
            return []
        return [p for p in (self.recall, self.history) if p is not None]

    async def commit(self, turn: Turn) -> None:
        """Store a completed run in one ``save_turn`` transaction (D13): its messages, the
        working-memory update whose tool call survived, and the new messages' vectors.

        Messages are stored only when this memory's ``message-history`` processor took part
        (a processor with that id in the agent's own lane replaces it, storage included), and
        vectors only when its ``semantic-recall`` did. What would be stored is checked first
        (:func:`~procession.memory.check_storable`), so a value no backend can store fails the
        run with ``InvalidRecordError`` on every backend (D34). Embeddings are computed before
        anything is written, so a failing embedder stores nothing.
        """
        if self.read_only:
            return
        thread_id, resource_id = require_ids(turn.request_context)
        took_part = {id(p) for p in turn.output_processors}
        messages: list[Message] = []
        if id(self.history) in took_part:
            messages = messages_to_store(turn.messages)
        update = self.working.surviving_update(turn.response) if self.working is not None else None
        check_storable(
            messages, thread_id=thread_id, resource_id=resource_id, working_memory=update
        )
        vectors: list[VectorItem] = []
        if self.recall is not None and messages and id(self.recall) in took_part:
            vectors = await self._vectors(messages, thread_id, resource_id)
        working = (
            WorkingMemoryUpdate(update, self.working.target(thread_id))
            if update is not None and self.working is not None
            else None
        )
        if messages or working is not None:  # D13: one transaction for the whole run
            await self.storage.save_turn(
                thread_id, resource_id, messages, working_memory=working, vectors=vectors
            )

    async def record_usage(
        self,
        *,
        run_id: str,
        agent_id: str,
        model: str,
        usage: Usage,
        request_context: RequestContext,
        prices: PriceTable | None = None,
    ) -> None:
        """Write a run's line in the usage ledger (model, tokens, cost, ids), whatever the
        run's outcome; ``TokenCostControl`` reads it. The cost comes from ``prices`` (the run's
        processors' table, ``procession.pricing.run_prices``) before the default table. A
        read-only memory writes none."""
        if self.read_only:
            return
        from procession.memory.ledger import usage_record

        await self.storage.record_usage(
            usage_record(
                run_id=run_id,
                agent_id=agent_id,
                model=model,
                usage=usage,
                resource_id=request_context.resource_id,
                thread_id=request_context.thread_id,
                prices=prices,
            )
        )

    async def _vectors(
        self, messages: Sequence[Message], thread_id: str, resource_id: str
    ) -> list[VectorItem]:
        texts = [(m.id, m.text) for m in messages if m.role in ("user", "assistant")]
        texts = [(mid, text) for mid, text in texts if text.strip()]
        if not texts:
            return []
        assert self.embedder is not None
        assert self.recall is not None
        known = self.recall.query_vectors  # the run's query, embedded by the input hook
        vectors = {key: known.pop(key) for key in texts if key in known}
        missing = [key for key in texts if key not in vectors]
        if missing:
            embedded = await self.embedder.embed([text for _, text in missing])
            vectors.update(zip(missing, embedded, strict=True))
        return [(mid, thread_id, resource_id, vectors[(mid, text)]) for mid, text in texts]

    # -- helpers over storage --------------------------------------------------------------

    async def create_thread(
        self,
        *,
        resource_id: str,
        thread_id: str | None = None,
        title: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Thread:
        """Create a thread ahead of its first run (runs create theirs when needed)."""
        return await self.storage.create_thread(
            resource_id=resource_id, thread_id=thread_id, title=title, metadata=metadata
        )

    async def get_thread(self, thread_id: str, *, resource_id: str) -> Thread | None:
        """The thread, or ``None``; another resource's thread raises ``ThreadOwnershipError``."""
        return await self.storage.get_thread(thread_id, resource_id=resource_id)

    async def list_threads(
        self, resource_id: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Thread]:
        """The resource's threads, most recently updated first."""
        return await self.storage.list_threads(resource_id, limit=limit, offset=offset)

    async def list_messages(
        self, thread_id: str, *, resource_id: str, last: int | None = None
    ) -> list[Message]:
        """A thread's stored messages, oldest first (the newest ``last`` when given)."""
        return await self.storage.list_messages(thread_id, resource_id=resource_id, last=last)

    async def delete_thread(self, thread_id: str, *, resource_id: str) -> bool:
        """Delete a thread with its messages and vectors; ``False`` when there was none."""
        return await self.storage.delete_thread(thread_id, resource_id=resource_id)

    def _working_thread(self, thread_id: str | None) -> str | None:
        if self.working_memory_config.scope == "resource":
            return None
        if thread_id is None:
            raise ConfigurationError("working memory is thread-scoped here: pass thread_id=")
        return thread_id

    async def get_working_memory(
        self, *, resource_id: str, thread_id: str | None = None
    ) -> str | None:
        """The working memory (Markdown, or JSON text in schema mode) of the configured scope:
        the resource's, or with a thread scope the thread's (``thread_id`` required)."""
        return await self.storage.get_working_memory(
            resource_id=resource_id, thread_id=self._working_thread(thread_id)
        )

    async def set_working_memory(
        self, value: Any, *, resource_id: str, thread_id: str | None = None
    ) -> None:
        """Replace the working memory: Markdown text, or in schema mode a dict, JSON text or
        model instance (validated; an invalid one raises ``ConfigurationError``)."""
        target = self._working_thread(thread_id)
        fmt = (
            self.working.format
            if self.working is not None
            else WorkingMemory(self.storage, self.working_memory_config).format
        )
        text = None if value is None else fmt.encode(value)
        await self.storage.set_working_memory(text, resource_id=resource_id, thread_id=target)

    # -- turns -----------------------------------------------------------------------------

    def thread_lock(
        self, thread_id: str, *, timeout: float = DEFAULT_LOCK_TIMEOUT
    ) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold ``thread_id`` for one turn: the storage's lock (across processes for
        PostgreSQL), else one in this process. ``ThreadBusyError`` after ``timeout`` seconds
        (:mod:`procession.memory.thread_locks`)."""
        lock = getattr(self.storage, "thread_lock", None)
        if callable(lock):
            held: contextlib.AbstractAsyncContextManager[None] = lock(thread_id, timeout=timeout)
            return held
        if self._locks is None:
            self._locks = ThreadLocks()
        return self._locks.hold(thread_id, timeout=timeout)

    # -- lifetime --------------------------------------------------------------------------

    async def close(self) -> None:
        """Close the storage if this memory created it (a storage passed in is the caller's)."""
        if self._owns_storage:
            await self.storage.close()

    async def __aenter__(self) -> Memory:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


def _missing_methods(storage: object) -> list[str]:
    wanted = [name for name, value in vars(Storage).items() if inspect.iscoroutinefunction(value)]
    return [name for name in wanted if not callable(getattr(storage, name, None))]


def _working(value: bool | WorkingMemoryConfig) -> WorkingMemoryConfig:
    if isinstance(value, WorkingMemoryConfig):
        return value
    if isinstance(value, bool):
        return WorkingMemoryConfig()
    raise ConfigurationError(
        f"Memory: working_memory must be a bool or a WorkingMemoryConfig (got {value!r})"
    )


def _recall(value: bool | SemanticRecallConfig) -> SemanticRecallConfig:
    if isinstance(value, SemanticRecallConfig):
        return value
    if isinstance(value, bool):
        return SemanticRecallConfig()
    raise ConfigurationError(
        f"Memory: semantic_recall must be a bool or a SemanticRecallConfig (got {value!r})"
    )
