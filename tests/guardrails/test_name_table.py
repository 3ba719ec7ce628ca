"""The guardrail library's one name table (issue 22): each built-in named once in the sources.

``procession.guardrails.NAMES`` names each public name with its module. The ``TYPE_CHECKING``
block beside it (for the type checker) must say the same; no other package file writes the
names again, and nothing in ``src`` imports a deprecated path.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import procession.guardrails as guardrails

SRC = Path(__file__).resolve().parents[2] / "src" / "procession"
TABLE_FILE = SRC / "guardrails" / "__init__.py"
SHIM = SRC / "processors" / "builtin" / "__init__.py"


def _type_checking_block(tree: ast.Module) -> ast.If:
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
        if node.test.id == "TYPE_CHECKING"
        and node.body
        and isinstance(node.body[0], ast.ImportFrom)
    ]
    assert len(blocks) == 1
    return blocks[0]


def test_the_type_checking_block_is_the_table() -> None:
    block = _type_checking_block(ast.parse(TABLE_FILE.read_text()))
    seen: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name}: re-export it as itself"
            seen[alias.name] = (node.module or "").removeprefix("procession.guardrails.")
    assert seen == guardrails.NAMES


def _mentions(tree: ast.AST, names: set[str]) -> Counter[str]:
    counted: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in names:
            counted[str(node.value)] += 1
        elif isinstance(node, ast.Name) and node.id in names:
            counted[node.id] += 1
        elif isinstance(node, ast.alias) and (node.asname or node.name) in names:
            counted[node.asname or node.name] += 1
    return counted


def test_each_built_in_is_named_once_in_the_package_files() -> None:
    names = set(guardrails.NAMES)
    counted: Counter[str] = Counter()
    for path in SRC.rglob("__init__.py"):
        tree = ast.parse(path.read_text())
        if path == TABLE_FILE:
            tree.body.remove(_type_checking_block(tree))  # checked equal to the table above
        counted += _mentions(tree, names)
    assert len(names) > 40
    assert {n: c for n, c in counted.items() if c != 1} == {}
    assert set(counted) == names


def test_nothing_in_src_imports_a_deprecated_path() -> None:
    names = set(guardrails.NAMES)
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SHIM:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
                if node.module == "procession.processors":
                    modules += [f"procession.processors.{a.name}" for a in node.names]
            else:
                continue
            for module in modules:
                old = module.startswith("procession.processors.builtin") or (
                    module.removeprefix("procession.processors.") in names
                )
                if old:
                    found.append(f"{path.relative_to(SRC)}:{node.lineno} {module}")
    assert found == []
