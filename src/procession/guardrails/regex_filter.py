"""``RegexFilter``: block, redact or flag text matching presets or your own patterns.

Mastra's ``RegexFilterProcessor`` with snake_case options, on the shared streaming engine: the
presets are the checksum-validated built-in detectors (``pii``: e-mail, phone, SSN, card;
``secrets``: API keys, bearer tokens, AWS keys, JWTs, private keys; ``urls``: URLs carrying a
credential in their query; ``links``: every link, on request), and your own
``rules`` are held across chunks by partial matching, so a match split across deltas is
caught whole, however long (up to ``hold`` characters; a longer candidate is redacted).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from procession.errors import ConfigurationError
from procession.guardrails._common.options import (
    check_bool,
    check_callable,
    check_choice,
    check_str_list,
)
from procession.guardrails._redaction.detectors import Detection, detectors_for
from procession.guardrails._redaction.redacting import RedactingProcessor, check_hold
from procession.guardrails._redaction.redaction import DEFAULT_HOLD, CustomRule, RedactionEngine
from procession.processors.base import ProcessorViolation

__all__ = ["REGEX_PRESETS", "RegexFilter", "RegexRule"]

REGEX_PRESETS: dict[str, tuple[str, ...]] = {
    "pii": ("email", "phone", "ssn", "credit-card"),
    "secrets": ("api-key", "bearer-token", "aws-key", "jwt", "private-key", "secret-url"),
    "urls": ("secret-url",),
    "links": ("url",),
}
"""The built-in detector types of each preset."""


@dataclass(frozen=True, slots=True)
class RegexRule:
    """One rule of your own: a name (reported), a pattern and its replacement."""

    name: str
    pattern: str | re.Pattern[str]
    replacement: str = "[REDACTED]"


class RegexFilter(RedactingProcessor):
    """Blocks (default), redacts or flags text matching presets or rules.

    Args:
        rules: :class:`RegexRule` objects, ``(name, pattern)`` pairs or
            ``{"name", "pattern", "replacement"}`` dicts.
        presets: Any of ``"pii"``, ``"secrets"``, ``"urls"``, ``"links"`` (see
            :data:`REGEX_PRESETS`).
        strategy: ``"block"`` (abort; metadata lists the matches), ``"redact"`` (replace each
            match with its rule's replacement, ``[EMAIL]``... for presets) or ``"warn"``.
        phase: ``"input"``, ``"output"`` or ``"all"`` (default).
        include_redacted_values: Put the matched text in reports (default False).
        hold: The most characters held back while streaming (default 256).
        on_violation: Called once per match (D8; under ``block`` the abort is the report).
        tool_chunks: Also cover tool-call arguments, tool results and tool errors.
        phone_regions: Regions phone numbers without a country code are checked against.
    """

    id = "regex-filter"

    def __init__(
        self,
        *,
        rules: Sequence[RegexRule | tuple[str, str] | dict[str, Any]] = (),
        presets: Sequence[str] = (),
        strategy: str = "block",
        phase: str = "all",
        include_redacted_values: bool = False,
        hold: int = DEFAULT_HOLD,
        on_violation: Callable[[ProcessorViolation[Any]], Any] | None = None,
        tool_chunks: bool = True,
        phone_regions: Sequence[str] | None = None,
    ) -> None:
        owner = "RegexFilter"
        preset_names = check_str_list(owner, "presets", presets) if presets else ()
        for preset in preset_names:
            check_choice(owner, "presets", preset, tuple(REGEX_PRESETS))
        self.strategy = check_choice(owner, "strategy", strategy, ("block", "redact", "warn"))  # type: ignore[assignment]
        self.phase = check_choice(owner, "phase", phase, ("input", "output", "all"))
        self.include_redacted_values = check_bool(
            owner, "include_redacted_values", include_redacted_values
        )
        self.tool_chunks = check_bool(owner, "tool_chunks", tool_chunks)
        self.hold = check_hold(owner, hold)
        self._callback = check_callable(owner, "on_violation", on_violation)
        custom = [_rule(index, rule) for index, rule in enumerate(rules)]
        if not custom and not preset_names:
            raise ConfigurationError(f"{owner}: give at least one rule or preset")
        types = tuple(dict.fromkeys(t for p in preset_names for t in REGEX_PRESETS[p]))
        regions = tuple(phone_regions) if phone_regions is not None else None
        self._replacements = {rule.type: rule.placeholder for rule in custom}
        self.engine = RedactionEngine(detectors_for(types, regions), custom, hold=self.hold)
        if self.phase == "input":
            vars(self).update(process_output_stream=None, process_output_result=None)
        elif self.phase == "output":
            vars(self)["process_input"] = None

    def replacement(self, detection: Detection) -> str:
        """The rule's replacement (``[EMAIL]``... for presets)."""
        if detection.type.startswith("+"):
            return ""
        custom = self._replacements.get(detection.type)
        if custom is not None:
            return custom
        return "[" + detection.type.upper().replace("-", "_") + "]"

    def block_reason(self, detections: Sequence[Detection], where: str) -> str:
        """Mastra's reason: ``Regex filter: blocked <where> matching patterns: <names>``."""
        names = ", ".join(dict.fromkeys(d.type.lstrip("+") for d in detections))
        return f"Regex filter: blocked {where} matching patterns: {names}"

    def process_input(self, *, messages: list[Any], abort: Any) -> Any:
        """Apply the strategy to the input messages' text."""
        return self.redact_messages(messages, abort, "content")


def _rule(index: int, rule: object) -> CustomRule:
    where = f"rules[{index}]"
    if isinstance(rule, RegexRule):
        name, pattern, replacement = rule.name, rule.pattern, rule.replacement
    elif isinstance(rule, tuple) and len(rule) == 2:
        name, pattern = rule
        replacement = "[REDACTED]"
    elif isinstance(rule, dict) and {"name", "pattern"} <= set(rule):
        name, pattern = rule["name"], rule["pattern"]
        replacement = rule.get("replacement", "[REDACTED]")
    else:
        raise ConfigurationError(
            f"RegexFilter: {where}={rule!r} is not valid: expected a RegexRule, a "
            "(name, pattern) pair or a {'name', 'pattern', 'replacement'} dict"
        )
    if not isinstance(name, str) or not name or not isinstance(replacement, str):
        raise ConfigurationError(f"RegexFilter: {where} needs a non-empty name (got {name!r})")
    if not isinstance(pattern, str | re.Pattern):
        raise ConfigurationError(f"RegexFilter: {where}.pattern={pattern!r} is not a regex")
    try:
        return CustomRule.compile(name, pattern, replacement)
    except Exception as error:
        raise ConfigurationError(
            f"RegexFilter: {where}.pattern is not a valid regex: {error}"
        ) from None
