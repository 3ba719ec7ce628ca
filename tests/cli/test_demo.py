"""``procession demo``: on the scripted model, its help, and end to end on the embedded model."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from rich.console import Console

from procession import register_model
from procession.cli.demo import run_demo
from procession.testing import Reply, ScriptedModel, ToolCallScript
from tests.cli.helpers import clean_env, run_cli


def recording_console() -> Console:
    return Console(record=True, width=200, color_system=None)


@pytest.mark.asyncio
async def test_demo_shows_tools_redaction_retry_and_tripwires() -> None:
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})]),
            Reply(text=["Your order was refunded to card 4111 1111 ", "1111 1111. " + "ok " * 40]),
            Reply(text=["Refunded to card 4111 1111 1111 1111, located at 4111 11", "11 1111."]),
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "B-2002"})]),
        ]
    )
    register_model("test/demo", model)
    out = recording_console()
    try:
        assert await run_demo("test/demo", out=out) == 0
    finally:
        register_model("test/demo", None)
    text = out.export_text()
    assert "procession demo on test/demo" in text
    assert "4111" not in text
    # a partial echo of the card the tool returned is redacted too (issue 21)
    assert "assistant> Refunded to card [REDACTED], located at [REDACTED]." in text
    assert "retry requested by quality-guardrail" in text
    assert "ok ok ok" not in text  # D31: the rejected attempt is not shown in plain output
    assert "tripwire (content-filter)" in text
    assert "tripwire (scan-tool-result)" in text
    assert "data-word-count" in text
    assert "quality-guardrail: retries asked: 1" in text


@pytest.mark.parametrize(
    ("env", "sentence"),
    [
        ({}, "uses the embedded model local/smollm2, because no provider key is set"),
        ({"ANTHROPIC_API_KEY": "sk-ant"}, "uses anthropic/claude-haiku-4-5, because"),
        (
            {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk"},
            "uses openai/gpt-5-mini, because OPENAI_API_KEY is set",
        ),
    ],
)
def test_demo_help_says_which_model_it_will_use(env: dict[str, str], sentence: str) -> None:
    done = run_cli("demo", "--help", cwd=Path.cwd(), env=clean_env(**env))
    assert done.status == 0
    assert sentence in " ".join(done.stdout.split())


@pytest.mark.local_model
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None and not os.environ.get("CI"),
    reason="llama-cpp-python is not installed (CI always runs this)",
)
@pytest.mark.asyncio
async def test_demo_runs_end_to_end_on_the_embedded_model() -> None:
    out = recording_console()
    assert await run_demo(None, out=out) == 0
    text = out.export_text()
    assert "tool call lookup_order" in text
    assert "4111 1111 1111 1111" not in text  # the tool result and any echo are redacted
    assert "1111 1111" not in text  # no partial echo shows more than 6 + 4 digits
    assert "tripwire (content-filter)" in text
    assert "tripwire (scan-tool-result)" in text
