"""The contract kit on every shipped backend, and the kit catching broken backends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from procession.errors import InvalidRecordError
from procession.memory.sqlite import SQLiteStorage
from procession.memory.storage import Storage
from procession.messages.message import Message
from procession.testing import StorageContractError, check_storage
from procession.testing.storage_contract import CHECKS


@pytest.mark.asyncio
async def test_backend_passes_the_contract(storage_factory: Callable[[], Storage]) -> None:
    report = await check_storage(storage_factory)
    assert "isolation" in report.passed
    assert "concurrent_one_thread" in report.passed
    assert report.passed == [name for name, _ in CHECKS]


@pytest.mark.asyncio
async def test_async_factory_is_accepted(tmp_path: Path) -> None:
    async def factory() -> Storage:
        return SQLiteStorage(tmp_path / "a.db")

    report = await check_storage(factory)
    assert report.passed[0] == "threads"


class NewestFirst(SQLiteStorage):
    """Returns history in the wrong order."""

    async def list_messages(
        self,
        thread_id: str,
        *,
        resource_id: str,
        last: int | None = None,
        before: datetime | str | None = None,
    ) -> list[Message]:
        got = await super().list_messages(
            thread_id, resource_id=resource_id, last=last, before=before
        )
        return got[::-1]


class LeakyThreads(SQLiteStorage):
    """Hands out any thread to anyone."""

    async def get_thread(self, thread_id: str, *, resource_id: str) -> Any:
        conn = self._conn
        assert conn is not None
        row = conn.execute("SELECT resource_id FROM threads WHERE id = ?", (thread_id,)).fetchone()
        if row is None:
            return None
        return await super().get_thread(thread_id, resource_id=row[0])


class Mover(SQLiteStorage):
    """Moves a message saved into another thread (procession did until D34)."""

    async def save_turn(
        self, thread_id: str, resource_id: str, messages: Sequence[Message], **kw: Any
    ) -> None:
        ids = [m.id for m in messages if isinstance(m, Message)]
        found = await self.get_messages_by_ids(ids, resource_id=resource_id)
        await self.delete_messages(
            [m.id for m in found if m.thread_id != thread_id], resource_id=resource_id
        )
        await super().save_turn(thread_id, resource_id, messages, **kw)

    async def check_message_ids(self, *args: Any, **kw: Any) -> None:
        return None


class Lenient(SQLiteStorage):
    """Quietly drops a turn it cannot store instead of refusing it."""

    async def save_turn(self, *args: Any, **kw: Any) -> None:
        try:
            await super().save_turn(*args, **kw)
        except InvalidRecordError:
            return


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (NewestFirst, "round_trip"),
        (LeakyThreads, "isolation"),
        (Mover, "upsert"),  # D34
        (Lenient, "invalid_records"),  # D30, D34
    ],
)
async def test_the_kit_catches_a_broken_backend(
    broken: type[SQLiteStorage], check: str, tmp_path: Path
) -> None:
    with pytest.raises(StorageContractError, match=rf"check_storage\[{check}\]"):
        await check_storage(lambda: broken(tmp_path / "b.db"))
