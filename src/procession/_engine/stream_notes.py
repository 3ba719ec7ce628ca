"""Studio's notes of a ``process_output_stream`` hook: what it changed, not how it streamed.

A stream hook may hold text back and release it later (``StreamRedactor`` holds an open card
candidate, then releases the rest of the sentence at ``text-end``), so comparing chunk by chunk
shows the hold-and-release (chunks dropped, then one expanded), not what changed. Instead
:class:`StreamWatch` collects, for each text stream of a step (a text block, a reasoning block,
one tool call's streamed arguments), the text that went into the hook and the text that came
out, and at the stream's end compares the two:

- nothing, when they are equal (text that was only held back and released);
- one ``redacted`` note per detection when the hook's processor can say where it redacts
  (``redaction_spans(text, state)``, as the redacting guardrails do; ``state`` is the hook's
  ``state`` dict, or ``None``): its type and position, never the value;
- else one note for the changed region: ``replaced``, ``dropped`` or ``inserted``, with its
  position and the text the client got instead (never the text that was removed).

A chunk of another type (``tool-result``, ``tool-call``, ...) that the hook replaced with a
different one, or dropped, gets a note naming its type. A rejected attempt's streams (a retry
marker, a new ``step-start``) are forgotten without notes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk

__all__ = ["StreamWatch"]

TEXT_FIELDS = {
    "text-delta": ("text", "text", "id"),
    "reasoning-delta": ("reasoning", "text", "id"),
    "tool-call-delta": ("tool-call-args", "argsTextDelta", "toolCallId"),
}
"""For each delta type: the stream kind it feeds, the field with its text, its stream id."""

ENDS = {
    "text-end": "text",
    "reasoning-end": "reasoning",
    "tool-call-input-streaming-end": "tool-call-args",
}
"""Chunks that end one stream (the one with the chunk's id)."""

ENDS_ALL = frozenset({"tool-call", "finish", "step-finish"})
"""Chunks that end every open stream of the step."""

AFTER_LIMIT = 200
"""The most characters of replacement text a note carries."""

Key = tuple[str, object]
Send = Callable[[dict[str, Any]], None]


class StreamWatch:
    """One stream hook's text in and out, per stream, until the stream ends."""

    __slots__ = ("hook", "send", "streams")

    def __init__(self, hook: Any, send: Send) -> None:
        self.hook = hook
        self.send = send
        self.streams: dict[Key, tuple[list[str], list[str]]] = {}

    def around(self, hook: Any, call: Callable[[Chunk], Any]) -> Callable[[Chunk], Any]:
        """``call`` (``hook``'s bound caller), watched (a :meth:`StreamHook.wrap` wrapper,
        applied again when a retry rebinds the caller)."""
        if self.hook.is_async:

            async def watched_async(part: Chunk) -> Any:
                out = await call(part)
                self.saw(part, out)
                return out

            return watched_async

        def watched(part: Chunk) -> Any:
            out = call(part)
            if type(out) is not Chunk and out is not None and inspect.isawaitable(out):
                return self.later(part, out)
            self.saw(part, out)
            return out

        return watched

    async def later(self, part: Chunk, pending: Any) -> Any:
        """What a sync hook handed back as an awaitable, watched once it is ready."""
        out = await pending
        self.saw(part, out)
        return out

    def saw(self, part: Chunk, out: Any) -> None:
        """Account for one call: ``part`` went in, ``out`` came out."""
        outs: list[Any] = [] if out is None else out if isinstance(out, list) else [out]
        self.feed(part, into=0)
        passed = False
        for item in outs:
            passed = passed or item is part
            if isinstance(item, Chunk):
                self.feed(item, into=1)
        kind = part.type
        if kind not in TEXT_FIELDS and not passed:
            self.other_chunk(part, outs)
        if kind == "step-start" or (kind == "step-finish" and _is_retry(part)):
            self.streams.clear()  # the rejected attempt's text: nothing to say about it
        elif kind in ENDS:
            self.close((ENDS[kind], _stream_id(part, kind)))
        elif kind in ENDS_ALL:
            for key in list(self.streams):
                self.close(key)

    def feed(self, chunk: Chunk, into: int) -> None:
        """Add a delta's text to its stream's input (0) or output (1)."""
        fields = TEXT_FIELDS.get(chunk.type)
        if fields is None:
            return
        stream, field, id_field = fields
        key = (stream, chunk.payload.get(id_field))
        texts = self.streams.get(key)
        if texts is None:
            texts = self.streams[key] = ([], [])
        text = chunk.payload.get(field)
        if isinstance(text, str) and text:
            texts[into].append(text)

    def other_chunk(self, part: Chunk, outs: list[Any]) -> None:
        """A non-text chunk the hook did not pass on as it was: replaced or dropped."""
        same = [c for c in outs if isinstance(c, Chunk) and c.type == part.type]
        if not same:
            self.note({"action": "dropped", "chunkType": part.type})
        elif any(c.to_dict() != part.to_dict() for c in same):
            self.note({"action": "replaced", "chunkType": part.type})

    def close(self, key: Key) -> None:
        """The stream ended: note what the hook changed in it."""
        texts = self.streams.pop(key, None)
        if texts is None:
            return
        before, after = "".join(texts[0]), "".join(texts[1])
        if before == after:
            return
        stream = key[0]
        start, removed_end, added_end = _changed(before, after)
        spans = self.redaction_spans(before)
        found = [s for s in spans if s[0] < max(removed_end, start + 1) and s[1] > start]
        if found:
            for span_start, span_end, kind in found:
                self.note(
                    {
                        "action": "redacted",
                        "type": kind,
                        "stream": stream,
                        "start": span_start,
                        "length": span_end - span_start,
                    }
                )
            return
        removed, added = removed_end - start, added_end - start
        action = "replaced" if removed and added else "dropped" if removed else "inserted"
        note: dict[str, Any] = {"action": action, "stream": stream, "start": start}
        note["length"] = removed
        if added:
            note["after"] = after[start:added_end][:AFTER_LIMIT]
        self.note(note)

    def redaction_spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where the hook's processor says it redacts in ``text`` (nothing if it cannot)."""
        spans = getattr(self.hook.processor, "redaction_spans", None)
        if not callable(spans):
            return []
        try:
            found = spans(text, self.hook.static.get("state"))
        except Exception:  # a viewer's note never fails the run
            return []
        return [
            (int(s[0]), int(s[1]), str(s[2])) for s in found if isinstance(s, tuple) and len(s) == 3
        ]

    def note(self, data: dict[str, Any]) -> None:
        """Send a note about this hook."""
        hook = self.hook
        head = {"processorId": hook.processor_id, "processorIndex": hook.index, "hook": hook.name}
        self.send({**head, **data})


def _changed(before: str, after: str) -> tuple[int, int, int]:
    """The changed region: where it starts, where it ends in ``before`` and in ``after``."""
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    tail = 0
    while tail < limit - start and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return start, len(before) - tail, len(after) - tail


def _is_retry(part: Chunk) -> bool:
    result = part.payload.get("stepResult")
    return isinstance(result, dict) and result.get("reason") == "retry"


def _stream_id(part: Chunk, kind: str) -> object:
    return part.payload.get("toolCallId" if kind == "tool-call-input-streaming-end" else "id")
