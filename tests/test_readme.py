"""The README's example runs as written (offline, on the scripted model it builds) and shows
what it says it shows: the redacted answer in both modes, never the rejected attempt."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:  # D31
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert code is not None
    exec(compile(code.group(1), str(README), "exec"), {"__name__": "readme"})
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Order A-1001 has shipped, card [REDACTED]."  # step mode
    assert lines[1] == "Order A-1001 has shipped, card [REDACTED]."  # live, rejected taken back
    assert "Shipped." not in out
    assert "4111" not in out
    assert "stop" in lines[2]
