"""Memory: the storage threads, messages, working memory and embeddings are kept in.

``SQLiteStorage`` is the embedded default; ``PostgresStorage`` (the ``postgres`` extra) is
imported from :mod:`procession.memory.postgres` so that asyncpg stays optional.
"""

from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Resource, Storage, Thread, VectorHit, VectorItem

__all__ = ["Resource", "SQLiteStorage", "Storage", "Thread", "VectorHit", "VectorItem"]
