"""Suite-wide settings, and the PostgreSQL server every backend test shares."""

import asyncio
import os

import pytest
from hypothesis import settings

# The CI machine is shared and small: a property test must not fail because one example hit a
# collector pause, so examples get no deadline (their count still bounds the run).
settings.register_profile("procession", deadline=None)
settings.load_profile("procession")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--needs-loop`` runs the tests skipped as ``needs loop: ...`` (they fail until the
    loop does what their reason says; the lead runs them to check a loop change)."""
    parser.addoption(
        "--needs-loop",
        action="store_true",
        help="run the tests skipped with a 'needs loop:' reason",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--needs-loop``, drop the ``needs loop`` skip marks so those tests run."""
    if not config.getoption("--needs-loop"):
        return
    for item in items:
        marks = [m for m in item.own_markers if m.name == "skip"]
        if any(str(m.kwargs.get("reason", "")).startswith("needs loop") for m in marks):
            item.own_markers[:] = [m for m in item.own_markers if m not in marks]


async def _server_answers(dsn: str) -> bool:
    import asyncpg  # imported here: the provider floor tests run without the memory extras

    try:
        conn = await asyncpg.connect(dsn, timeout=5)
    except (OSError, asyncpg.PostgresError, TimeoutError):
        return False
    await conn.close()
    return True


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    """A DSN of a running PostgreSQL server, from ``PROCESSION_TEST_POSTGRES_DSN`` or the
    ``.pgdata/dsn`` that ``scripts/services.sh`` wrote (skip locally without one; fail in CI)."""
    from tests.memory.crash_harness import find_dsn

    dsn = find_dsn()
    if dsn is not None and asyncio.run(_server_answers(dsn)):
        return dsn
    problem = (
        "no PostgreSQL server: set PROCESSION_TEST_POSTGRES_DSN or run scripts/services.sh"
        if dsn is None
        else "the PostgreSQL server in the test DSN does not answer"
    )
    if os.environ.get("CI") or os.environ.get("PROCESSION_TEST_POSTGRES_DSN"):
        pytest.fail(problem)
    pytest.skip(problem)
