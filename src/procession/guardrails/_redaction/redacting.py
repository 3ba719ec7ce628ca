"""``RedactingProcessor``: every channel a secret can leave a run by, for every redactor.

``StreamRedactor``, ``RegexFilter``, ``PIIDetector`` and ``SystemPromptScrubber`` all build on
it. Given a :class:`~procession.guardrails._redaction.redaction.RedactionEngine` it covers:

- text deltas and reasoning deltas, held across chunks by one
  :class:`~procession.guardrails._redaction.redaction.StreamScanner` each;
- streamed tool-call arguments (``tool-call-delta``, one scanner per call) and the
  ``tool-call`` chunk, whose displayed arguments are redacted while ``execution_args`` keeps
  the real ones for the tool;
- ``tool-result`` and ``tool-error`` chunks, redacted for display;
- what the chunk path cannot reach: in ``process_output_result`` (before anything is stored,
  D13) the tool results and errors of the stored messages and of ``result.steps``.

Held text is released, redacted, at ``text-end``, ``reasoning-end``, the end of a call's
argument stream, a ``tool-call``, ``finish`` and ``step-finish``; a retry marker
(``step-finish`` with reason ``retry``) or a new ``step-start`` discards it, since the attempt
it belonged to was rejected.

Strategies: ``redact`` (replace), ``block`` (abort the run: nothing held is ever released),
``warn`` (report and pass the text unchanged) and ``filter`` (drop the text or chunk that
holds a detection). Every detection is reported to ``on_violation`` once (D8); under
``block`` the abort is that report.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, Literal

from procession.chunks import Chunk
from procession.guardrails._common.options import check_int
from procession.guardrails._redaction.detectors import Detection
from procession.guardrails._redaction.echo import ECHO_STATE, ECHO_TYPE, EchoMemory, EchoPattern
from procession.guardrails._redaction.redaction import (
    CustomRule,
    RedactionEngine,
    StreamScanner,
    apply,
)
from procession.messages.parts import TextPart, ToolInvocationPart
from procession.processors.base import Processor, ProcessorViolation, notify_violation

__all__ = ["RUN_ENGINE", "STRATEGIES", "RedactingProcessor", "Strategy", "check_hold"]

logger = logging.getLogger("procession.processors")

Strategy = Literal["redact", "block", "warn", "filter"]
"""What a redacting processor does with a detection: ``redact``, ``block``, ``warn`` or
``filter`` (see the module doc)."""
STRATEGIES: tuple[str, ...] = ("redact", "block", "warn", "filter")
"""Every ``Strategy``, for checking the ``strategy`` argument."""

_TEXT, _REASONING = "text", "reasoning"
RUN_ENGINE = "engine"
"""The ``state`` key of an engine built for one run (a processor whose detection depends on
the run, such as ``SystemPromptScrubber``, puts it there before the first chunk)."""


def check_hold(owner: str, value: object) -> int:
    """The ``hold`` option: an int of at least 1 (a ``bool`` is not an int, D35)."""
    return check_int(owner, "hold", value, 1)


class RedactingProcessor(Processor[Any]):
    """Base class of the redacting processors (see the module docstring).

    Subclasses set :attr:`engine`, :attr:`strategy`, :attr:`tool_chunks` and implement
    :meth:`replacement`.
    """

    engine: RedactionEngine
    strategy: Strategy = "redact"
    tool_chunks: bool = True
    include_redacted_values: bool = False
    _callback: Callable[[ProcessorViolation[Any]], Any] | None = None

    def replacement(self, detection: Detection) -> str:
        """The text that replaces ``detection`` under the ``redact`` strategy."""
        raise NotImplementedError

    def on_violation(self, violation: ProcessorViolation[Any]) -> Any:
        """Calls the ``on_violation`` callback given to the constructor, if any (D8)."""
        if self._callback is not None:
            return self._callback(violation)
        return None

    # -- reporting -----------------------------------------------------------------------

    def _reports(self) -> bool:
        return self._callback is not None or (
            type(self).on_violation is not RedactingProcessor.on_violation
        )

    def violation(self, detection: Detection, channel: str) -> ProcessorViolation[Any]:
        """The report of one detection."""
        kind = detection.type
        detail: dict[str, Any] = {
            "processorId": self.id,
            "type": kind,
            "strategy": self.strategy,
            "channel": channel,
        }
        if self.include_redacted_values:
            detail["value"] = detection.value
        verb = {"redact": "redacted", "block": "blocked", "filter": "filtered"}.get(
            self.strategy, "detected"
        )
        return ProcessorViolation(processor_id=self.id, message=f"{verb} {kind}", detail=detail)

    def redaction_spans(
        self, text: str, state: dict[str, Any] | None = None
    ) -> list[tuple[int, int, str]]:
        """Where this processor finds something in a complete ``text``: ``(start, end, type)``
        per detection, the type as its reports name it, never the value (Studio's notes).
        With the run's ``state`` (of ``process_output_stream``), the fragments of cards the
        run has seen count too."""
        engine = self.run_engine(state) if state is not None else self.engine
        out: list[tuple[int, int, str]] = []
        for found in engine.scan(text):
            if found.type.startswith("+"):
                continue
            detail = self.violation(found, "text").detail
            kind = detail.get("type", found.type) if isinstance(detail, dict) else found.type
            out.append((found.start, found.end, str(kind)))
        return out

    def block_reason(self, detections: Sequence[Detection], where: str) -> str:
        """The abort reason under ``block``."""
        kinds = sorted({d.type.lstrip("+") for d in detections})
        return f"{self.name}: blocked {where} matching {', '.join(kinds)}"

    def _block(self, abort: Any, detections: Sequence[Detection], where: str) -> None:
        metadata = {
            "processorId": self.id,
            "strategy": "block",
            "detections": [self._public(d) for d in detections if not d.type.startswith("+")],
        }
        abort(self.block_reason(detections, where), metadata=metadata)

    def _public(self, detection: Detection) -> dict[str, Any]:
        out: dict[str, Any] = {"type": detection.type, "start": detection.start}
        if self.include_redacted_values:
            out["value"] = detection.value
        return out

    def _reported(self, value: Any, detections: Sequence[Detection], channel: str) -> Any:
        """``value``, after reporting ``detections`` (an awaitable only when someone listens)."""
        if self.strategy != "warn" and self.strategy != "filter" and self.strategy != "redact":
            return value
        fresh = [d for d in detections if not d.type.startswith("+")]
        if self.strategy == "warn":
            logger.warning("%s detected %s", self.id, ", ".join(d.type for d in fresh))
        if not fresh or not self._reports():
            return value
        return self._notify(value, [self.violation(d, channel) for d in fresh])

    async def _notify(self, value: Any, violations: list[ProcessorViolation[Any]]) -> Any:
        for violation in violations:
            await notify_violation(self, violation)
        return value

    # -- text ----------------------------------------------------------------------------

    def _apply(self, text: str, detections: Sequence[Detection]) -> str | None:
        """What the strategy makes of released ``text`` holding ``detections``."""
        if self.strategy == "warn":
            return text
        if self.strategy == "filter":
            return None
        return apply(text, detections, self.replacement)

    def redact_text(self, text: str, abort: Any, where: str) -> tuple[str | None, list[Detection]]:
        """A complete text under the strategy (``None``: filtered out), and its detections."""
        found = self.engine.scan(text)
        if not found:
            return text, found
        if self.strategy == "block":
            self._block(abort, found, where)
        return self._apply(text, found), found

    async def apply_judged(self, part: TextPart, found: list[Detection], abort: Any) -> None:
        """Apply the strategy to what a judge found in a text part (edited in place, D24):
        ``block`` aborts, ``redact`` and ``filter`` replace the spans, every one is reported."""
        if not found:
            return
        if self.strategy == "block":
            self._block(abort, found, "content")
        if self.strategy in ("redact", "filter"):
            part.text = apply(part.text, found, self.replacement)
        pending = self._reported(None, found, "judge")
        if pending is not None:
            await pending

    # -- process_output_stream -------------------------------------------------------------

    def process_output_stream(self, *, part: Chunk, state: dict[str, Any], abort: Any) -> Any:
        """Redact the chunk's text as it streams; flush or reset at the boundaries."""
        kind = part.type
        if kind == "text-delta":
            payload = part.payload
            state["id:text"] = payload.get("id")
            scanner = state.get("text")  # `_TEXT`, without a global lookup on the hot path
            if scanner is not None:  # the hot path: most deltas only join the held batch
                text = payload.get("text") or ""
                size = len(text)
                if size < scanner.room:
                    scanner.held += text
                    scanner.room -= size
                    return None
            return self._delta(part, state, _TEXT, "text", abort)
        if kind == "reasoning-delta":
            state["id:reasoning"] = part.payload.get("id")
            return self._delta(part, state, _REASONING, "text", abort)
        if kind == "tool-call-delta" and self.tool_chunks:
            key = "call:" + str(part.payload.get("toolCallId"))
            return self._delta(part, state, key, "argsTextDelta", abort)
        return self._boundary(part, state, abort)

    def _delta(self, part: Chunk, state: dict[str, Any], key: str, field: str, abort: Any) -> Any:
        scanner: StreamScanner | None = state.get(key)
        payload = part.payload
        if scanner is None:
            scanner = state[key] = self.run_engine(state).scanner()
        text, found = scanner.feed(payload.get(field) or "")
        if found:
            return self._released(part, field, text, found, abort, key)
        if not text:
            return None
        return Chunk(part.type, {**payload, field: text}, part.run_id)

    def _released(
        self,
        part: Chunk,
        field: str,
        text: str,
        found: list[Detection],
        abort: Any,
        key: str,
    ) -> Any:
        if self.strategy == "block":
            self._block(abort, found, "streamed " + _channel(key))
        out = self._apply(text, found)
        chunk = part.copy(payload={**part.payload, field: out}) if out else None
        return self._reported(chunk, found, _channel(key))

    def _flush(self, part: Chunk, state: dict[str, Any], key: str, abort: Any) -> Any:
        """The held text of ``key``'s stream as a chunk before ``part`` (or ``None``)."""
        scanner: StreamScanner | None = state.get(key)
        if scanner is None or not scanner.held:
            return None
        text, found = scanner.flush()
        if key.startswith("call:"):
            kind, field = "tool-call-delta", "argsTextDelta"
            payload: dict[str, Any] = {"toolCallId": key[5:], field: text}
        else:
            kind, field = ("text-delta" if key == _TEXT else "reasoning-delta"), "text"
            payload = {"id": state.get("id:" + key), field: text}
        held = Chunk(kind, payload, part.run_id)
        if not found:
            return held
        return self._released(held, field, text, found, abort, key)

    def _boundary(self, part: Chunk, state: dict[str, Any], abort: Any) -> Any:
        kind = part.type
        if kind == "text-end":
            return self._before(part, [self._flush(part, state, _TEXT, abort)])
        if kind == "reasoning-end":
            return self._before(part, [self._flush(part, state, _REASONING, abort)])
        if kind == "tool-call-input-streaming-end":
            key = "call:" + str(part.payload.get("toolCallId"))
            return self._before(part, [self._flush(part, state, key, abort)])
        if kind == "step-start" or (
            kind == "step-finish" and part.payload.get("stepResult", {}).get("reason") == "retry"
        ):
            for value in state.values():
                if isinstance(value, StreamScanner):
                    value.reset()
            return part
        if kind in ("tool-call", "finish", "step-finish"):
            flushed = [
                self._flush(part, state, key, abort)
                for key in list(state)
                if isinstance(state[key], StreamScanner)
            ]
            if kind == "tool-call" and self.tool_chunks:
                part = self._tool_call(part, abort, self.run_engine(state))
            return self._before(part, flushed)
        if self.tool_chunks and kind in ("tool-result", "tool-error"):
            return self._tool_output(part, abort, self.run_engine(state), state)
        return part

    # -- what the run has seen -------------------------------------------------------------

    def run_engine(self, state: dict[str, Any]) -> RedactionEngine:
        """The engine of this run: the processor's, or the run's own (``RUN_ENGINE``), which
        also knows the fragments of the cards the run has seen (rebuilt from the JSON echo
        memory in ``state`` when a resumed run lacks it)."""
        engine: RedactionEngine | None = state.get(RUN_ENGINE)
        if engine is not None:
            return engine
        if ECHO_STATE not in state:
            return self.engine
        memory = EchoMemory.from_state(state[ECHO_STATE])
        engine = state[RUN_ENGINE] = _with_echoes(self.engine, memory)
        return engine

    def remember(self, state: dict[str, Any], detections: Sequence[Detection]) -> None:
        """Fingerprint the cards among ``detections`` (seen in the run's input or a tool's
        output), so that later text showing their fragments is redacted too."""
        cards = [d.value for d in detections if d.type == "credit-card"]
        if not cards or self.strategy == "warn":
            return
        engine = state.get(RUN_ENGINE)
        if engine is not None and ECHO_STATE not in state:
            return  # a run engine of a subclass's own (SystemPromptScrubber): left alone
        memory = EchoMemory.from_state(state[ECHO_STATE]) if ECHO_STATE in state else EchoMemory()
        fresh = [memory.remember(card) for card in cards]  # every card, not just the first
        if not any(fresh):
            return
        state[ECHO_STATE] = memory.to_state()
        engine = state[RUN_ENGINE] = _with_echoes(self.engine, memory)
        for value in state.values():
            if isinstance(value, StreamScanner):
                value.rebind(engine)

    def _before(self, part: Any, flushed: list[Any]) -> Any:
        """``flushed`` chunks (some perhaps awaitables), then ``part``."""
        items = [item for item in flushed if item is not None]
        if not items:
            return part
        if any(not isinstance(item, Chunk) for item in (*items, part) if item is not None):
            return _gather(items, part)
        return [*items, part] if part is not None else items

    # -- tool chunks -----------------------------------------------------------------------

    def _tool_call(self, part: Chunk, abort: Any, engine: Any) -> Any:
        args = part.payload.get("args")
        found: list[Detection] = []
        shown = self._redact_json(args, found, engine)
        if not found:
            return part
        if self.strategy == "block":
            self._block(abort, found, "tool-call arguments")
        if self.strategy == "filter":
            return self._reported(None, found, "tool-call")
        if self.strategy == "warn":
            return self._reported(part, found, "tool-call")
        chunk = part.copy(payload={**part.payload, "args": shown})
        chunk.execution_args = part.execution_args if part.execution_args is not None else args
        return self._reported(chunk, found, "tool-call")

    def _tool_output(
        self, part: Chunk, abort: Any, engine: Any, state: dict[str, Any] | None = None
    ) -> Any:
        field = "result" if part.type == "tool-result" else "error"
        found: list[Detection] = []
        shown = self._redact_json(part.payload.get(field), found, engine)
        if not found:
            return part
        if state is not None:
            self.remember(state, found)
        if self.strategy == "block":
            self._block(abort, found, part.type)
        if self.strategy == "filter":
            return self._reported(None, found, part.type)
        if self.strategy == "warn":
            return self._reported(part, found, part.type)
        return self._reported(part.copy(payload={**part.payload, field: shown}), found, part.type)

    def _redact_json(self, value: Any, found: list[Detection], engine: Any = None) -> Any:
        """``value`` with every string in it redacted; detections appended to ``found``."""
        if isinstance(value, str):
            hits = (engine or self.engine).scan(value)
            if not hits:
                return value
            found.extend(hits)
            return apply(value, hits, self.replacement)
        if isinstance(value, dict):
            return {key: self._redact_json(item, found, engine) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._redact_json(item, found, engine) for item in value]
        return value

    # -- stored messages -------------------------------------------------------------------

    def process_output_result(self, *, messages: list[Any], result: Any) -> None:
        """Redact what the chunk path cannot reach before it is stored (D13): tool results and
        tool errors in the response messages and in ``result.steps`` (already reported when
        their chunks passed)."""
        if not self.tool_chunks or self.strategy != "redact":
            return
        ignored: list[Detection] = []
        for message in messages:
            for part in message.content.parts:
                if isinstance(part, ToolInvocationPart):
                    invocation = part.tool_invocation
                    invocation.result = self._redact_json(invocation.result, ignored)
                    if invocation.error_text:
                        invocation.error_text = self._redact_json(invocation.error_text, ignored)
        for step in getattr(result, "steps", ()):
            for outcome in step.tool_results:
                outcome.result = self._redact_json(outcome.result, ignored)
                if outcome.error:
                    outcome.error = self._redact_json(outcome.error, ignored)

    def redact_messages(self, messages: list[Any], abort: Any, where: str) -> Any:
        """Apply the strategy to the text parts of ``messages`` (input, or a final check).

        Returns ``None`` (edited in place, or nothing found) or the list without filtered
        messages; an awaitable when detections must be reported.
        """
        kept: list[Any] = []
        filtered = False
        found_all: list[Detection] = []
        for message in messages:
            drop = False
            for part in message.content.parts:
                if not isinstance(part, TextPart):
                    continue
                text, found = self.redact_text(part.text, abort, where)
                found_all.extend(found)
                if text is None:
                    drop = True
                elif text is not part.text:
                    part.text = text
            if drop:
                filtered = True
            else:
                kept.append(message)
        return self._reported(kept if filtered else None, found_all, where)


def _with_echoes(engine: RedactionEngine, memory: EchoMemory) -> RedactionEngine:
    """``engine`` plus a rule for the fragments of the cards in ``memory``."""
    rule = CustomRule(ECHO_TYPE, EchoPattern(memory), "[CREDIT_CARD]")
    rules = tuple(r for r in engine.rules if not isinstance(r.pattern, EchoPattern))
    return RedactionEngine(engine.detectors, (*rules, rule), hold=engine.hold, batch=engine.batch)


async def _gather(items: list[Any], part: Any) -> list[Chunk]:
    out: list[Chunk] = []
    for item in (*items, part):
        if item is None:
            continue
        if not isinstance(item, Chunk | list):
            item = await item
        if isinstance(item, list):
            out.extend(item)
        elif item is not None:
            out.append(item)
    return out


def _channel(key: str) -> str:
    return "tool-call" if key.startswith("call:") else key
