"""The shape the code keeps (issue 10): short functions, no private names across modules."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "procession"
MAX_LINES = 100


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
