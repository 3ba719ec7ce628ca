"""``PrefillErrorHandler``: recover when a provider rejects a prompt ending on an assistant turn.

Some providers refuse "assistant prefill" (a conversation whose last message is the
assistant's). On the first API error of a run whose text matches one of the known variants,
this error processor appends a short user continuation message (source ``context``: prompted,
never stored) and asks for a retry. It gives up after that one attempt.
"""

from __future__ import annotations

import re
from typing import Any

from procession.messages.message import Message
from procession.messages.message_list import MessageList
from procession.processors.base import Processor

__all__ = ["PREFILL_PATTERNS", "PrefillErrorHandler"]

PREFILL_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"assistant (message )?prefill (is )?not supported", re.I),
    re.compile(r"does not support assistant (message )?prefill", re.I),
    re.compile(r"requests ending with a model turn are not supported", re.I),
    re.compile(r"conversation (must|should) end with a user (message|turn)", re.I),
    re.compile(r"final (message|turn) must be (from )?(the )?user", re.I),
    re.compile(r"last message (must|should) (be|have) (the )?(role )?['\"]?user", re.I),
    re.compile(r"(assistant (response|message) )?prefill is incompatible with", re.I),
)
"""Provider error texts that mean "the prompt may not end on an assistant turn"."""


def _error_text(error: object) -> str:
    parts = [str(error)]
    for attribute in ("message", "response_body"):
        value = getattr(error, attribute, None)
        if isinstance(value, str):
            parts.append(value)
    return "\n".join(parts)


class PrefillErrorHandler(Processor):
    """Retry once with a continuation message when the provider rejects assistant prefill."""

    id = "prefill-error-handler"

    def __init__(self, continuation: str = "Continue.") -> None:
        self.continuation = continuation

    def process_api_error(
        self, *, error: object, message_list: MessageList, retry_count: int, **_: Any
    ) -> dict[str, bool] | None:
        """Add the continuation and ask for a retry, on the first matching error only."""
        if retry_count > 0:
            return None
        text = _error_text(error)
        if not any(pattern.search(text) for pattern in PREFILL_PATTERNS):
            return None
        message_list.add(Message.user(self.continuation), "context")
        return {"retry": True}
