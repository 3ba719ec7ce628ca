"""The conformance machinery itself: deterministic traces, differences found, rules kept exact."""

from __future__ import annotations

import asyncio
import copy
import json

import pytest

from .check import HERE
from .compare import diff_views, project
from .rules import RuleContext, apply_rules
from .runner import load_scenario, run_scenario


def _mastra(name: str) -> dict[str, object]:
    trace: dict[str, object] = json.loads((HERE / "expected" / f"{name}.json").read_text())
    return trace


def _procession(name: str) -> dict[str, object]:
    return asyncio.run(run_scenario(load_scenario(HERE / "scenarios" / f"{name}.json")))


def test_procession_traces_are_deterministic() -> None:
    assert _procession("17-hook-order-stream") == _procession("17-hook-order-stream")


def test_a_changed_chunk_or_hook_argument_is_reported() -> None:
    request = _mastra("01-chain-order")["requests"][0]  # type: ignore[index]
    view = project(request)
    changed = copy.deepcopy(view)
    changed["chunks"][3]["text"] = "HEL"
    changed["events"][5]["args"]["streamParts"] = 99
    problems = diff_views(view, changed)
    assert any("chunks[3].text" in p for p in problems)
    assert any("events[5].args.streamParts" in p for p in problems)
    assert diff_views(view, copy.deepcopy(view)) == []


def test_a_missing_hook_call_is_reported_as_a_sequence_difference() -> None:
    view = project(_mastra("17-hook-order-stream")["requests"][0])  # type: ignore[index]
    changed = copy.deepcopy(view)
    del changed["events"][2]
    problems = diff_views(view, changed)
    assert problems
    assert problems[0].startswith("events: sequences differ")
    assert "-in-1.processInputStep step=0" in problems[0]


def test_a_rule_that_changes_nothing_is_reported() -> None:
    scenario = load_scenario(HERE / "scenarios" / "01-chain-order.json")
    view = project(_mastra("01-chain-order")["requests"][0])  # type: ignore[index]
    _, idle = apply_rules(
        view, ["D12.tripwire-shape", "D6.step-numbering"], RuleContext(scenario, 0)
    )
    assert idle == ["D12.tripwire-shape"]


def test_unknown_rules_are_refused() -> None:
    scenario = load_scenario(HERE / "scenarios" / "01-chain-order.json")
    view = project(_mastra("01-chain-order")["requests"][0])  # type: ignore[index]
    with pytest.raises(KeyError):
        apply_rules(view, ["D99.nothing"], RuleContext(scenario, 0))


def test_tool_choice_reaches_process_input_step_in_the_seed_form() -> None:
    def choices(trace: dict[str, object]) -> list[object]:
        events = trace["requests"][0]["events"]  # type: ignore[index]
        return [e["args"]["toolChoice"] for e in events if e.get("method") == "processInputStep"]

    mastra = choices(_mastra("17-hook-order-stream"))
    assert mastra == ["auto"] * 4
    assert choices(_procession("17-hook-order-stream")) == mastra
