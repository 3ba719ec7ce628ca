"""The command line: demo and chat, on the scripted model (and the demo on the real one)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from rich.console import Console

from procession import register_model
from procession.cli import main
from procession.cli.chat import load_agent, run_chat
from procession.cli.demo import run_demo
from procession.errors import ConfigurationError
from procession.testing import Reply, ScriptedModel, ToolCallScript


def recording_console() -> Console:
    return Console(record=True, width=200, color_system=None)


@pytest.mark.asyncio
async def test_demo_shows_tools_redaction_retry_and_tripwires() -> None:
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": "A-1001"})]),
            Reply(
                text=["Your order was refunded to card 4111 1111 ", "1111 1111. " * 1 + "ok " * 40]
            ),
            Reply(text=["Refunded to card 4111 1111 1111 1111."]),
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
    assert "4111" not in text
    assert "[REDACTED]" in text
    assert "retry requested by quality-guardrail" in text
    assert "tripwire (content-filter)" in text
    assert "tripwire (scan-tool-result)" in text
    assert "data-word-count" in text
    assert "quality-guardrail: retries asked: 1" in text


@pytest.mark.asyncio
async def test_chat_streams_answers_and_keeps_history(tmp_path: Path) -> None:
    app = tmp_path / "app.py"
    app.write_text(
        "from procession import Agent\n"
        "from procession.testing import ScriptedModel\n"
        "agent = Agent(id='echo', model=ScriptedModel(['first answer', 'second answer']))\n"
    )
    out = recording_console()
    status = await run_chat(f"{app}:agent", lines=["hello", "", "again", "/quit"], out=out)
    assert status == 0
    text = out.export_text()
    assert "first answer" in text
    assert "second answer" in text
    agent = load_agent(f"{app}:agent")
    assert agent.id == "echo"


def test_chat_target_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="FILE_OR_MODULE:ATTRIBUTE"):
        load_agent("no-colon")
    with pytest.raises(ConfigurationError, match="not an Agent"):
        load_agent("procession:__version__")


def test_main_rejects_unknown_commands() -> None:
    with pytest.raises(SystemExit):
        main(["nope"])


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
    assert "tripwire (content-filter)" in text
    assert "tripwire (scan-tool-result)" in text
