"""MkDocs hooks for the documentation site (``mkdocs.yml``: ``hooks:``).

Three jobs, all at build time and offline:

* **Contract references.** Every ``D12`` in a page's text (and in the API reference's
  docstrings) links to its row in ``contract.md`` (``#d12``); code, headings and existing links
  are left alone.
* **Files outside ``docs/``.** A relative link from a page to a file elsewhere in the repository
  (``../tests/engine/test_retry.py``) works when the Markdown is read in the repository; on the
  site it points at a generated page that shows the file. A link to a file that does not exist
  is left as it is, so MkDocs reports it and ``--strict`` fails.
* **The index of public names.** ``api/index.md`` lists every name the public modules export,
  each a cross-reference to where the reference documents it: a name that is documented
  nowhere is an unresolved reference, which ``--strict`` also fails on.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath
from typing import Any

import griffe
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

__all__ = [
    "ENTRY_MODULES",
    "SOURCE_DIR",
    "contract_rows",
    "link_contract_references",
    "on_config",
    "on_files",
    "on_page_content",
    "on_page_markdown",
    "outside_links",
    "public_names_markdown",
    "source_page",
]

CONTRACT = "contract.md"
SOURCE_DIR = "source"
"""Where the pages showing files from outside ``docs/`` go on the site."""
INDEX_PAGE = "api/index.md"
INDEX_MARKER = "<!-- public-names -->"
ENTRY_MODULES = (
    "procession",
    "procession.processors",
    "procession.models",
    "procession.memory",
    "procession.tools",
    "procession.mcp",
    "procession.testing",
    "procession.server",
    "procession.durable",
    "procession.tracing",
)
"""The modules users import from, in the order the index lists them; a name already listed
for an earlier module (the same object) is not repeated."""

_ROW_ANCHOR = re.compile(r'<a id="d(\d+)"></a>')
_REFERENCE = re.compile(r"\bD(\d{1,3})\b")
_TAG = re.compile(r"(<[^>]*>)")
_SKIP_TAGS = frozenset({"a", "code", "pre", "script", "style", "h1", "h2", "h3", "h4", "h5", "h6"})
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]*)\]\((?P<target>[^)\s]+)\)")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_LANGUAGES = {".py": "python", ".md": "markdown", ".json": "json", ".sh": "bash"}
_LANGUAGES |= {".toml": "toml", ".yml": "yaml", ".yaml": "yaml", ".jsonl": "json"}

_state: dict[str, Any] = {}


def contract_rows(text: str) -> set[int]:
    """The row numbers ``contract.md`` gives an anchor (``<a id="d12"></a>``)."""
    return {int(number) for number in _ROW_ANCHOR.findall(text)}


def link_contract_references(html: str, rows: set[int], contract_url: str) -> str:
    """``html`` with each ``D<n>`` of a known row in its text linked to ``contract_url#d<n>``.

    Text inside links, code, preformatted blocks and headings is not touched.
    """
    pieces = _TAG.split(html)
    skipping: list[str] = []
    for index, piece in enumerate(pieces):
        if piece.startswith("<"):
            _track(piece, skipping)
        elif not skipping and "D" in piece:
            pieces[index] = _REFERENCE.sub(lambda m: _contract_link(m, rows, contract_url), piece)
    return "".join(pieces)


def _track(tag: str, skipping: list[str]) -> None:
    name = tag.strip("</>!").split(None, 1)[0].lower() if len(tag) > 2 else ""
    if name not in _SKIP_TAGS or tag.endswith("/>"):
        return
    if tag.startswith("</"):
        if name in skipping:
            del skipping[len(skipping) - 1 - skipping[::-1].index(name)]
    else:
        skipping.append(name)


def _contract_link(match: re.Match[str], rows: set[int], contract_url: str) -> str:
    number = int(match[1])
    if number not in rows:
        return match[0]
    return f'<a class="contract-row" href="{contract_url}#d{number}">{match[0]}</a>'


def outside_links(markdown: str, page_path: str, docs_dir: Path, root: Path) -> dict[str, str]:
    """The relative links of a page that leave ``docs_dir`` for an existing repository file,
    each mapped to that file's path from the repository root."""
    found: dict[str, str] = {}
    for target in _link_targets(markdown):
        path = target.split("#", 1)[0]
        if not path or "://" in path or path.startswith(("/", "mailto:")):
            continue
        resolved = (docs_dir / posixpath.dirname(page_path) / path).resolve()
        if resolved.is_relative_to(docs_dir) or not resolved.is_relative_to(root):
            continue
        if resolved.is_file():
            found[target] = resolved.relative_to(root).as_posix()
    return found


def _link_targets(markdown: str) -> list[str]:
    targets: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        opened = _FENCE.match(line)
        if opened and (fence is None or opened[1][0] == fence[0]):
            fence = None if fence is not None else opened[1]
            continue
        if fence is None:
            targets.extend(match["target"] for match in _LINK.finditer(line))
    return targets


def source_page(path: str, text: str) -> str:
    """The Markdown of a page showing the repository file ``path``."""
    longest = max((len(run) for run in re.findall(r"~{3,}", text)), default=2)
    fence = "~" * max(3, longest + 1)
    language = _LANGUAGES.get(PurePosixPath(path).suffix, "text")
    return (
        "---\nsearch:\n  exclude: true\n---\n\n"  # Material: keep whole files out of search
        f"# `{path}`\n\n"
        "A file of the repository, outside `docs/`, as it was when this site was built.\n\n"
        f'{fence} {language} linenums="1"\n{text.rstrip()}\n{fence}\n'
    )


def public_names_markdown(package: griffe.Module, modules: tuple[str, ...]) -> str:
    """One section per module in ``modules``: each exported name, linked, with its summary."""
    listed: set[str] = set()
    sections: list[str] = []
    for module_path in modules:
        module = package.modules_collection[module_path]
        lines: list[str] = []
        for name in sorted(map(str, module.exports or ()), key=str.lower):
            if name.startswith("__"):
                continue
            member = module[name]
            target = _final(member)
            key = target.path if target is not None else f"{module_path}.{name}"
            if key in listed:
                continue
            listed.add(key)
            summary = _summary(target)
            lines.append(f"| [`{name}`][{module_path}.{name}] | {summary} |")
        if lines:
            sections.append(
                f"## `{module_path}`\n\n| name | summary |\n| --- | --- |\n" + "\n".join(lines)
            )
    return "\n\n".join(sections) + "\n"


def _final(member: griffe.Object | griffe.Alias) -> griffe.Object | None:
    try:
        target = member.final_target if isinstance(member, griffe.Alias) else member
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    return target if isinstance(target, griffe.Object) else None


def _summary(obj: griffe.Object | None) -> str:
    if obj is None or obj.docstring is None:
        return ""
    first = obj.docstring.value.strip().split("\n\n", 1)[0]
    return " ".join(first.split()).replace("|", "\\|")


# -- the hooks -----------------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Remember where the repository and the contract are."""
    docs_dir = Path(config.docs_dir).resolve()
    contract = docs_dir / CONTRACT
    _state.clear()
    _state["docs_dir"] = docs_dir
    _state["root"] = Path(config.config_file_path).resolve().parent
    _state["rows"] = contract_rows(contract.read_text()) if contract.is_file() else set()
    _state["links"] = {}
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add a page for each repository file outside ``docs/`` that a page links to."""
    docs_dir: Path = _state["docs_dir"]
    root: Path = _state["root"]
    wanted: set[str] = set()
    for file in files.documentation_pages():
        if file.abs_src_path is None:
            continue
        found = outside_links(Path(file.abs_src_path).read_text(), file.src_uri, docs_dir, root)
        _state["links"][file.src_uri] = found
        wanted.update(found.values())
    for path in sorted(wanted):
        text = (root / path).read_text(errors="replace")
        files.append(
            File.generated(
                config,
                f"{SOURCE_DIR}/{path}.md",
                content=source_page(path, text),
                inclusion=InclusionLevel.NOT_IN_NAV,
            )
        )
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point links that leave ``docs/`` at their generated pages; fill the API index."""
    found: dict[str, str] = _state["links"].get(page.file.src_uri, {})
    if found:
        here = posixpath.dirname(page.file.src_uri)

        def relink(match: re.Match[str]) -> str:
            path = found.get(match["target"])
            if path is None:
                return match[0]
            generated = posixpath.relpath(f"{SOURCE_DIR}/{path}.md", here or ".")
            return f"[{match['text']}]({generated})"

        markdown = _LINK.sub(relink, markdown)
    if page.file.src_uri == INDEX_PAGE and INDEX_MARKER in markdown:
        root: Path = _state["root"]
        markup = griffe.load_extensions(
            f"{root / 'scripts/docs/griffe_docstrings.py'}:SphinxMarkup"
        )
        package = griffe.load("procession", search_paths=[str(root / "src")], extensions=markup)
        assert isinstance(package, griffe.Module)
        markdown = markdown.replace(INDEX_MARKER, public_names_markdown(package, ENTRY_MODULES))
    return markdown


def on_page_content(html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Link every ``D<n>`` in the page's text to its contract row."""
    rows: set[int] = _state["rows"]
    contract = files.get_file_from_path(CONTRACT)
    if not rows or contract is None:
        return html
    here = "" if contract is page.file else get_relative_url(contract.url, page.url)
    return link_contract_references(html, rows, here)
