"""The version lives in one module: the root, the CLI, Studio and the build all read it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import procession
from procession import _version

ROOT = Path(__file__).resolve().parents[1]


def test_the_root_re_exports_the_version_module_value() -> None:
    assert procession.__version__ is _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|a\d+|b\d+|rc\d+)?", procession.__version__)


def test_the_build_reads_the_version_from_the_module() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert "version" in pyproject["project"]["dynamic"]
    path = ROOT / pyproject["tool"]["hatch"]["version"]["path"]
    assert path.resolve() == Path(_version.__file__).resolve()
    # hatchling's default pattern: one `__version__ = "..."` line in the file
    found = re.findall(r'^__version__ = "([^"]+)"$', path.read_text(), re.MULTILINE)
    assert found == [procession.__version__]
