"""The README's example runs as written (on a scripted model registered under its model id)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from procession import register_model
from procession.testing import Reply, ScriptedModel, ToolCallScript

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:  # D31
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert code is not None
    call = Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})])
    rejected = Reply(text=["Shipped."])  # NotTooShort asks for a retry
    answer = Reply(text=["Order A-1001 ", "has shipped, card 4111 1111 1111 1111."])
    model = ScriptedModel([call, rejected, answer] * 3)
    register_model("openai/gpt-5-mini", model)
    try:
        exec(compile(code.group(1), str(README), "exec"), {"__name__": "readme"})
    finally:
        register_model("openai/gpt-5-mini", None)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Order A-1001 has shipped, card [REDACTED]."  # step mode
    assert lines[1] == "Order A-1001 has shipped, card [REDACTED]."  # live, rejected taken back
    assert "Shipped." not in out
    assert "4111" not in out
    assert "stop" in lines[2]
