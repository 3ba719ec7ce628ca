"""Turns stored at most once per key: what makes a durable run's commit exactly-once (D13).

A durable runner checkpoints the commit of a completed run (``Journal.once``), but a worker
can die after the turn was stored and before the checkpoint was: the run is then executed
again and commits again. Inside :func:`commit_once`, a storage's ``save_turn`` records the
key in the same transaction as the turn and skips a turn whose key is already recorded, so
the second commit stores nothing. Both built-in storages honour it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from procession.errors import ConfigurationError

__all__ = ["commit_once", "current_commit_key"]

_KEY: ContextVar[str | None] = ContextVar("procession_commit_key", default=None)


@contextlib.contextmanager
def commit_once(key: str) -> Iterator[None]:
    """Within this block, ``save_turn`` stores a turn only if no turn under ``key`` was
    stored before (checked and recorded in the turn's own transaction)."""
    if not isinstance(key, str) or not key:
        raise ConfigurationError(f"commit_once: key must be a non-empty string (got {key!r})")
    token = _KEY.set(key)
    try:
        yield
    finally:
        _KEY.reset(token)


def current_commit_key() -> str | None:
    """The key of the enclosing :func:`commit_once` block, or ``None``."""
    return _KEY.get()
