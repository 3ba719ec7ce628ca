"""The documentation: contract references resolve, links point at files, pages are in the nav,
public names have docstrings, and the site's helpers do what mkdocs.yml relies on.

The site itself is built with ``mkdocs build --strict`` by ``scripts/test.sh``; these tests are
the fast part of the same guarantees, run with the rest of the suite.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import griffe
import pytest
from mkdocs.utils.yaml import yaml_load

from procession import register_model
from procession.testing import Reply, ScriptedModel

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CONTRACT = DOCS / "contract.md"
CITED_IN = ("src", "tests", "docs", "bench", "README.md", "CHANGELOG.md")
_SKIP_DIRS = {"__pycache__", ".venvs", ".oracle", "node_modules"}
ROW = re.compile(r"\bD(\d+)\b")
# tests/conformance/test_compare.py feeds the comparator a rule named after a row that does not
# exist, to check that unknown rules are refused.
DELIBERATELY_UNKNOWN = {("tests/conformance/test_compare.py", 99)}
UNKNOWN = "D" + "99"  # written so, this file cites no row that does not exist
LINK = re.compile(r"(?<!!)\[[^\]\n]*\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def _load(name: str) -> ModuleType:
    """A helper module of ``scripts/docs`` (not a package: mkdocs loads them by path)."""
    path = ROOT / "scripts" / "docs" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"docs_{name}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


hooks = _load("mkdocs_hooks")
docstrings = _load("griffe_docstrings")


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    """procession as griffe reads it statically (the API reference's view); read only."""
    loaded = griffe.load("procession", search_paths=[str(ROOT / "src")])
    assert isinstance(loaded, griffe.Module)
    return loaded


def _rows() -> set[int]:
    rows: set[int] = hooks.contract_rows(CONTRACT.read_text())
    return rows


def _citations() -> dict[int, list[str]]:
    cited: dict[int, list[str]] = {}
    for top in CITED_IN:
        paths = [ROOT / top] if (ROOT / top).is_file() else sorted((ROOT / top).rglob("*"))
        for path in paths:
            if path.suffix not in (".py", ".md") or _SKIP_DIRS & set(path.parts):
                continue
            where = path.relative_to(ROOT).as_posix()
            for number in {int(n) for n in ROW.findall(path.read_text())}:
                if (where, number) not in DELIBERATELY_UNKNOWN:
                    cited.setdefault(number, []).append(where)
    return cited


def _markdown_files() -> list[Path]:
    return [*sorted(DOCS.rglob("*.md")), ROOT / "README.md"]


def _links(path: Path) -> list[str]:
    """Inline link targets of a Markdown file, outside fenced code."""
    targets: list[str] = []
    fence: str | None = None
    for line in path.read_text().splitlines():
        opened = FENCE.match(line)
        if opened and (fence is None or opened[1][0] == fence[0]):
            fence = None if fence is not None else opened[1]
            continue
        if fence is None:
            targets += [m["target"] for m in LINK.finditer(re.sub(r"`[^`]*`", "", line))]
    return targets


# -- the contract --------------------------------------------------------------------------------


def test_every_cited_row_is_written_out_in_the_contract() -> None:
    cited = _citations()
    assert len(cited) >= 30  # the scan finds the citations at all
    missing = {f"D{n}": files for n, files in cited.items() if n not in _rows()}
    assert missing == {}


def test_the_contract_has_rows_one_to_thirty_five_each_with_its_heading() -> None:
    text = CONTRACT.read_text()
    assert _rows() == set(range(1, 36))
    for number in range(1, 36):
        assert re.search(rf'<a id="d{number}"></a>\n\n## D{number} · \S', text), f"D{number}"


def test_each_row_says_how_mastra_differs_and_where_it_is_tested() -> None:
    sections = re.split(r'<a id="d\d+"></a>', CONTRACT.read_text())[1:]
    assert len(sections) == 35
    for number, section in enumerate(sections, 1):
        assert "*Mastra 1.71:*" in section, f"D{number}"
        assert "*Tested in:*" in section, f"D{number}"


def test_an_unknown_row_would_be_reported(tmp_path: Path) -> None:
    page = tmp_path / "contract.md"
    page.write_text('<a id="d1"></a>\n\n## D1 · one\n\n<a id="d3"></a>\n\n## D3 · three\n')
    assert hooks.contract_rows(page.read_text()) == {1, 3}
    assert 2 not in hooks.contract_rows(page.read_text())


# -- links and pages -----------------------------------------------------------------------------


def test_every_relative_link_points_at_a_file_that_exists() -> None:
    broken: list[str] = []
    checked = 0
    for page in _markdown_files():
        for target in _links(page):
            path, _, anchor = target.partition("#")
            if "://" in target or target.startswith(("mailto:", "#")):
                continue
            checked += 1
            resolved = (page.parent / path).resolve()
            if not resolved.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif resolved == CONTRACT and anchor and not re.fullmatch(r"d\d+", anchor):
                broken.append(f"{page.relative_to(ROOT)}: {target} (rows are #d<n>)")
            elif resolved == CONTRACT and anchor and int(anchor[1:]) not in _rows():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert checked > 100
    assert broken == []


def test_every_page_is_in_the_nav_and_every_record_in_the_records_index() -> None:
    config = yaml_load((ROOT / "mkdocs.yml").read_text())

    def pages(entries: list[object]) -> set[str]:
        found: set[str] = set()
        for entry in entries:
            values = entry.values() if isinstance(entry, dict) else [entry]
            for value in values:
                found |= pages(value) if isinstance(value, list) else {str(value)}
        return found

    in_nav = pages(config["nav"])
    records = {p.relative_to(DOCS).as_posix() for p in DOCS.glob("decisions/0*.md")}
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert sorted(on_disk - records - in_nav) == []
    assert sorted(in_nav - on_disk) == []
    index = (DOCS / "decisions" / "README.md").read_text()
    assert sorted(r for r in records if f"]({r.removeprefix('decisions/')})" not in index) == []


def test_the_home_page_example_runs() -> None:
    code = re.search(r"```python\n(.*?)```", (DOCS / "index.md").read_text(), re.S)
    assert code is not None
    model = ScriptedModel([Reply(text=["Order A-1001 shipped; card 4111 1111 1111 1111."])])
    register_model("local/smollm2", model)
    try:
        namespace: dict[str, object] = {"__name__": "docs_index"}
        exec(compile(code.group(1), str(DOCS / "index.md"), "exec"), namespace)
    finally:
        register_model("local/smollm2", None)
    text = getattr(namespace["result"], "text", None)
    assert text == "Order A-1001 shipped; card [REDACTED]."


# -- docstrings ----------------------------------------------------------------------------------


def test_every_public_name_of_procession_has_a_docstring(package: griffe.Module) -> None:
    missing = docstrings.missing_docstrings(package, ("procession.cli",))
    assert [f"{m.relative_filepath}:{m.lineno} {m.path}" for m in missing] == []


def test_a_missing_docstring_is_found_wherever_the_public_name_is_defined(
    tmp_path: Path,
) -> None:
    package = tmp_path / "pkg"
    (package / "_impl").mkdir(parents=True)
    (package / "internal").mkdir()
    (package / "__init__.py").write_text(
        '"""A package."""\n'
        "from pkg._impl.things import Shown, documented\n"
        '__all__ = ["Shown", "documented", "LIMIT"]\n'
        "LIMIT = 3\n"
    )
    (package / "_impl" / "__init__.py").write_text("")
    (package / "_impl" / "things.py").write_text(
        "class Shown:\n"
        "    size = 1\n"
        "    def method(self) -> None: ...\n"
        "    def _private(self) -> None: ...\n"
        "    def __repr__(self) -> str: return ''\n"
        "    @property\n"
        "    def area(self) -> int:\n"
        '        """The area."""\n'
        "        return 1\n"
        "def documented() -> None:\n"
        '    """Documented."""\n'
        "def hidden() -> None: ...\n"
    )
    (package / "internal" / "__init__.py").write_text("def helper() -> None: ...\n")
    loaded = griffe.load("pkg", search_paths=[str(tmp_path)])
    assert isinstance(loaded, griffe.Module)

    missing = docstrings.missing_docstrings(loaded, ("pkg.internal",))
    assert [m.path for m in missing] == [
        "pkg.LIMIT",
        "pkg._impl.things.Shown",
        "pkg._impl.things.Shown.method",
    ]
    with_internal = docstrings.missing_docstrings(loaded, ())
    assert {m.path for m in with_internal} - {m.path for m in missing} == {
        "pkg.internal",
        "pkg.internal.helper",
    }


def test_rest_roles_become_optional_references_and_literal_markers_colons(
    package: griffe.Module,
) -> None:
    scope = package["models.google"]
    text = (
        "Uses :class:`GoogleModel` and :func:`~procession.models.resolve_model`.\n"
        "For example::\n\n    code\n\n::\n\n    more code"
    )
    out = docstrings.rest_to_markdown(text, scope)
    assert '<autoref identifier="procession.models.google._model.GoogleModel" optional>' in out
    assert "<code>GoogleModel</code>" in out
    assert '<autoref identifier="procession.models.resolve_model" optional>' in out
    assert "<code>resolve_model</code>" in out
    assert "For example:\n" in out
    assert "::" not in out


# -- the site's hooks ----------------------------------------------------------------------------


def test_contract_references_are_linked_outside_code_links_and_headings() -> None:
    html = (
        f'<h2 id="x">D12 in a heading</h2><p>See D12, D13 and {UNKNOWN}.</p>'
        "<p><code>D12</code> <a href='#y'>D12</a> <pre><span>D12</span></pre> D1D2</p>"
    )
    out = hooks.link_contract_references(html, {12, 13}, "../contract/")
    assert UNKNOWN in out
    assert out.count('href="../contract/#d12"') == 1
    assert out.count('href="../contract/#d13"') == 1
    assert out.count("href=") == 3  # the two rows, and the link that was there
    assert '<h2 id="x">D12 in a heading</h2>' in out
    assert "<code>D12</code>" in out
    assert "<span>D12</span>" in out
    assert "D1D2" in out


def test_links_that_leave_docs_are_found_and_shown_as_source_pages(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("x = '~~~~'\n")
    page = (
        "[a test](../../tests/test_x.py) [a page](other.md) [gone](../../tests/nope.py)\n"
        "```\n[in code](../../tests/test_x.py#L1)\n```\n[web](https://example.org/x)\n"
    )
    found = hooks.outside_links(page, "guide/page.md", docs, tmp_path)
    assert found == {"../../tests/test_x.py": "tests/test_x.py"}

    shown = hooks.source_page("tests/test_x.py", (tmp_path / "tests" / "test_x.py").read_text())
    assert "\n# `tests/test_x.py`\n" in shown
    assert shown.startswith("---\nsearch:\n  exclude: true\n---\n")
    assert "~~~~~ python linenums=\"1\"\nx = '~~~~'\n~~~~~\n" in shown


def test_the_api_index_lists_every_exported_name_once(package: griffe.Module) -> None:
    index = hooks.public_names_markdown(package, hooks.ENTRY_MODULES)
    listed = re.findall(r"\]\[([\w.]+)\]", index)
    assert len(listed) == len(set(listed))
    listed_objects: set[str] = set()
    for reference in listed:
        module, _, name = reference.rpartition(".")
        listed_objects.add(_final_path(package.modules_collection[module][name]))
    for module in hooks.ENTRY_MODULES:
        exports = package.modules_collection[module].exports or ()
        for name in map(str, exports):
            if not name.startswith("__"):
                member = package.modules_collection[module][name]
                assert _final_path(member) in listed_objects, f"{module}.{name}"


def _final_path(member: griffe.Object | griffe.Alias) -> str:
    return member.final_target.path if isinstance(member, griffe.Alias) else member.path
