"""Fixtures for the scaling tests: a fresh PostgreSQL schema per test (``new_schema``); the
server itself is the suite's ``postgres_dsn`` (``tests/conftest.py``)."""

from __future__ import annotations

from tests.memory.conftest import new_schema

__all__ = ["new_schema"]
