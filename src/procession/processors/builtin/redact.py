"""``StreamRedactor``: redact patterns (card numbers, emails, secrets...) while text streams.

A match may be split across deltas ("4111 11" + "11 1111 1111"), so the redactor holds back
the tail of the text that could still become part of a match, and releases it, redacted, with
the next delta or when the text part ends. What the client receives and what is stored are
both redacted; nothing unredacted ever leaves the processor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from procession.chunks import Chunk
from procession.processors.base import Processor, ProcessorViolation

__all__ = ["PATTERNS", "StreamRedactor"]

PATTERNS: dict[str, str] = {
    "card": r"\b(?:\d[ -]?){11,18}\d\b",  # 12-19 digits: partial echoes count too
    "email": r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b",
    "ssn": r"\b\d{3}-\d{2}-\d{4}\b",
    "api-key": r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}\b",
}
"""Built-in patterns by name."""


class StreamRedactor(Processor):
    """Redacts matches of regular expressions in streamed text, across chunk boundaries.

    Args:
        patterns: Pattern names from :data:`PATTERNS`, or ``{name: regex}``.
        replacement: The text that replaces a match; ``{name}`` is the pattern's name.
        hold: How many trailing characters may still grow into a match (longer matches
            split across deltas are still caught when they end within this window).
        on_redact: Called with a :class:`ProcessorViolation` (``detail`` holds the pattern
            name) for every redaction, for auditing.
        tool_chunks: Also redact strings inside ``tool-call`` and ``tool-result`` chunks, so
            the client never sees them (what the model and the history hold is unchanged; use
            ``process_tool_result`` to change that).
    """

    id = "stream-redactor"

    def __init__(
        self,
        patterns: list[str] | Mapping[str, str] = ("card", "email", "ssn", "api-key"),  # type: ignore[assignment]
        *,
        replacement: str = "[REDACTED]",
        hold: int = 48,
        on_redact: Callable[[ProcessorViolation[Any]], Any] | None = None,
        tool_chunks: bool = True,
    ) -> None:
        named = (
            dict(patterns)
            if isinstance(patterns, Mapping)
            else {name: PATTERNS[name] for name in patterns}
        )
        self._pattern = re.compile("|".join(f"(?P<{_group(n)}>{p})" for n, p in named.items()))
        self._names = {_group(n): n for n in named}
        self.replacement = replacement
        self.hold = hold
        self.on_redact = on_redact
        self.tool_chunks = tool_chunks

    def redact(self, text: str) -> str:
        """Redact every match in ``text``."""
        return self._pattern.sub(self._replace, text)

    def _replace(self, match: re.Match[str]) -> str:
        name = self._names[match.lastgroup or ""]
        if self.on_redact is not None:
            self.on_redact(
                ProcessorViolation(processor_id=self.id, message=f"redacted {name}", detail=name)
            )
        return self.replacement.format(name=name)

    def process_output_stream(
        self, *, part: Chunk, state: dict[str, Any]
    ) -> Chunk | list[Chunk] | None:
        """Hold back a possible match's start; release redacted text as it becomes safe."""
        kind = part.type
        if kind == "text-delta":
            pending = state.get("pending", "") + part.payload.get("text", "")
            cut = self._safe_cut(pending)
            state["pending"], state["id"] = pending[cut:], part.payload.get("id")
            if cut == 0:
                return None
            return part.copy(payload={**part.payload, "text": self.redact(pending[:cut])})
        if self.tool_chunks and kind in ("tool-call", "tool-result"):
            part = part.copy(payload=self._redact_json(part.payload))
        pending = state.get("pending", "")
        if not pending:
            return part
        state["pending"] = ""
        flushed = Chunk(
            "text-delta", {"id": state.get("id"), "text": self.redact(pending)}, part.run_id
        )
        return [flushed, part]

    def _redact_json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            return {key: self._redact_json(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._redact_json(item) for item in value]
        return value

    def _safe_cut(self, text: str) -> int:
        """The length of the prefix that no future text can change the redaction of."""
        cut = max(0, len(text) - self.hold)
        for match in self._pattern.finditer(text):
            if match.start() < cut < match.end():  # straddles the cut: hold all of it
                return match.start()
        return cut


def _group(name: str) -> str:
    return re.sub(r"\W", "_", name) or "p"
