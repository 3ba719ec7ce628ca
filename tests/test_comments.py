"""Comments say the rule where the code relies on it (issue 22): a comment or docstring that
cites a contract row also says the rule in words; the row number may follow, not replace it.

The counting is ``scripts/bare_rows.py`` (run it to see the figures); ``processors/`` is left
out while the built-ins move to ``procession.guardrails``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    """``scripts/bare_rows.py``, by path (``scripts`` is not a package)."""
    path = ROOT / "scripts" / "bare_rows.py"
    spec = importlib.util.spec_from_file_location("bare_rows", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bare_rows = _load()


def test_no_comment_outside_processors_is_only_row_numbers() -> None:
    found = bare_rows.scan(ROOT / "src" / "procession")
    assert len(found) > 100  # the scan reads the code's comments and docstrings at all
    assert [f"{r.path.relative_to(ROOT)}:{r.line}: {r.text}" for r in found if r.bare] == []


def test_bare_references_are_told_from_rules_in_words(tmp_path: Path) -> None:
    (tmp_path / "processors").mkdir()
    (tmp_path / "processors" / "skipped.py").write_text("x = 1  # D4\n")
    (tmp_path / "code.py").write_text(
        '"""A module. It follows D1-D6. Rows D1-D6."""\n'
        "\n"
        "LIMIT = 3\n"
        '"""(D35)."""\n'
        "\n"
        "\n"
        "def f() -> None:\n"
        '    """Nothing of a blocked run is stored (D13). See D12\'s rule."""\n'
        "    x = 1  # D23\n"
        "    y = 2  # the text after every hook ran (D23)\n"
        "    z = 3  # a D-row free comment\n"
    )
    found = bare_rows.scan(tmp_path)
    assert sorted((r.line, r.text) for r in found if r.bare) == [
        (1, "Rows D1-D6."),
        (4, "(D35)."),
        (8, "See D12's rule."),
        (9, "D23"),
    ]
    assert sorted((r.line, r.thin) for r in found if not r.bare) == [
        (1, True),
        (8, False),
        (10, False),
    ]
    assert bare_rows.words_besides_rows("options are checked now (D35)") == 4
