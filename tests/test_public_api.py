"""The package root re-exports the public names, sorted, and importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import procession
import procession.messages
import procession.processors


def test_all_is_sorted_unique_and_resolvable() -> None:
    names = list(procession.__all__)
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(procession, name), name


def test_public_names_of_the_subpackages_are_at_the_root() -> None:
    wanted = set(procession.messages.__all__) | {
        n for n in procession.processors.__all__ if not n.isupper() and n != "implemented_hooks"
    }
    missing = sorted(wanted - set(procession.__all__))
    assert missing == []


def test_import_loads_no_optional_dependency() -> None:
    code = (
        "import sys, procession; "
        "print(sorted(m for m in ('pydantic', 'numpy', 'asyncpg', 'openai', 'anthropic', "
        "'httpx2', 'llama_cpp', 'rich', 'procession.memory.sqlite', 'sqlite3', 'mcp', "
        "'docstring_parser') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
