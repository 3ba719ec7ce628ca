"""The README's example runs as written (on a scripted model registered under its model id)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from procession import register_model
from procession.testing import Reply, ScriptedModel, ToolCallScript

README = Path(__file__).resolve().parents[1] / "README.md"


def _run_readme(model: ScriptedModel) -> None:
    """Run the README's example with ``model`` behind its model id."""
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S)
    assert code is not None
    register_model("openai/gpt-5-mini", model)
    try:
        exec(compile(code.group(1), str(README), "exec"), {"__name__": "readme"})
    finally:
        register_model("openai/gpt-5-mini", None)


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    answer = Reply(text=["Order A-1001 ", "has shipped, card 4111 1111 1111 1111."])
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})]),
            answer,
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})]),
            answer,
        ]
    )
    _run_readme(model)
    out = capsys.readouterr().out
    assert "Order A-1001 has shipped, card [REDACTED]." in out
    assert "4111" not in out
    assert "stop" in out


def test_readme_stream_loop_never_prints_a_rejected_attempt(
    capsys: pytest.CaptureFixture[str],
) -> None:  # D31
    call = Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})])
    short = Reply(text=["Shipped."])  # NotTooShort rejects it and the model tries again
    answer = Reply(text=["Order A-1001 has shipped to you today."])
    _run_readme(ScriptedModel([call, short, answer, call, answer]))
    out = capsys.readouterr().out
    assert "Shipped." not in out
    assert out.count("Order A-1001 has shipped to you today.") == 2
