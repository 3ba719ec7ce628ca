"""Embeddings stored as float32 blobs and searched by brute-force cosine similarity.

Neither backend can search vectors in the database here (this Python's ``sqlite3`` cannot load
extensions and Debian 12's PostgreSQL ships without pgvector), so vectors are stored as
little-endian float32 bytes (SQLite ``BLOB``, PostgreSQL ``bytea``) and ranked in the
application: with numpy when it is installed (the ``vectors`` extra), else in pure Python.
"""

from __future__ import annotations

import heapq
import math
import sys
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from procession.errors import StorageError
from procession.memory.storage import VectorHit

__all__ = ["VectorRow", "from_blob", "has_numpy", "rank", "to_blob"]

_NUMPY: list[Any] = []  # filled on first use: numpy costs ~100 ms to import


def _numpy() -> Any:
    if not _NUMPY:
        module: Any
        try:  # pragma: no cover - which branch runs depends on the environment
            import numpy as module
        except ImportError:  # pragma: no cover
            module = None
        _NUMPY.append(module)
    return _NUMPY[0]


def has_numpy() -> bool:
    """Whether vector search runs with numpy (the ``vectors`` extra)."""
    return _numpy() is not None


VectorRow = tuple[str, str, bytes]
"""``(message_id, thread_id, blob)`` as read from storage."""


def to_blob(vector: Sequence[float]) -> bytes:
    """A non-empty vector of finite numbers as little-endian float32 bytes."""
    if isinstance(vector, str | bytes) or len(vector) == 0:
        raise StorageError("a vector must be a non-empty sequence of numbers")
    try:
        values = array("f", vector)
    except TypeError as error:
        raise StorageError(f"a vector must hold numbers: {error}") from None
    if not all(math.isfinite(v) for v in values):
        raise StorageError("a vector must hold finite numbers")
    if values.itemsize != 4:  # pragma: no cover - every supported platform has 4-byte floats
        raise StorageError("float32 arrays are not 4 bytes wide on this platform")
    return _little_endian(values).tobytes()


def from_blob(blob: bytes) -> array[float]:
    """The float32 values of a stored blob."""
    values = array("f")
    values.frombytes(blob)
    return _little_endian(values)


def _little_endian(values: array[float]) -> array[float]:
    if sys.byteorder == "big":  # pragma: no cover
        values.byteswap()
    return values


def rank(
    query: Sequence[float], rows: Iterable[VectorRow], *, top_k: int, threshold: float | None
) -> list[VectorHit]:
    """The ``top_k`` rows most cosine-similar to ``query``, best first.

    Rows whose dimension differs from the query's (left by an earlier embedder) are skipped.
    """
    if top_k <= 0:
        return []
    query_blob = to_blob(query)
    rows = [r for r in rows if len(r[2]) == len(query_blob)]
    if not rows:
        return []
    np = _numpy()
    scores = _scores_numpy(np, query_blob, rows) if np is not None else _scores_python(query, rows)
    hits = (
        VectorHit(row[0], row[1], score)
        for row, score in zip(rows, scores, strict=True)
        if threshold is None or score >= threshold
    )
    return heapq.nlargest(top_k, hits, key=lambda hit: hit.score)


def _scores_numpy(np: Any, query_blob: bytes, rows: list[VectorRow]) -> list[float]:
    query = np.frombuffer(query_blob, dtype="<f4").astype(np.float64)
    matrix = np.frombuffer(b"".join(r[2] for r in rows), dtype="<f4").astype(np.float64)
    matrix = matrix.reshape(len(rows), query.shape[0])
    norms = np.linalg.norm(matrix, axis=1) * np.linalg.norm(query)
    dots = matrix @ query
    scores = np.divide(dots, norms, out=np.zeros_like(dots), where=norms > 0)
    return [float(s) for s in scores]


def _scores_python(query: Sequence[float], rows: list[VectorRow]) -> list[float]:
    q = [float(v) for v in from_blob(to_blob(query))]
    q_norm = math.sqrt(sum(v * v for v in q))
    out: list[float] = []
    for _, _, blob in rows:
        values = from_blob(blob)
        norm = math.sqrt(sum(v * v for v in values)) * q_norm
        out.append(sum(a * b for a, b in zip(q, values, strict=True)) / norm if norm else 0.0)
    return out
