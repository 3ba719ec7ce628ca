"""The offline prompt-injection classifier: the shipped hashed head over text and rules.

:func:`injection_probability` reads normalised text with the head in
``data/injection_head.npz`` (see :mod:`~procession.processors.builtin.hashed_head` and
docs/guardrails/prompt-injection.md for its data and licences), with the offline rules that
fired as extra features, so the head learned how far to trust each rule.
"""

from __future__ import annotations

from pathlib import Path

from procession.processors.builtin.hashed_head import HashedHead, cached_head
from procession.processors.builtin.injection_rules import InjectionScan, normalise

__all__ = ["HEAD_PATH", "injection_head", "injection_probability", "rule_features"]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "injection_head.npz"
"""The head shipped in the wheel."""


def rule_features(found: InjectionScan) -> list[tuple[str, float]]:
    """The rules that fired, as named features (rule id and type, each with its weight)."""
    out: list[tuple[str, float]] = []
    for finding in found.findings:
        out.append((f"rule:{finding.rule}", finding.weight))
        out.append((f"type:{finding.type}", finding.weight))
    if found.findings:
        out.append(("rules:score", found.score))
    return out


def injection_head() -> HashedHead:
    """The shipped head, loaded once per process."""
    return cached_head(str(HEAD_PATH))


def injection_probability(text: str, found: InjectionScan) -> float:
    """The head's probability that ``text`` (with the rule scan ``found``) is an injection."""
    return injection_head().score(normalise(text), rule_features(found))
