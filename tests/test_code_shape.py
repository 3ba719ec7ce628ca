"""The shape the code keeps (issues 10 and 22): short, simple functions, no private names
across modules."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "procession"
MAX_LINES = 100
MAX_COMPLEXITY = 25


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(SRC.rglob("*.py"))]


def test_no_function_in_src_is_longer_than_100_lines() -> None:
    long = [
        f"{path.relative_to(SRC)}:{node.lineno} {node.name} ({lines} lines)"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > MAX_LINES
    ]
    assert long == []


def _is_module(package: str, name: str) -> bool:
    folder = SRC.parent.joinpath(*package.split("."))
    return (folder / f"{name}.py").exists() or (folder / name / "__init__.py").exists()


def test_no_module_imports_another_modules_underscore_names() -> None:
    """Private modules expose what others need under public names; importing a private
    module itself is fine, reaching for its underscore names is not."""
    imported = [
        f"{path.relative_to(SRC)}:{node.lineno} {node.module}.{alias.name}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("procession")
        for alias in node.names
        if alias.name.startswith("_")
        and not alias.name.startswith("__")
        and not _is_module(node.module or "", alias.name)
    ]
    assert imported == []


def test_private_modules_expose_a_sorted_all() -> None:
    unsorted = []
    for path, tree in _modules():
        if not path.name.startswith("_") or path.name in ("__init__.py", "__main__.py"):
            continue
        names = next(
            (
                [ast.literal_eval(e) for e in node.value.elts]
                for node in tree.body
                if isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ),
            None,
        )
        if names is None or names != sorted(names):
            unsorted.append(str(path.relative_to(SRC)))
    assert unsorted == []


def test_ruff_keeps_every_function_in_src_at_complexity_25_or_less() -> None:
    """Issue 22's rule, enforced by ruff's mccabe check (C901) on every lint run."""
    pyproject = tomllib.loads((SRC.parents[1] / "pyproject.toml").read_text())
    lint = pyproject["tool"]["ruff"]["lint"]
    assert "C901" in lint["select"]
    assert "C901" not in lint.get("ignore", [])
    assert lint["mccabe"]["max-complexity"] <= MAX_COMPLEXITY
    ignored = {
        pattern
        for pattern, rules in lint.get("per-file-ignores", {}).items()
        if "C901" in rules and pattern.startswith("src")
    }
    assert ignored == set()
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed beside this interpreter")
    checked = subprocess.run(
        [str(ruff), "check", "--select", "C901", "--output-format", "concise", str(SRC)],
        capture_output=True,
        text=True,
        check=False,
        cwd=SRC.parents[1],
    )
    assert checked.returncode == 0, checked.stdout
