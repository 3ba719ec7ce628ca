"""``StreamRedactor``: redact card numbers, e-mail addresses and secrets while text streams.

A match may be split across deltas (``"4111 11"`` + ``"11 1111 1111"``), so the redactor holds
back the open candidate at the end of the text (at most ``hold`` characters; a longer one is
redacted, never released) and releases it, redacted, once it is decided. Text, reasoning,
streamed tool-call arguments and tool chunks are covered, and what the client receives,
``result.text``, the steps, the messages and the store all agree (see
:mod:`procession.guardrails._redaction.redacting`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from procession.errors import ConfigurationError
from procession.guardrails._common.options import check_bool, check_callable, check_str
from procession.guardrails._redaction.detectors import OFFLINE_TYPES, Detection, detectors_for
from procession.guardrails._redaction.echo import ECHO_TYPE
from procession.guardrails._redaction.redacting import RedactingProcessor, check_hold
from procession.guardrails._redaction.redaction import DEFAULT_HOLD, CustomRule, RedactionEngine
from procession.processors.base import ProcessorViolation

__all__ = ["PATTERNS", "StreamRedactor"]

PATTERNS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in OFFLINE_TYPES},
    "card": ("credit-card",),
    "api-key": ("api-key", "aws-key", "bearer-token", "jwt", "private-key", "secret-url"),
}
"""Pattern names :class:`StreamRedactor` accepts, and the built-in detector types of each."""


class StreamRedactor(RedactingProcessor):
    """Redacts card numbers, e-mail addresses, SSNs and secrets in streamed output.

    Args:
        patterns: Names from :data:`PATTERNS` (``"card"``, ``"email"``, ``"ssn"``,
            ``"api-key"``, or any built-in type such as ``"iban"``), or ``{name: regex}`` for
            patterns of your own (held across chunks too).
        replacement: The text that replaces a match; ``{name}`` is the pattern's name.
        hold: The most characters held back while a match may still be growing (default 256);
            a candidate that outgrows it is redacted, never released.
        on_violation: Called with a :class:`ProcessorViolation` for every redaction (D8);
            ``detail["type"]`` names the pattern. ``on_redact`` is its older name.
        tool_chunks: Also redact streamed tool-call arguments (the tool still runs with the
            real ones), tool results and tool errors, for the client and what is stored.
    """

    id = "stream-redactor"

    def __init__(
        self,
        patterns: Sequence[str] | Mapping[str, str] = ("card", "email", "ssn", "api-key"),
        *,
        replacement: str = "[REDACTED]",
        hold: int = DEFAULT_HOLD,
        on_violation: Callable[[ProcessorViolation[Any]], Any] | None = None,
        on_redact: Callable[[ProcessorViolation[Any]], Any] | None = None,
        tool_chunks: bool = True,
    ) -> None:
        owner = "StreamRedactor"
        self.replacement_template = check_str(owner, "replacement", replacement, allow_empty=True)
        self.tool_chunks = check_bool(owner, "tool_chunks", tool_chunks)
        self.hold = check_hold(owner, hold)
        self._callback = check_callable(owner, "on_violation", on_violation) or check_callable(
            owner, "on_redact", on_redact
        )
        self._names: dict[str, str] = {}
        types: list[str] = []
        rules: list[CustomRule] = []
        if isinstance(patterns, Mapping):
            for name, pattern in patterns.items():
                rules.append(_rule(name, pattern))
                self._names[name] = name
        elif isinstance(patterns, str) or not isinstance(patterns, Sequence):
            raise ConfigurationError(
                f"patterns={patterns!r} is not valid: expected a list of names "
                f"({', '.join(sorted(PATTERNS))}) or a {{name: regex}} mapping"
            )
        else:
            for name in patterns:
                if name not in PATTERNS:
                    raise ConfigurationError(
                        f"patterns: {name!r} is not a built-in pattern; expected one of "
                        f"{', '.join(sorted(PATTERNS))}, or pass {{name: regex}}"
                    )
                for kind in PATTERNS[name]:
                    self._names.setdefault(kind, name)
                    if kind not in types:
                        types.append(kind)
        if "credit-card" in self._names:
            self._names.setdefault(ECHO_TYPE, self._names["credit-card"])
        self.engine = RedactionEngine(detectors_for(tuple(types)), rules, hold=self.hold)

    def replacement(self, detection: Detection) -> str:
        """The replacement text; a continued overlong candidate leaves nothing behind."""
        if detection.type.startswith("+"):
            return ""
        name = self._names.get(detection.type, detection.type)
        return self.replacement_template.replace("{name}", name)

    def violation(self, detection: Detection, channel: str) -> ProcessorViolation[Any]:
        """Reports name the pattern as it was configured (``card``, not ``credit-card``)."""
        base = super().violation(detection, channel)
        name = self._names.get(detection.type, detection.type)
        detail = {**base.detail, "type": name} if isinstance(base.detail, dict) else base.detail
        return ProcessorViolation(base.processor_id, f"redacted {name}", detail)

    def redact(self, text: str) -> str:
        """Redact every match in a complete ``text`` (no reports)."""
        return self.engine.redact(text, self.replacement)[0]


def _rule(name: object, pattern: object) -> CustomRule:
    if not isinstance(name, str) or not isinstance(pattern, str | re.Pattern):
        raise ConfigurationError(
            f"patterns: {name!r}: {pattern!r} is not valid: expected {{name: regex string}}"
        )
    try:
        return CustomRule.compile(name, pattern, "[REDACTED]")
    except Exception as error:
        raise ConfigurationError(f"patterns: {name!r} is not a valid regex: {error}") from None
