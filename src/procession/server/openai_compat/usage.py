"""Token usage and finish reasons in OpenAI's names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from procession.chunks import Usage

__all__ = ["chat_usage", "finish_reason", "refusal_text", "response_usage", "usage_of"]

_FINISH = {"stop": "stop", "length": "length", "content-filter": "content_filter"}
"""procession's finish reasons as OpenAI's; ``tool-calls`` (the step budget ran out while the
model still called tools) is ``length``, anything else ``stop``."""


def finish_reason(reason: object) -> str:
    """OpenAI's ``finish_reason`` for a procession finish reason."""
    if reason == "tool-calls":
        return "length"
    return _FINISH.get(reason, "stop") if isinstance(reason, str) else "stop"


def usage_of(value: Usage | Mapping[str, Any] | None) -> Usage:
    """A :class:`Usage` from a result's or a ``finish`` chunk's usage."""
    if value is None:
        return Usage()
    if isinstance(value, Usage):
        return value
    return Usage(
        value.get("inputTokens"),
        value.get("outputTokens"),
        value.get("totalTokens"),
        value.get("reasoningTokens"),
        value.get("cachedInputTokens"),
    )


def _counts(usage: Usage) -> tuple[int, int, int]:
    prompt, completion = usage.input_tokens or 0, usage.output_tokens or 0
    return prompt, completion, usage.total_tokens or prompt + completion


def chat_usage(usage: Usage) -> dict[str, Any]:
    """Chat Completions' ``usage``."""
    prompt, completion, total = _counts(usage)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": total,
        "prompt_tokens_details": {"cached_tokens": usage.cached_input_tokens or 0},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
    }


def response_usage(usage: Usage) -> dict[str, Any]:
    """The Responses API's ``usage``."""
    prompt, completion, total = _counts(usage)
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": total,
        "input_tokens_details": {"cached_tokens": usage.cached_input_tokens or 0},
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens or 0},
    }


def refusal_text(tripwire: Mapping[str, Any]) -> str:
    """What a client shows for a tripwire: its reason, else which processor blocked."""
    reason = tripwire.get("reason")
    if isinstance(reason, str) and reason:
        return reason
    return f"Blocked by {tripwire.get('processorId') or 'a processor'}"
