"""Unit tests mirror the code's folders (issue 22; the rule is in ``tests/README.md``).

Each folder under ``tests/`` is either the unit tests of the package of the same name under
``src/procession/`` (``tests/engine/`` for the private ``_engine/``: a test folder drops the
underscore), or one of the suites that cut across the layers, listed here and in the README.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SRC = TESTS.parent / "src" / "procession"

CROSS_CUTTING = frozenset(
    {"conformance", "contract", "data", "js", "reliability", "scaling", "server_clients", "studio"}
)
"""Suites that test the whole runtime rather than one package: they keep folders of their own."""

PENDING: frozenset[str] = frozenset()
"""Test folders whose package is being moved into place on another branch (none now)."""


def folders_in(root: Path) -> list[str]:
    """The folders directly under a tests folder (caches and dot-folders left out)."""
    return sorted(
        path.name
        for path in root.iterdir()
        if path.is_dir() and not path.name.startswith((".", "__")) and path.name != "node_modules"
    )


def code_folder(src: Path, name: str) -> Path | None:
    """The package a test folder mirrors: ``src/<name>/`` or, private, ``src/_<name>/``."""
    for candidate in (src / name, src / f"_{name}"):
        if (candidate / "__init__.py").exists():
            return candidate
    return None


def strays(tests: Path, src: Path) -> list[str]:
    """Test folders with no package of their name that are not a cross-cutting suite."""
    return [
        name
        for name in folders_in(tests)
        if name not in CROSS_CUTTING | PENDING and code_folder(src, name) is None
    ]


def test_every_test_folder_mirrors_a_package_or_is_a_cross_cutting_suite() -> None:
    assert strays(TESTS, SRC) == []


def test_a_new_folder_without_a_package_is_caught(tmp_path: Path) -> None:
    src = tmp_path / "src"
    for package in ("memory", "_engine"):
        (src / package).mkdir(parents=True)
        (src / package / "__init__.py").write_text("")
    (src / "empty").mkdir()  # a folder that is not a package mirrors nothing
    tests = tmp_path / "tests"
    for folder in ("memory", "engine", "contract", "loop", "empty", "__pycache__"):
        (tests / folder).mkdir(parents=True)
    assert strays(tests, src) == ["empty", "loop"]


def test_pending_folders_are_still_pending() -> None:
    """An entry whose package has landed is stale: the folder now mirrors it."""
    assert [name for name in PENDING if code_folder(SRC, name) is not None] == []


def test_the_readme_lists_every_cross_cutting_suite() -> None:
    readme = (TESTS / "README.md").read_text()
    listed = set(re.findall(r"^\| `tests/([a-z_]+)/` \|", readme, flags=re.MULTILINE))
    assert listed == CROSS_CUTTING
