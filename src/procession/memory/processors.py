"""The memory processors, with Mastra's ids: message history, working memory, semantic recall.

:class:`~procession.memory.Memory` builds them and places them around an agent's lanes (D20):
input ``working-memory`` → ``message-history`` → ``semantic-recall``; output
``semantic-recall`` → ``message-history``. Their input hooks read storage and add remembered
messages (source ``memory``) and system messages (tag ``memory``, D17). Their output hooks
write nothing: they mark the run as ready to store, and ``Memory.commit`` stores it once the
run completed (D13), so a tripwire, an error or a retried attempt leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from procession.context import RequestContext
from procession.errors import ConfigurationError
from procession.memory import _options as opt
from procession.memory._working import TOOL_NAME, WorkingMemoryFormat
from procession.memory.config import SemanticRecallConfig, WorkingMemoryConfig
from procession.memory.embedding import Embedder
from procession.memory.storage import Storage
from procession.messages._tracking import keeps_messages
from procession.messages.message import Message
from procession.messages.message_list import MessageList
from procession.messages.parts import StepStartPart, ToolInvocationPart
from procession.processors.base import Processor
from procession.tools._tool import Tool

__all__ = [
    "MessageHistory",
    "SemanticRecall",
    "WorkingMemory",
    "messages_to_store",
    "require_ids",
]

RECALL_NOTE = (
    "Messages recalled from memory because they relate to the user's latest message are "
    "placed before the recent conversation; they may come from earlier conversations."
)


def require_ids(request_context: RequestContext, what: str = "memory") -> tuple[str, str]:
    """The run's ``(thread_id, resource_id)``; a ``ConfigurationError`` naming what is missing."""
    missing = [
        name
        for name, value in (
            ("thread_id", request_context.thread_id),
            ("resource_id", request_context.resource_id),
        )
        if not value
    ]
    if missing:
        raise ConfigurationError(
            f"{what} needs {' and '.join(missing)}: pass thread_id= and resource_id= to "
            "generate() or stream() (or use an agent without memory for one-off calls)"
        )
    thread_id, resource_id = request_context.thread_id, request_context.resource_id
    assert thread_id is not None
    assert resource_id is not None
    return thread_id, resource_id


def _storage(processor: Processor, storage: object) -> Storage:
    if not isinstance(storage, Storage):
        raise ConfigurationError(
            f"{type(processor).__name__}: storage must implement the Storage protocol "
            f"(got {storage!r})"
        )
    return storage


def _keep_part(part: object) -> bool:
    if isinstance(part, ToolInvocationPart):
        invocation = part.tool_invocation
        return invocation.state != "partial-call" and invocation.tool_name != TOOL_NAME
    return True


def _keep_legacy(entry: object) -> bool:
    return not (
        isinstance(entry, dict)
        and (entry.get("state") == "partial-call" or entry.get("toolName") == TOOL_NAME)
    )


def messages_to_store(messages: Sequence[Message]) -> list[Message]:
    """What a completed run stores of its input and response messages, as they stand now.

    Never system messages, ``partial-call`` tool parts or the working-memory tool's calls
    (their effect is the working memory itself). A message left with nothing but step
    boundaries is skipped. Filtered messages are copies; the live messages are not changed.
    """
    out: list[Message] = []
    for message in messages:
        if message.role == "system":
            continue
        content = message.content
        parts = [p for p in content.parts if _keep_part(p)]
        legacy = content.tool_invocations
        if legacy is not None:
            legacy = [entry for entry in legacy if _keep_legacy(entry)]
        if not any(not isinstance(p, StepStartPart) for p in parts) and not content.content:
            continue
        if len(parts) != len(content.parts) or legacy != content.tool_invocations:
            parts = _tidy_boundaries(parts)
            message = replace(
                message, content=replace(content, parts=parts, tool_invocations=legacy)
            )
        out.append(message)
    return out


def _tidy_boundaries(parts: list[Any]) -> list[Any]:
    """Drop step boundaries left leading, trailing or doubled by removed parts."""
    out: list[Any] = []
    for part in parts:
        if isinstance(part, StepStartPart) and (not out or isinstance(out[-1], StepStartPart)):
            continue
        out.append(part)
    while out and isinstance(out[-1], StepStartPart):
        out.pop()
    return out


class MessageHistory(Processor):
    """Loads a thread's recent messages before the conversation; marks the run for storage.

    Input: the last ``last_messages`` stored messages of the thread, oldest first, system ones
    dropped, added with source ``memory`` (a message the caller sent with the same id wins).
    A thread of another resource raises ``ThreadOwnershipError``: nothing is read.
    Output: its place last in the output lane; when the run completed, the loop's persistence
    stage hands the run to ``Memory.commit``, which saves its input and response messages in
    one transaction (D13). A processor of the agent's with this id replaces it, storage
    included.
    """

    id = "message-history"

    def __init__(self, storage: Storage, *, last_messages: int = 10) -> None:
        self.storage = _storage(self, storage)
        self.last_messages = opt.integer("MessageHistory", "last_messages", last_messages, 0)

    @keeps_messages  # adds through MessageList.add, which checks each message (D30)
    async def process_input(
        self, *, message_list: MessageList, request_context: RequestContext, **_: Any
    ) -> None:
        """Add the thread's recent messages with source ``memory``."""
        thread_id, resource_id = require_ids(request_context, self.id)
        if self.last_messages == 0:  # still check who owns the thread
            await self.storage.get_thread(thread_id, resource_id=resource_id)
            return
        history = await self.storage.list_messages(
            thread_id, resource_id=resource_id, last=self.last_messages
        )
        remembered = [m for m in history if m.role != "system"]
        if remembered:
            message_list.add(remembered, "memory")

    def process_output_result(self, **_: Any) -> None:
        """Nothing to do here: memory stores the run once it completed (D13)."""


class WorkingMemory(Processor):
    """Shows the working memory as a system message and offers ``update_working_memory``.

    Input: the thread's or resource's working memory (``config.scope``) with instructions,
    under tag ``memory``. Each step: the ``update_working_memory`` tool joins the step's tools
    (unless the memory is read-only or a tool of that name is already there). ``Memory.commit``
    writes the last update whose tool call survived the run (not rolled back by a retry, no
    tripwire, no error), read from the run's response messages.
    """

    id = "working-memory"

    def __init__(
        self, storage: Storage, config: WorkingMemoryConfig, *, read_only: bool = False
    ) -> None:
        if not isinstance(config, WorkingMemoryConfig):
            raise ConfigurationError(
                f"WorkingMemory: config must be a WorkingMemoryConfig (got {config!r})"
            )
        self.storage = _storage(self, storage)
        self.config = config
        self.format = WorkingMemoryFormat(config)
        self.read_only = opt.flag("WorkingMemory", "read_only", read_only)

    def target(self, thread_id: str | None) -> str | None:
        """The thread id working memory is kept under (``None``: the resource)."""
        return thread_id if self.config.scope == "thread" else None

    async def load(self, request_context: RequestContext) -> str | None:
        """The stored working memory of this run's thread or resource."""
        thread_id, resource_id = require_ids(request_context, self.id)
        return await self.storage.get_working_memory(
            resource_id=resource_id, thread_id=self.target(thread_id)
        )

    async def process_input(
        self, *, message_list: MessageList, request_context: RequestContext, **_: Any
    ) -> None:
        """Add the working memory and its instructions under tag ``memory``."""
        data = await self.load(request_context)
        message_list.add_system(self.format.system_text(data, read_only=self.read_only), "memory")

    def process_input_step(
        self, *, tools: dict[str, Tool], state: dict[str, Any], **_: Any
    ) -> dict[str, Any] | None:
        """Offer ``update_working_memory`` for this step."""
        if self.read_only or TOOL_NAME in tools:
            return None
        tool = state.get("tool")
        if tool is None:
            tool = state["tool"] = self.format.tool()
        return {"tools": {**tools, TOOL_NAME: tool}}

    def surviving_update(self, response: Sequence[Message]) -> str | None:
        """The last working-memory update whose tool call succeeded and is still in the
        response, encoded as stored; ``None`` when there is none."""
        update: str | None = None
        for message in response:
            for part in message.content.parts:
                if not isinstance(part, ToolInvocationPart):
                    continue
                invocation = part.tool_invocation
                if invocation.tool_name == TOOL_NAME and invocation.state == "result":
                    args = invocation.args
                    if isinstance(args, dict) and "memory" in args:
                        update = self.format.encode(args["memory"])
        return update


QUERY_VECTORS_KEPT = 256
"""How many query vectors :class:`SemanticRecall` keeps for runs that have not committed."""


class SemanticRecall(Processor):
    """Recalls stored messages similar to the latest user message, with their neighbours.

    Input: embeds the latest user message, searches the resource's (or thread's) stored
    message vectors, and adds the matches with ``message_range`` neighbours as ``memory``
    messages, oldest first, before the recent history, plus a short system message under tag
    ``memory``. Output: its place in the output lane; ``Memory.commit`` embeds the run's new
    messages and stores their vectors with them.
    """

    id = "semantic-recall"

    def __init__(self, storage: Storage, config: SemanticRecallConfig, embedder: Embedder) -> None:
        if not isinstance(config, SemanticRecallConfig):
            raise ConfigurationError(
                f"SemanticRecall: config must be a SemanticRecallConfig (got {config!r})"
            )
        if not isinstance(embedder, Embedder):
            raise ConfigurationError(
                "SemanticRecall: embedder must have `dimensions` and `async embed(texts)` "
                f"(got {embedder!r})"
            )
        self.storage = _storage(self, storage)
        self.config = config
        self.embedder = embedder
        self.query_vectors: dict[tuple[str, str], list[float]] = {}
        """The vector of each run's query, by (message id, text), until ``Memory.commit`` stores
        it: the query is embedded once per run, not again when its message is stored."""

    @keeps_messages  # removes and adds through MessageList, which checks each message (D30)
    async def process_input(
        self,
        *,
        messages: list[Message],
        message_list: MessageList,
        request_context: RequestContext,
        **_: Any,
    ) -> None:
        """Add the recalled messages (source ``memory``) and a note (tag ``memory``)."""
        thread_id, resource_id = require_ids(request_context, self.id)
        latest = next((m for m in reversed(messages) if m.role == "user" and m.text), None)
        if latest is None:
            return
        query = latest.text
        [vector] = await self.embedder.embed([query])
        self.keep_query_vector((latest.id, query), vector)
        config = self.config
        hits = await self.storage.query_vectors(
            vector,
            resource_id=resource_id,
            thread_id=thread_id if config.scope == "thread" else None,
            top_k=config.top_k,
            threshold=config.threshold,
        )
        present = {m.id for m in message_list.get.all.db()}
        hits = [h for h in hits if h.message_id not in present]
        if not hits:
            return
        recalled = await self._with_neighbours(hits, resource_id)
        recalled = [m for m in recalled if m.id not in present and m.role != "system"]
        if not recalled:
            return
        remembered = message_list.get.remembered.db()
        message_list.remove_by_ids([m.id for m in remembered])
        message_list.add([*recalled, *remembered], "memory")
        message_list.add_system(RECALL_NOTE, "memory")

    def keep_query_vector(self, key: tuple[str, str], vector: list[float]) -> None:
        """Keep a query's vector for the commit; runs that never commit (failed, aborted)
        leave theirs, so only the latest few hundred are kept."""
        pending = self.query_vectors
        pending[key] = vector
        if len(pending) > QUERY_VECTORS_KEPT:
            del pending[next(iter(pending))]

    async def _with_neighbours(self, hits: Sequence[Any], resource_id: str) -> list[Message]:
        before, after = self.config.range
        by_thread: dict[str, list[str]] = {}
        for hit in hits:
            by_thread.setdefault(hit.thread_id, []).append(hit.message_id)
        chosen: dict[str, Message] = {}
        for thread_id, ids in by_thread.items():
            if before == 0 and after == 0:
                found = await self.storage.get_messages_by_ids(ids, resource_id=resource_id)
                chosen.update((m.id, m) for m in found)
                continue
            found = await self.storage.list_messages_around(
                thread_id, ids, resource_id=resource_id, before=before, after=after
            )
            chosen.update((m.id, m) for m in found)
        return sorted(chosen.values(), key=lambda m: m.created_at)

    def process_output_result(self, **_: Any) -> None:
        """Nothing to do here: ``Memory.commit`` embeds the stored messages (D13)."""
