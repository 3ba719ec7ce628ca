"""Keep a conversation in SQLite: save a turn, load the history, recall by embedding.

Run: ``.venv/bin/python docs/examples/memory_storage.py``
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from procession.memory import SQLiteStorage
from procession.messages import Message


async def main() -> None:
    """Save one turn and read it back."""
    with tempfile.TemporaryDirectory() as folder:
        storage = SQLiteStorage(Path(folder) / "memory.db")
        try:
            question, answer = Message.user("What is 2+2?"), Message.assistant("4")
            await storage.save_turn("thread-1", "user-42", [question, answer])
            history = await storage.list_messages("thread-1", resource_id="user-42", last=10)
            print([m.text for m in history])
            await storage.upsert_vectors([(answer.id, "thread-1", "user-42", [0.1, 0.9])])
            print(await storage.query_vectors([0.1, 0.8], resource_id="user-42", top_k=1))
        finally:
            await storage.close()


if __name__ == "__main__":
    asyncio.run(main())
