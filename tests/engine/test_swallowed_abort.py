"""An abort a hook catches still counts: D29 (the contract had no test citing it)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

from procession import Processor, ProcessorViolation
from procession.testing import Reply, ScriptedModel

from .helpers import agent


class SwallowingGuard(Processor):
    """Aborts inside a broad ``try``, then carries on as if nothing happened."""

    id = "swallowing-guard"

    def __init__(self, *, retry: bool = False, twice: bool = False, then: str = "") -> None:
        self.retry = retry
        self.twice = twice
        self.then = then
        self.violations: list[ProcessorViolation[Any]] = []
        self.calls = 0

    def on_violation(self, violation: ProcessorViolation[Any]) -> None:
        self.violations.append(violation)

    def process_output_step(self, *, text: str, abort: Any, **_: Any) -> None:
        self.calls += 1
        if self.calls > 1:
            return
        with contextlib.suppress(Exception):  # the mistake D29 guards against
            abort(f"no: {text}", retry=self.retry, metadata={"n": 1})
        if self.twice:
            with contextlib.suppress(Exception):
                abort("second")
        if self.then:
            raise ValueError(self.then)


@pytest.mark.asyncio
async def test_a_caught_abort_still_blocks_the_run() -> None:  # D29, D12
    guard = SwallowingGuard()
    model = ScriptedModel([Reply(text=["leaked"])])
    result = await agent(model, output_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "no: leaked"
    assert result.tripwire["metadata"] == {"n": 1}
    assert result.tripwire["processorId"] == "swallowing-guard"
    assert result.text == ""
    assert [v.message for v in guard.violations] == ["no: leaked"]  # D8


@pytest.mark.asyncio
async def test_a_caught_abort_with_retry_still_retries() -> None:  # D29, D1
    guard = SwallowingGuard(retry=True)
    model = ScriptedModel([Reply(text=["first"]), Reply(text=["second"])])
    result = await agent(model, output_processors=[guard], max_processor_retries=1).generate("x")
    assert result.tripwire is None
    assert result.text == "second"
    assert guard.calls == 2


@pytest.mark.asyncio
async def test_when_a_hook_aborts_twice_the_first_abort_counts() -> None:  # D29
    guard = SwallowingGuard(twice=True)
    model = ScriptedModel([Reply(text=["leaked"])])
    result = await agent(model, output_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "no: leaked"


@pytest.mark.asyncio
async def test_an_error_raised_after_a_caught_abort_does_not_hide_it() -> None:  # D29, D10
    guard = SwallowingGuard(then="cleanup failed")
    model = ScriptedModel([Reply(text=["leaked"])])
    result = await agent(model, output_processors=[guard]).generate("x")
    assert result.tripwire is not None
    assert result.tripwire["reason"] == "no: leaked"
    assert result.error is None
