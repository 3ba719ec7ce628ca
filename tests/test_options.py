"""Typed call options and generic results (issue 24): mypy catches a misspelt option and
knows ``result.object``'s type when ``structured_output`` is a model; at run time a misspelt
option is a ``TypeError`` naming it (D35)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from procession import Agent, RunOptions
from procession.testing import ScriptedModel

SRC = Path(__file__).resolve().parents[1] / "src"

CHECKED = textwrap.dedent(
    """
    from pydantic import BaseModel

    from procession import Agent, AgentResult


    class Order(BaseModel):
        id: str


    async def main(agent: Agent) -> None:
        await agent.generate("hi", max_step=3)
        typed = await agent.generate("hi", structured_output=Order)
        reveal_type(typed.object)
        plain: AgentResult = await agent.generate("hi", max_steps=3)
        reveal_type(plain.object)
        stream = agent.stream("hi", structured_output=Order, release="step")
        reveal_type((await stream.result()).object)
        agent.generate_sync("hi", resource_id=5)
    """
)


def test_mypy_catches_a_misspelt_option_and_types_the_object(tmp_path: Path) -> None:
    script = tmp_path / "uses_procession.py"
    script.write_text(CHECKED)
    env = {**os.environ, "MYPYPATH": str(SRC)}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--no-error-summary",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--config-file",
            os.devnull,
            str(script),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    errors = [line for line in run.stdout.splitlines() if ": error: " in line]
    assert any(
        line.startswith("uses_procession.py:12:")
        and 'Unexpected keyword argument "max_step"' in line
        and 'did you mean "max_steps"' in line
        for line in errors
    ), run.stdout
    assert any(  # a wrong type for a real option: resource_id=5
        line.startswith("uses_procession.py:19:") and '"generate_sync"' in line for line in errors
    ), run.stdout
    assert {line.split(":")[1] for line in errors} == {"12", "19"}, run.stdout
    revealed = [line for line in run.stdout.splitlines() if "Revealed type" in line]
    assert [line.split(": note: ")[1] for line in revealed] == [
        'Revealed type is "uses_procession.Order"',
        'Revealed type is "Any"',
        'Revealed type is "uses_procession.Order"',
    ], run.stdout


def test_a_misspelt_option_raises_naming_it() -> None:  # D35
    agent = Agent(id="a", model=ScriptedModel(["hi"]))
    with pytest.raises(TypeError, match="'max_step'"):
        agent.stream("hi", max_step=3)  # type: ignore[call-overload]
    assert "max_steps" in RunOptions.__annotations__
