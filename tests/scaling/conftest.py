"""Fixtures for the scaling tests: the storage tests' real PostgreSQL server (``postgres_dsn``:
skipped locally without one, failing in CI) and a fresh schema per test (``new_schema``)."""

from __future__ import annotations

from tests.memory.conftest import new_schema, postgres_dsn

__all__ = ["new_schema", "postgres_dsn"]
