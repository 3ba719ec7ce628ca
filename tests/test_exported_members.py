"""The guardrail library's names, one table, tested (httpx's ``test_exported_members`` style).

Every name in ``procession.guardrails.NAMES`` is importable from ``procession.guardrails`` and
from the package root, ``__all__`` is the table, each class and function says it lives under
``procession.guardrails``, and every module path the docs show imports. The old paths
(``procession.processors.builtin`` and its submodules, the built-in names read from
``procession.processors``) still work for one release, each with a ``DeprecationWarning`` that
names the new path.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import procession
import procession.guardrails as guardrails
from procession.processors.builtin import MOVED

DOCS = Path(__file__).resolve().parents[1] / "docs"
TABLE = sorted(guardrails.NAMES)


def test_all_is_the_table() -> None:
    assert guardrails.__all__ == TABLE
    assert set(TABLE) <= set(procession.__all__)


@pytest.mark.parametrize("name", TABLE)
def test_each_name_is_importable_from_the_package_and_the_root(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = getattr(guardrails, name)
        assert getattr(procession, name) is value
        module = importlib.import_module(f"procession.guardrails.{guardrails.NAMES[name]}")
    assert getattr(module, name) is value


@pytest.mark.parametrize("name", TABLE)
def test_each_class_and_function_lives_under_the_guardrails(name: str) -> None:
    value = getattr(guardrails, name)
    if isinstance(value, type) or (callable(value) and hasattr(value, "__qualname__")):
        assert value.__module__.startswith("procession.guardrails."), value.__module__


@pytest.mark.parametrize("name", TABLE)
def test_old_package_paths_warn_and_forward(name: str) -> None:
    import procession.processors as processors
    import procession.processors.builtin as builtin

    value = getattr(guardrails, name)
    with pytest.warns(DeprecationWarning, match=rf"use procession\.guardrails\.{name}\b"):
        assert getattr(builtin, name) is value
    with pytest.warns(DeprecationWarning, match=rf"use procession\.guardrails\.{name}\b"):
        assert getattr(processors, name) is value


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_submodules_warn_and_forward(old: str) -> None:
    new = importlib.import_module(MOVED[old])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the import's own warning: below
        shim = importlib.import_module(f"procession.processors.builtin.{old}")
    assert shim is not new
    public = sorted(n for n in vars(new) if not n.startswith("_"))
    name = public[0]
    with pytest.warns(DeprecationWarning, match=re.escape(f"use {MOVED[old]}.{name}")):
        assert getattr(shim, name) is getattr(new, name)
    with pytest.raises(AttributeError):
        getattr(shim, "no_such_name")  # noqa: B009


def test_importing_an_old_submodule_warns_with_the_new_path() -> None:
    code = (
        "import warnings; warnings.simplefilter('error'); "
        "import procession.processors.builtin.phones"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode != 0
    assert "procession.guardrails._redaction.phones" in run.stderr


def _api_paths() -> list[str]:
    return sorted(
        {
            m.group(1)
            for page in (DOCS / "api").glob("*.md")
            for m in re.finditer(r"^::: ([\w.]+)", page.read_text(), re.M)
        }
    )


def _resolve(path: str) -> object:
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            value = getattr(value, attr)
        return value
    raise AssertionError(f"{path}: no module")


@pytest.mark.parametrize("path", _api_paths())
def test_every_path_in_the_api_pages_resolves_without_a_warning(path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _resolve(path)


def _doc_imports() -> list[str]:
    found: set[str] = set()
    for page in DOCS.rglob("*.md"):
        if "decisions" in page.parts:
            continue
        for block in re.findall(r"```python\n(.*?)```", page.read_text(), re.S):
            try:
                tree = ast.parse(block)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "procession"
                ):
                    found.update(f"{node.module}.{alias.name}" for alias in node.names)
                elif isinstance(node, ast.Import):
                    found.update(a.name for a in node.names if a.name.startswith("procession"))
    return sorted(found)


def test_the_docs_show_imports() -> None:
    assert any(p.startswith("procession.guardrails") or ".guardrails" in p for p in _doc_imports())


@pytest.mark.parametrize("path", _doc_imports())
def test_every_import_the_docs_show_works_without_a_warning(path: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _resolve(path)


def test_the_classifier_heads_sit_inside_the_package_so_the_wheel_ships_them() -> None:
    import tomllib

    from procession.guardrails._injection.injection_classifier import HEAD_PATH

    root = Path(__file__).resolve().parents[1]
    wheel = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["hatch"]["build"]
    assert wheel["targets"]["wheel"]["packages"] == ["src/procession"]
    package = Path(guardrails.__file__).resolve().parent
    heads = sorted(package.rglob("*.npz"))
    assert HEAD_PATH.resolve() in heads
    assert {p.name for p in heads} >= {
        "injection_head.npz",
        "moderation_harassment_head.npz",
        "moderation_self_harm_head.npz",
        "moderation_threat_head.npz",
    }
