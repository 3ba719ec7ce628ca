"""The engine's layering (issue 22, decision 0270): it runs a frozen ``AgentSpec`` and never
imports ``Agent``; sub-runs start through its entry point; observers are wired once per run."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider

from procession import Agent, ConfigurationError
from procession._engine import AgentSpec, check_spec, stream_run
from procession._engine.notes import StudioNotes
from procession._engine.observers import Observers
from procession.testing import Reply, ScriptedModel
from procession.tracing import use_tracer_provider
from procession.tracing._spans import RunTrace

SRC = Path(__file__).resolve().parents[2] / "src" / "procession"


def _imported(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, at any level (typing-only imports included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            yield node.module
            for alias in node.names:
                yield f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def test_the_engine_never_imports_agent() -> None:
    files = sorted((SRC / "_engine").rglob("*.py"))
    assert len(files) > 10
    offenders = {
        str(path.relative_to(SRC)): name
        for path in files
        for name in _imported(path)
        if name == "procession.agent" or name.startswith("procession.agent.")
    }
    assert offenders == {}


def test_the_hook_runner_knows_no_observer_by_name() -> None:
    names = set(_imported(SRC / "_engine" / "runner.py"))
    assert not {n for n in names if n.startswith("procession.tracing")}
    assert "procession._engine.notes" not in names


@pytest.mark.parametrize("module", ["judge.py", "structured_output.py"])
def test_sub_runs_do_not_build_an_agent(module: str) -> None:
    names = set(_imported(SRC / "guardrails" / module))
    assert "procession.agent" not in names
    assert "procession._engine" in names


def test_an_agent_spec_is_frozen_and_setting_an_option_checks_it() -> None:
    bot = Agent(id="bot", model=ScriptedModel([]), max_steps=3)
    before = bot.spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        before.max_steps = 4  # type: ignore[misc]
    with pytest.raises(ConfigurationError, match="max_steps"):
        bot.max_steps = 0
    with pytest.raises(ConfigurationError, match=r"output_processors\[0\]"):
        bot.output_processors = [object()]
    bot.max_steps = 7
    assert bot.max_steps == 7
    assert bot.spec.max_steps == 7
    assert before.max_steps == 3  # a call that started with it keeps it
    bot.name = None
    assert bot.name == "bot"


@pytest.mark.asyncio
async def test_a_sub_run_starts_from_a_spec() -> None:
    spec = check_spec(id="sub", model=ScriptedModel([Reply(text=["a", "b"])]), max_steps=1)
    assert isinstance(spec, AgentSpec)
    state, chunks = stream_run(spec, "hi")
    async with aclosing(chunks):
        texts = [c.payload["text"] async for c in chunks if c.type == "text-delta"]
    assert texts == ["a", "b"]
    assert state.result.text == "ab"
    with pytest.raises(TypeError, match="unknown call options"):
        stream_run(spec, "hi", no_such_option=1)


async def _observer_of(inspect: bool) -> Any:
    spec = check_spec(id="obs", model=ScriptedModel([Reply(text=["x"])]), max_steps=1)
    state, chunks = stream_run(spec, "hi", inspect=inspect)
    async with aclosing(chunks):
        async for _ in chunks:
            pass
    return state.observer


@pytest.mark.asyncio
async def test_observers_are_composed_once_per_run() -> None:
    assert await _observer_of(inspect=False) is None  # nothing on the hot path
    assert isinstance(await _observer_of(inspect=True), StudioNotes)
    use_tracer_provider(TracerProvider())
    try:
        assert isinstance(await _observer_of(inspect=False), RunTrace)
        both = await _observer_of(inspect=True)
    finally:
        use_tracer_provider(None)
    assert isinstance(both, Observers)
    assert [type(o) for o in both.each] == [RunTrace, StudioNotes]
