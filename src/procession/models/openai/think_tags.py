"""``<think>…</think>`` in streamed answer text, read as reasoning.

DeepSeek-R1's distills served by vLLM, Ollama or LM Studio often stream their reasoning in
``delta.content`` between ``<think>`` and ``</think>`` instead of in a reasoning field. With
:attr:`~procession.models.openai.ChatDialect.think_tags` (on for ``ollama/`` models) the Chat
Completions mapper passes each content delta through :class:`ThinkTags`, which splits it
into reasoning and text, holding back only what may be the start of a tag cut between two
deltas. Text outside the tags is left exactly as it came, except the white space that follows
``</think>`` before the answer.
"""

from __future__ import annotations

__all__ = ["CLOSE", "OPEN", "ThinkTags"]

OPEN = "<think>"
"""The tag that opens reasoning in the answer text."""
CLOSE = "</think>"
"""The tag that closes it."""


def _partial_tag(text: str, tag: str) -> int:
    """How many characters at the end of ``text`` may begin ``tag`` (0 if none)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


class ThinkTags:
    """Splits one answer's streamed text at its ``<think>`` tags (one instance per call)."""

    __slots__ = ("_after_close", "_inside", "_pending")

    def __init__(self) -> None:
        self._inside = False
        self._pending = ""
        self._after_close = False

    def feed(self, text: str) -> list[tuple[bool, str]]:
        """The pieces of ``text``: ``(is_reasoning, piece)``, in order."""
        text = self._pending + text
        self._pending = ""
        out: list[tuple[bool, str]] = []
        while text:
            tag = CLOSE if self._inside else OPEN
            found = text.find(tag)
            if found < 0:
                keep = _partial_tag(text, tag)
                self._pending = text[len(text) - keep :]
                self._emit(text[: len(text) - keep], out)
                break
            self._emit(text[:found], out)
            text = text[found + len(tag) :]
            self._after_close = self._inside
            self._inside = not self._inside
        return out

    def flush(self) -> list[tuple[bool, str]]:
        """What was held back at the end of the stream."""
        out: list[tuple[bool, str]] = []
        pending, self._pending = self._pending, ""
        self._emit(pending, out)
        return out

    def _emit(self, piece: str, out: list[tuple[bool, str]]) -> None:
        if self._after_close and not self._inside:
            piece = piece.lstrip()
            if piece:
                self._after_close = False
        if piece:
            out.append((self._inside, piece))
