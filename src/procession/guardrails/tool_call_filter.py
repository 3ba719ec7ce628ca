"""``ToolCallFilter``: leave old tool calls and their results out of the prompt.

Long conversations carry every tool call and result; the model rarely needs the old ones and
they cost tokens. This input processor removes tool-call / tool-result pairs from the provider
prompt in ``process_llm_request``: that call only, never the message list or memory.

By default only **history** is filtered: the calls already in the run's first prompt (earlier
turns), so the current run still sees the results it is working with.
``filter_after_tool_steps=n`` instead keeps the last ``n`` assistant messages that called
tools and filters all older ones, this run's included. ``exclude`` limits the filter to some
tool names (default: every tool). ``preserve_model_output`` puts a short text in place of a
removed pair: ``True`` keeps the result as the model saw it, ``"<tool> result:\n<text>"`` as
Mastra writes it, and a function of ``(tool_name, args, result)`` writes your own. A message
left empty is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from procession.guardrails._common.options import check_int, check_str_list, option_error
from procession.processors.base import Processor

__all__ = ["ModelOutput", "ToolCallFilter"]

ModelOutput = Callable[[str, Any, Any], "str | None"]
"""``(tool_name, args, result) -> text``: what stands in for a removed call in the prompt."""

_HISTORY = "history_call_ids"


class ToolCallFilter(Processor):
    """Removes tool calls and their results from the prompt (Mastra's ``ToolCallFilter``).

    Args:
        exclude: Tool names to filter (default: all tools; ``[]`` filters none, as in Mastra).
        filter_after_tool_steps: Keep the last ``n`` tool-calling assistant messages and
            filter the older ones (default ``None``: filter the calls of earlier turns only).
        preserve_model_output: ``True`` to keep each removed result's model output as
            ``"<tool> result:\n<text>"`` (Mastra's form), or a function
            ``(tool_name, args, result) -> str | None``.
    """

    id = "tool-call-filter"

    def __init__(
        self,
        *,
        exclude: Sequence[str] | None = None,
        filter_after_tool_steps: int | None = None,
        preserve_model_output: bool | ModelOutput = False,
    ) -> None:
        owner = "ToolCallFilter"
        self.exclude = (
            None
            if exclude is None
            else frozenset(check_str_list(owner, "exclude", exclude, allow_empty=True))
        )
        self.filter_after_tool_steps = (
            None
            if filter_after_tool_steps is None
            else check_int(owner, "filter_after_tool_steps", filter_after_tool_steps, 0)
        )
        if not isinstance(preserve_model_output, bool) and not callable(preserve_model_output):
            raise option_error(
                owner, "preserve_model_output", preserve_model_output, "a bool or a function"
            )
        self.preserve_model_output = preserve_model_output

    def process_llm_request(
        self, *, prompt: list[dict[str, Any]], state: dict[str, Any], **_: Any
    ) -> dict[str, Any] | None:
        """Return the prompt without the filtered tool calls (``None`` when nothing changes)."""
        if _HISTORY not in state:  # the run's first prompt: what it holds is history
            state[_HISTORY] = frozenset(_call_ids(prompt))
        doomed = self._doomed(prompt, state[_HISTORY])
        if not doomed:
            return None
        results = _results(prompt)
        out: list[dict[str, Any]] = []
        for message in prompt:
            content = message.get("content")
            if not isinstance(content, list) or message.get("role") not in ("assistant", "tool"):
                out.append(message)
                continue
            kept = self._filter_parts(content, doomed, results)
            if kept:
                out.append({**message, "content": kept})
        return {"prompt": out}

    def _doomed(self, prompt: list[dict[str, Any]], history: frozenset[str]) -> set[str]:
        keep_last = self.filter_after_tool_steps
        calls = [
            (index, part)
            for index, message in enumerate(prompt)
            if message.get("role") == "assistant"
            for part in _parts(message)
            if part.get("type") == "tool-call"
        ]
        recent: set[int] = set()
        if keep_last is not None and keep_last > 0:
            recent = set(sorted({index for index, _ in calls})[-keep_last:])
        doomed: set[str] = set()
        for index, part in calls:
            if self.exclude is not None and part.get("toolName") not in self.exclude:
                continue
            call_id = part.get("toolCallId")
            if keep_last is None and call_id not in history:
                continue
            if index in recent:
                continue
            doomed.add(str(call_id))
        return doomed

    def _filter_parts(
        self, content: list[Any], doomed: set[str], results: dict[str, Any]
    ) -> list[Any]:
        kept: list[Any] = []
        for part in content:
            if not isinstance(part, dict) or part.get("toolCallId") not in doomed:
                kept.append(part)
                continue
            if part.get("type") == "tool-call" and self.preserve_model_output:
                text = self._model_output(part, results.get(part["toolCallId"]))
                if text:
                    kept.append({"type": "text", "text": text})
        return kept

    def _model_output(self, call: dict[str, Any], output: Any) -> str | None:
        name = str(call.get("toolName", ""))
        if callable(self.preserve_model_output):
            value = output.get("value") if isinstance(output, dict) else output
            return self.preserve_model_output(name, call.get("input"), value)
        text = _model_output_text(output)
        return f"{name} result:\n{text}" if text else None


def _model_output_text(output: Any) -> str | None:
    """A tool result's model-facing output (the prompt's ``output``) as text, by Mastra's
    rules: a string as is, a typed part by its ``value`` or ``text``, a list line by line,
    anything else as compact JSON."""
    if isinstance(output, str):
        return output
    if isinstance(output, bool):
        return "true" if output else "false"
    if isinstance(output, int | float):
        return _json(output)
    if isinstance(output, list):
        lines = [text for text in (_model_output_text(item) for item in output) if text]
        return "\n".join(lines) or _json(output)
    if isinstance(output, dict):
        if output.get("type") == "text":
            for field in ("value", "text"):
                if isinstance(output.get(field), str):
                    return str(output[field])
        if "value" in output:
            return _model_output_text(output["value"])
        if isinstance(output.get("text"), str):
            return str(output["text"])
        return _json(output)
    return None


def _json(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError):
        return None


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []


def _call_ids(prompt: list[dict[str, Any]]) -> list[str]:
    return [
        str(part["toolCallId"])
        for message in prompt
        for part in _parts(message)
        if part.get("type") == "tool-call" and "toolCallId" in part
    ]


def _results(prompt: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        str(part.get("toolCallId")): part.get("output")
        for message in prompt
        for part in _parts(message)
        if part.get("type") == "tool-result"
    }
