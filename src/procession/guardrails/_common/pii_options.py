"""``PIIDetector``'s Mastra options: placeholders, detection reports, judge options.

Kept apart from the detector so its detection rules and these options change independently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from procession.guardrails._common.options import check_choice, option_error
from procession.guardrails._redaction.detectors import Detection

__all__ = [
    "API_KEY_KINDS",
    "PLACEHOLDER_STYLES",
    "detection_report",
    "judge_options",
    "mastra_placeholder",
    "violation_report",
]

API_KEY_KINDS = frozenset(("api-key", "aws-key", "bearer-token", "jwt", "private-key"))
"""The detection types ``api-key`` stands for (reported and written as ``api-key``)."""

PLACEHOLDER_STYLES: tuple[str, ...] = ("mastra", "underscore")
"""``"mastra"``: ``[CREDIT-CARD]``; ``"underscore"``: ``[CREDIT_CARD]`` (before issue 23)."""

_STRUCTURED_KEYS = ("errorStrategy", "instructions", "jsonPromptInjection")


def mastra_placeholder(detection: Detection) -> str:
    """Mastra's placeholder: the type upper-cased, ``[CREDIT-CARD]``, ``[API-KEY]``."""
    kind = "api-key" if detection.type in API_KEY_KINDS else detection.type
    return f"[{kind.upper()}]"


def detection_report(
    text: str, found: Sequence[Detection], strategy: str, *, values: bool
) -> dict[str, Any]:
    """What ``on_detection`` receives, in Mastra's shape: ``{"detectionResult": {"categories",
    "detections"}, "input", "flagged", "strategyApplied"}`` (values only when ``values``)."""
    shown = [d for d in found if not d.type.startswith("+")]
    kinds = list(dict.fromkeys(_kind(d) for d in shown))
    detections = []
    for detection in shown:
        item: dict[str, Any] = {
            "type": _kind(detection),
            "confidence": 1.0,
            "start": detection.start,
            "end": detection.end,
        }
        if values:
            item["value"] = detection.value
        detections.append(item)
    return {
        "detectionResult": {
            "categories": [{"type": kind, "score": 1.0} for kind in kinds] or None,
            "detections": detections or None,
        },
        "input": text,
        "flagged": bool(shown),
        "strategyApplied": strategy if shown else "none",
    }


def violation_report(detail: Mapping[str, Any], strategy: str) -> dict[str, Any]:
    """``on_detection``'s report of one detection on the stream, in a tool or by the judge
    (``input`` is ``None``: the text is still streaming; ``channel`` says where it was)."""
    kind = str(detail.get("type", ""))
    kind = "api-key" if kind in API_KEY_KINDS else kind
    item: dict[str, Any] = {"type": kind, "confidence": 1.0}
    if "value" in detail:
        item["value"] = detail["value"]
    return {
        "detectionResult": {"categories": [{"type": kind, "score": 1.0}], "detections": [item]},
        "input": None,
        "flagged": True,
        "strategyApplied": strategy,
        "channel": detail.get("channel"),
    }


def judge_options(
    owner: str, structured: Mapping[str, Any] | None, error_strategy: str
) -> tuple[str, str | None]:
    """The judge's error strategy and extra instructions from Mastra's
    ``structuredOutputOptions`` (``errorStrategy``, ``instructions``, ``jsonPromptInjection``:
    the judge always asks for JSON in the prompt)."""
    if structured is None:
        return error_strategy, None
    if not isinstance(structured, Mapping):
        raise option_error(owner, "structured_output_options", structured, "a mapping")
    for key in structured:
        if key not in _STRUCTURED_KEYS:
            raise option_error(
                owner,
                f"structured_output_options[{key!r}]",
                structured[key],
                f"one of the keys {', '.join(_STRUCTURED_KEYS)}",
            )
    strategy = structured.get("errorStrategy", error_strategy)
    strategy = check_choice(
        owner, "structured_output_options['errorStrategy']", strategy, ("strict", "warn")
    )
    extra = structured.get("instructions")
    if extra is not None and not isinstance(extra, str):
        raise option_error(owner, "structured_output_options['instructions']", extra, "a str")
    return strategy, extra


def _kind(detection: Detection) -> str:
    return "api-key" if detection.type in API_KEY_KINDS else detection.type
