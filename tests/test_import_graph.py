"""No import circle among procession's modules (issue 22's acceptance rule).

Every module under ``src/procession`` is parsed with :mod:`ast`; its runtime imports are the
ones at module level and inside functions and classes. Imports under ``if TYPE_CHECKING:`` are
the type checker's and are left out (their ``else:`` branch runs, so it counts). An import
names the module it loads: ``from a.b import c`` is ``a.b.c`` when that is a module, ``a.b``
otherwise. A circle is a strongly connected set of two or more modules; each one found is
named with one path around it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

KNOWN_CYCLES: tuple[frozenset[str], ...] = ()
"""Circles that are known and scheduled for removal, each as the set of its modules."""


def module_files(root: Path) -> dict[str, Path]:
    """Every module under ``root`` (a ``src`` folder) by its dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for branch in node.orelse:
                yield from _runtime_imports(ast.Module(body=[branch], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _runtime_imports(node)


def _base(name: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, *([node.module] if node.module else [])])


def _targets(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    targets: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = _base(name, path, node)
        for alias in node.names:
            targets.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {t for t in targets if t in modules and t != name}


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module's runtime imports of other modules under ``root``."""
    modules = module_files(root)
    return {name: _targets(name, path, modules) for name, path in modules.items()}


def circles(graph: Mapping[str, set[str]]) -> list[set[str]]:
    """The strongly connected sets of two or more modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
            elif step not in index:
                index[step] = low[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph[step]))))
            elif step in on_stack:
                low[node] = min(low[node], index[step])
    return found


def path_around(graph: Mapping[str, set[str]], component: set[str]) -> list[str]:
    """One circle through the component's first module: ``a -> b -> ... -> a``."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for step in sorted(graph[node] & component):
                if step == start:
                    back = [node]
                    while back[-1] != start:
                        back.append(parents[back[-1]])
                    return [*reversed(back), start]
                if step not in parents:
                    parents[step] = node
                    following.append(step)
        frontier = following
    raise AssertionError(f"{sorted(component)} is not a circle")


def _write(root: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_graph_counts_imports_in_functions_and_leaves_out_type_checking(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    from pkg import b\n",
            "pkg/b.py": "from .c import thing\n",
            "pkg/c.py": "class C:\n    def m(self):\n        import pkg.a\n",
            "pkg/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.e\n",
            "pkg/e.py": (
                "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    import pkg.d\n"
            ),
        },
    )
    graph = import_graph(tmp_path)
    assert graph["pkg.a"] == {"pkg.b"}
    assert graph["pkg.b"] == {"pkg.c"}
    assert graph["pkg.e"] == {"pkg.d"}
    assert graph["pkg.d"] == set()
    assert circles(graph) == [{"pkg.a", "pkg.b", "pkg.c"}]
    assert path_around(graph, {"pkg.a", "pkg.b", "pkg.c"}) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]


def test_no_import_circle_among_runtime_imports() -> None:
    graph = import_graph(SRC)
    assert "procession.agent" in graph
    found = [
        " -> ".join(path_around(graph, component))
        for component in circles(graph)
        if not any(component <= known for known in KNOWN_CYCLES)
    ]
    assert found == []
