"""Check one scenario: procession's trace against Mastra's, adjusted by the scenario's deltas.

A scenario ``NAME`` has ``scenarios/NAME.json``, Mastra's trace ``expected/NAME.json``, for
scenarios with ``generate`` requests the stream twin ``expected/NAME.stream-twin.json`` (D18),
and ``deltas/NAME.json``::

    {
      "rules": ["D6.step-numbering", ...],     # D-row / seed rules (rules.py), every request
      "bugs": ["BUG-1.step-start-timing"],     # known procession bugs with a tolerance
      "xfail": "BUG-5: ...",                    # a known bug with no tolerance: both checks fail
      "reviewed": {                            # requests no rule can derive (D1, D7): a
        "0": {                                 # reviewed expectation written from the D-row
          "rows": ["D1"], "why": "...",
          "mastra": {"result.tripwire.retry": true},   # what Mastra did (checked)
          "expect": {"events": [...signatures...], "chunks": [...types...],
                     "prompts": [...], "result": {...}, "messages": [...]}
        }
      }
    }

``python tests/conformance/check.py NAME [--bugs]`` prints the differences.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import sys
from pathlib import Path
from typing import Any

from .compare import diff_views, event_signature, project, renumber_ids
from .rules import RuleContext, apply_rules
from .runner import load_scenario, run_scenario
from .twins import TWIN_SUFFIX

__all__ = ["HERE", "check", "deltas_of", "scenario_names"]

HERE = Path(__file__).parent


def scenario_names() -> list[str]:
    """Every committed scenario."""
    return sorted(p.stem for p in (HERE / "scenarios").glob("*.json"))


def deltas_of(name: str) -> dict[str, Any]:
    """The scenario's delta file (empty when procession should match Mastra exactly)."""
    path = HERE / "deltas" / f"{name}.json"
    if not path.exists():
        return {}
    deltas: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return deltas


def _load(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def _dotted(value: Any, path: str) -> Any:
    for key in path.split("."):
        if isinstance(value, list):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value.get(key)
        else:
            return None
    return value


def _check_reviewed(
    index: int, review: dict[str, Any], mastra: dict[str, Any], got: dict[str, Any]
) -> list[str]:
    problems = []
    for path, want in review.get("mastra", {}).items():
        if _dotted(mastra, path) != want:
            problems.append(
                f"request {index}: Mastra no longer does what the review says: {path} = "
                f"{json.dumps(_dotted(mastra, path))}, review says {json.dumps(want)}"
            )
    expect = review["expect"]
    chunks = got.get("chunks", [])
    shapes = expect.get("chunks", [])
    actual: dict[str, Any] = {
        "events": [event_signature(e) for e in got["events"]],
        "prompts": [e["prompt"] for e in got["events"] if e.get("kind") == "model"],
        "chunks": [
            c if i < len(shapes) and isinstance(shapes[i], dict) else c["type"]
            for i, c in enumerate(chunks)
        ],
        "result": got["result"],
        "messages": got["messages"],
        "threw": got["threw"],
    }
    for key, want in expect.items():
        if key == "eventFields":
            for spot, fields in want.items():
                event = got["events"][int(spot)] if int(spot) < len(got["events"]) else {}
                for path, value in fields.items():
                    if _dotted(event, path) != value:
                        problems.append(
                            f"request {index} (reviewed): events[{spot}].{path} = "
                            f"{json.dumps(_dotted(event, path))}, expected {json.dumps(value)}"
                        )
        elif actual[key] != want:
            lines = difflib.unified_diff(
                [json.dumps(x) for x in (want if isinstance(want, list) else [want])],
                [
                    json.dumps(x)
                    for x in (actual[key] if isinstance(actual[key], list) else [actual[key]])
                ],
                "reviewed",
                "procession",
                lineterm="",
                n=1,
            )
            problems.append(
                f"request {index} (reviewed) {key}:\n    " + "\n    ".join(list(lines)[2:40])
            )
    return problems


def check(name: str, *, with_bugs: bool) -> list[str]:
    """Differences between procession and the expected trace of scenario ``name``."""
    scenario = load_scenario(HERE / "scenarios" / f"{name}.json")
    mastra = _load(HERE / "expected" / f"{name}.json")
    twin_path = HERE / "expected" / f"{name}{TWIN_SUFFIX}.json"
    twin = _load(twin_path) if twin_path.exists() else None
    deltas = deltas_of(name)
    names = list(deltas.get("rules", []))
    if with_bugs:
        names += deltas.get("bugs", [])
    reviewed = deltas.get("reviewed", {})
    got = asyncio.run(run_scenario(scenario))
    problems: list[str] = []
    if len(got["requests"]) != len(mastra["requests"]):
        return [f"{len(got['requests'])} requests, Mastra recorded {len(mastra['requests'])}"]
    used: set[str] = set()
    for index, (want_raw, got_raw) in enumerate(
        zip(mastra["requests"], got["requests"], strict=True)
    ):
        want, actual = project(want_raw), project(got_raw)
        if str(index) in reviewed:
            problems += _check_reviewed(index, reviewed[str(index)], want, actual)
            continue
        twin_view = project(twin["requests"][index]) if twin is not None else None
        ctx = RuleContext(scenario, index, twin_view)
        expected, idle = apply_rules(want, names, ctx)
        used.update(set(names) - set(idle))
        problems += [
            f"request {index}: {line}" for line in diff_views(renumber_ids(expected), actual)
        ]
    unused = [n for n in names if n not in used]
    if unused and len(reviewed) < len(mastra["requests"]):
        problems.append(f"rules listed in deltas/{name}.json that change nothing: {unused}")
    return problems


def main(argv: list[str]) -> int:
    """Print the differences for the scenarios named (all by default)."""
    with_bugs = "--bugs" in argv
    names = [a for a in argv if not a.startswith("--")] or scenario_names()
    failed = 0
    for name in names:
        problems = check(name, with_bugs=with_bugs)
        print(f"{'ok  ' if not problems else 'DIFF'} {name}")
        for line in problems[:40]:
            print("   ", line)
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
