"""Fencing tokens: a turn whose thread lock was lost stores nothing.

A thread lock (:mod:`procession.memory.thread_locks`) can be lost while its turn runs: the
PostgreSQL connection holding the advisory lock drops, PostgreSQL releases the lock, and a
turn on another replica takes the thread. Both turns would then store their messages and
the thread would fork. To close that gap, taking a storage's thread lock also bumps the
thread's row in ``thread_fences`` (one ``token`` per thread, only ever increasing) and keeps
the token it got for the turn (:func:`current_fence`). ``save_turn`` compares that token
with the row's in its own transaction, the row locked: a turn whose token is no longer the
thread's newest (another turn took the thread since), or whose lock connection is known to
be lost, raises :class:`~procession.errors.ThreadLockLostError` and stores nothing (D13).

The same holds for SQLite, where the in-process lock does not reach another process on the
same file: of two turns that took one thread at once, only the later one is stored.
"""

from __future__ import annotations

from contextvars import ContextVar

from procession.errors import ThreadLockLostError

__all__ = ["Fence", "check_fence", "current_fence", "enter_fence", "leave_fence"]


class Fence:
    """The token one turn got when it took its thread (mutable: ``lost`` is set when the
    lock connection drops)."""

    __slots__ = ("lost", "owner", "thread_id", "token")

    def __init__(self, owner: object, thread_id: str, token: int) -> None:
        self.owner = owner
        self.thread_id = thread_id
        self.token = token
        self.lost = False


_FENCE: ContextVar[Fence | None] = ContextVar("procession_thread_fence", default=None)


def enter_fence(fence: Fence) -> object:
    """Make ``fence`` the current turn's (returns what :func:`leave_fence` takes)."""
    return _FENCE.set(fence)


def leave_fence(mark: object) -> None:
    """Undo :func:`enter_fence`."""
    _FENCE.reset(mark)  # type: ignore[arg-type]


def current_fence(owner: object, thread_id: str) -> Fence | None:
    """The fence this turn holds on ``thread_id`` of the storage ``owner``, or ``None`` (the
    caller took no lock, e.g. an in-process call without the server)."""
    fence = _FENCE.get()
    if fence is None or fence.owner is not owner or fence.thread_id != thread_id:
        return None
    return fence


def check_fence(fence: Fence, stored: int | None) -> None:
    """Refuse the turn unless ``stored`` (the thread's token, read in the persist
    transaction) is still the turn's own and its lock was not lost."""
    if fence.lost or stored != fence.token:
        raise ThreadLockLostError(fence.thread_id)
