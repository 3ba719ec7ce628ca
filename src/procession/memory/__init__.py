"""Memory: conversation history, working memory and semantic recall, and their storage.

``Memory`` is what an agent takes (``Agent(memory=Memory(...))``); see ``docs/memory.md``.
``SQLiteStorage`` is the embedded default storage; ``PostgresStorage`` (the ``postgres`` extra)
is imported from :mod:`procession.memory.postgres` so that asyncpg stays optional.
"""

from procession.memory.config import MemoryScope, SemanticRecallConfig, WorkingMemoryConfig
from procession.memory.embedding import Embedder, HashEmbedder, MiniLMEmbedder
from procession.memory.memory import Memory
from procession.memory.processors import MessageHistory, SemanticRecall, WorkingMemory
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Resource, Storage, Thread, VectorHit, VectorItem

__all__ = [
    "Embedder",
    "HashEmbedder",
    "Memory",
    "MemoryScope",
    "MessageHistory",
    "MiniLMEmbedder",
    "Resource",
    "SQLiteStorage",
    "SemanticRecall",
    "SemanticRecallConfig",
    "Storage",
    "Thread",
    "VectorHit",
    "VectorItem",
    "WorkingMemory",
    "WorkingMemoryConfig",
]
