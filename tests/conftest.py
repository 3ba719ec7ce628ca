"""Suite-wide settings."""

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
