"""The reliability suite: every test body runs under :class:`Guard` (asyncio debug mode; no
pending task, open model stream or running tool call allowed at its end)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import Guard


@pytest.fixture
def guard() -> Iterator[Guard]:
    """A guard for the test's runs; the test must have run at least one body under it."""
    checked = Guard()
    yield checked
    assert checked.runs > 0, "a reliability test runs its bodies through guard.run()"
