"""Conformance with the real Mastra: every committed scenario, run against procession.

Each scenario's expected trace was recorded from Mastra 1.71 (``expected/``); its delta file
(``deltas/``) names the DECISIONS.md rows and seed points that make procession differ, and the
known procession bugs. No Node is needed: the traces are committed.

- ``test_conformance``: Mastra's trace adjusted by the D-row and seed rules only. A scenario
  hit by a known bug is a strict xfail, so it turns green (and fails as XPASS) once fixed.
- ``test_conformance_modulo_known_bugs``: the same, with the known bugs' tolerances applied,
  so that everything *else* in those scenarios stays guarded.
"""

from __future__ import annotations

import pytest

from .check import check, deltas_of, scenario_names


def _params(*, with_bugs: bool) -> list[object]:
    params: list[object] = []
    for name in scenario_names():
        deltas = deltas_of(name)
        reason = deltas.get("xfail")
        if reason is None and not with_bugs and deltas.get("bugs"):
            reason = "known bugs: " + ", ".join(deltas["bugs"])
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(name, marks=marks, id=name))
    return params


@pytest.mark.parametrize("name", _params(with_bugs=False))
def test_conformance(name: str) -> None:
    problems = check(name, with_bugs=False)
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("name", _params(with_bugs=True))
def test_conformance_modulo_known_bugs(name: str) -> None:
    problems = check(name, with_bugs=True)
    assert not problems, "\n".join(problems[:40])
