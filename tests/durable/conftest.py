"""The storage tests' PostgreSQL fixtures (``postgres_dsn``, ``new_schema``)."""

from __future__ import annotations

from tests.memory.conftest import new_schema, postgres_dsn

__all__ = ["new_schema", "postgres_dsn"]
