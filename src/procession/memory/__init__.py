"""Memory: conversation history, working memory and semantic recall, and their storage.

``Memory`` is what an agent takes (``Agent(memory=Memory(...))``); see ``docs/memory.md``.
``SQLiteStorage`` is the embedded default storage; ``PostgresStorage`` (the ``postgres`` extra)
is imported from :mod:`procession.memory.postgres` so that asyncpg stays optional.

Names load on first use, so ``import procession`` does not pay for the storage modules.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from procession.memory.config import MemoryScope, SemanticRecallConfig, WorkingMemoryConfig
    from procession.memory.embedding import Embedder, HashEmbedder, MiniLMEmbedder
    from procession.memory.ledger import UsageRecord, UsageTotals, usage_record
    from procession.memory.limits import check_storable
    from procession.memory.memory import Memory
    from procession.memory.once import commit_once
    from procession.memory.processors import MessageHistory, SemanticRecall, WorkingMemory
    from procession.memory.sqlite import SQLiteStorage
    from procession.memory.storage import (
        Resource,
        Storage,
        Thread,
        VectorHit,
        VectorItem,
        WorkingMemoryUpdate,
    )
    from procession.memory.thread_locks import PostgresThreadLocks, ThreadLocks

_WHERE = {
    "Embedder": "embedding",
    "HashEmbedder": "embedding",
    "Memory": "memory",
    "MemoryScope": "config",
    "MessageHistory": "processors",
    "MiniLMEmbedder": "embedding",
    "PostgresThreadLocks": "thread_locks",
    "Resource": "storage",
    "SQLiteStorage": "sqlite",
    "SemanticRecall": "processors",
    "SemanticRecallConfig": "config",
    "Storage": "storage",
    "Thread": "storage",
    "ThreadLocks": "thread_locks",
    "UsageRecord": "ledger",
    "UsageTotals": "ledger",
    "VectorHit": "storage",
    "VectorItem": "storage",
    "WorkingMemory": "processors",
    "WorkingMemoryConfig": "config",
    "WorkingMemoryUpdate": "storage",
    "usage_record": "ledger",
    "check_storable": "limits",
    "commit_once": "once",
}

__all__ = [
    "Embedder",
    "HashEmbedder",
    "Memory",
    "MemoryScope",
    "MessageHistory",
    "MiniLMEmbedder",
    "PostgresThreadLocks",
    "Resource",
    "SQLiteStorage",
    "SemanticRecall",
    "SemanticRecallConfig",
    "Storage",
    "Thread",
    "ThreadLocks",
    "UsageRecord",
    "UsageTotals",
    "VectorHit",
    "VectorItem",
    "WorkingMemory",
    "WorkingMemoryConfig",
    "WorkingMemoryUpdate",
    "usage_record",
    "check_storable",
    "commit_once",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'procession.memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"procession.memory.{module}"), name)
    globals()[name] = value
    return value
