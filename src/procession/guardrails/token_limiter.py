"""``TokenLimiter``: keep the prompt within a token budget, and cut the answer at one.

In the **input lane** it budgets what the model is sent, newest messages first, within
``limit`` minus the system messages and a small reserve:

- ``stage="request"`` (default) trims the provider prompt in ``process_llm_request``: this
  call only; the message list, memory and later calls are untouched. An assistant message and
  the tool results that answer it are kept or dropped together.
- ``stage="step"`` removes remembered (and context) messages from the message list in
  ``process_input_step``; this run's own input and response are never removed (they would
  not be stored), so when they alone do not fit the run is aborted.

``trim_mode`` chooses how: ``"best-fit"`` (default) skips a message that does not fit and
keeps looking at older ones, ``"contiguous"`` stops at the first that does not fit, and
``"memory-only"`` (step stage) trims only remembered history, oldest first, once the prompt is
over ``limit``, down to ``limit - at_max_remove_tokens`` so it does not trim again at once.
The newest message must always fit; when it cannot, or when the system messages alone exceed
the budget, the run is aborted (no retry).

In the **output lane** it counts ``text-delta`` and ``object`` chunks (``count_mode``
``"cumulative"``, default, over the run, or ``"part"``, per chunk). Past ``limit``:
``strategy="truncate"`` (default) keeps the part of the crossing chunk that fits, drops the
rest and sends one transient ``data-token-limit-reached`` chunk; ``"abort"`` ends the run with
"Token limit of N exceeded (current: M)". ``process_output_result`` applies the same limit to
the stored answer.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, TypeAlias

from procession.chunks import Chunk
from procession.guardrails._common.options import check_choice, check_int, option_error
from procession.guardrails._common.reporting import CallbackViolations, ViolationCallback
from procession.guardrails._text.tokens import (
    TokenCounter,
    count_message,
    count_prompt_message,
    resolve_counter,
)
from procession.messages.message import Message
from procession.messages.message_list import MessageList
from procession.messages.parts import TextPart

__all__ = ["PROMPT_RESERVE", "TokenLimiter", "TrimMode"]

logger = logging.getLogger("procession.processors.token_limiter")

TrimMode: TypeAlias = Literal["best-fit", "contiguous", "memory-only"]
"""How ``TokenLimiter`` trims a prompt: ``best-fit``, ``contiguous`` or ``memory-only``."""
PROMPT_RESERVE = 24
"""Tokens kept free for the provider's own prompt framing."""
_OWNER = "TokenLimiter"
_REMOVABLE = frozenset(("memory", "context"))


class TokenLimiter(CallbackViolations):
    """Limits the tokens sent to the model and the tokens of its answer (Mastra's
    ``TokenLimiterProcessor``).

    Args:
        limit: The token budget (>= 1).
        strategy: Output over the limit: ``"truncate"`` (default) or ``"abort"``.
        count_mode: ``"cumulative"`` (default: the whole answer) or ``"part"`` (each chunk).
        trim_mode: ``"best-fit"`` (default), ``"contiguous"`` or ``"memory-only"``.
        stage: Where input is budgeted: ``"request"`` (default) or ``"step"``.
        at_max_remove_tokens: For ``memory-only``: trim down to ``limit`` minus this (0 to
            ``limit``; default a quarter of ``limit``, rounded up, as Mastra's options form).
        counter: ``"auto"`` (default: ``o200k_base``), an encoding name (``"cl100k_base"``,
            ``"llama3"``, ``"qwen3"``), a :class:`TokenCounter` or a function ``text -> int``.
        on_memory_trim: Called with ``{"removed_ids", "removed_tokens", "tokens"}`` when
            ``memory-only`` trims.
        on_violation: Called once for every trim or truncation (D8).
    """

    id = "token-limiter"

    def __init__(
        self,
        limit: int,
        *,
        strategy: Literal["truncate", "abort"] = "truncate",
        count_mode: Literal["cumulative", "part"] = "cumulative",
        trim_mode: TrimMode = "best-fit",
        stage: Literal["request", "step"] = "request",
        at_max_remove_tokens: int | None = None,
        counter: TokenCounter | Callable[[str], int] | str = "auto",
        on_memory_trim: Callable[[dict[str, Any]], Any] | None = None,
        on_violation: ViolationCallback | None = None,
    ) -> None:
        self.limit = check_int(_OWNER, "limit", limit, 1)
        self.strategy = check_choice(_OWNER, "strategy", strategy, ("truncate", "abort"))
        self.count_mode = check_choice(_OWNER, "count_mode", count_mode, ("cumulative", "part"))
        self.trim_mode = check_choice(
            _OWNER, "trim_mode", trim_mode, ("best-fit", "contiguous", "memory-only")
        )
        self.stage = check_choice(_OWNER, "stage", stage, ("request", "step"))
        if self.trim_mode == "memory-only" and self.stage != "step":
            self.stage = "step"  # memory-only trims stored history, which only the step sees
        self.at_max_remove_tokens = (
            _default_headroom(self.limit)
            if at_max_remove_tokens is None
            else check_int(_OWNER, "at_max_remove_tokens", at_max_remove_tokens, 0, self.limit)
        )
        self.counter = resolve_counter(_OWNER, counter)
        if on_memory_trim is not None and not callable(on_memory_trim):
            raise option_error(_OWNER, "on_memory_trim", on_memory_trim, "a callable or None")
        self.on_memory_trim = on_memory_trim
        self.set_on_violation(_OWNER, on_violation)
        self._count = self.counter.count

    # -- input -----------------------------------------------------------------------------

    async def process_llm_request(
        self, *, prompt: list[dict[str, Any]], abort: Callable[..., Any], **_: Any
    ) -> dict[str, Any] | None:
        """Trim this call's prompt to the budget (``stage="request"``)."""
        if self.stage != "request":
            return None
        system = [m for m in prompt if m.get("role") == "system"]
        rest = [m for m in prompt if m.get("role") != "system"]
        budget = self._budget(sum(count_prompt_message(self.counter, m) for m in system), abort)
        groups = _prompt_groups(rest)
        sizes = [sum(count_prompt_message(self.counter, m) for m in g) for g in groups]
        keep = self._fit(sizes, budget, abort)
        if len(keep) == len(groups):
            return None
        kept = [message for index in sorted(keep) for message in groups[index]]
        await self._report(len(rest) - len(kept), sum(sizes) - sum(sizes[i] for i in keep))
        return {"prompt": system + kept}

    async def process_input_step(
        self,
        *,
        message_list: MessageList,
        system_messages: Sequence[Any],
        abort: Callable[..., Any],
        **_: Any,
    ) -> None:
        """Remove remembered messages until the prompt fits (``stage="step"``)."""
        if self.stage != "step":
            return
        system_tokens = sum(self._count(getattr(m, "text", str(m))) + 4 for m in system_messages)
        messages = message_list.get.all.db()
        sizes = [count_message(self.counter, m) for m in messages]
        removable = [message_list.get_source(m) in _REMOVABLE for m in messages]
        if self.trim_mode == "memory-only":
            await self._trim_memory(message_list, messages, sizes, system_tokens)
            return
        budget = self._budget(system_tokens, abort)
        keep = self._fit(sizes, budget, abort, required=[not r for r in removable])
        drop = [m.id for i, m in enumerate(messages) if i not in keep]
        if drop:
            message_list.remove_by_ids(drop)
            await self._report(len(drop), sum(s for i, s in enumerate(sizes) if i not in keep))

    def _budget(self, system_tokens: int, abort: Callable[..., Any]) -> int:
        budget = self.limit - system_tokens - PROMPT_RESERVE
        if budget <= 0:
            abort(
                f"System messages alone use {system_tokens} tokens, more than the token limit "
                f"of {self.limit} allows",
                metadata={"limit": self.limit, "system_tokens": system_tokens},
            )
        return budget

    def _fit(
        self,
        sizes: list[int],
        budget: int,
        abort: Callable[..., Any],
        required: list[bool] | None = None,
    ) -> set[int]:
        """The indexes kept, newest first within ``budget``; required ones always."""
        if not sizes:
            abort("No messages to send to the model", metadata={"limit": self.limit})
        keep: set[int] = set()
        used = 0
        must = required or [False] * len(sizes)
        must[-1] = True  # the newest message is never dropped
        for index in sorted(range(len(sizes)), key=lambda i: (not must[i], -i)):
            if used + sizes[index] <= budget:
                keep.add(index)
                used += sizes[index]
            elif must[index]:
                abort(
                    f"Token limit of {self.limit} exceeded: the messages that must be sent use "
                    f"{used + sizes[index]} tokens of a {budget}-token budget",
                    metadata={"limit": self.limit, "budget": budget},
                )
            elif self.trim_mode == "contiguous":
                break
        return keep

    async def _trim_memory(
        self,
        message_list: MessageList,
        messages: list[Message],
        sizes: list[int],
        system_tokens: int,
    ) -> None:
        total = system_tokens + sum(sizes)
        if total <= self.limit:
            return
        target = self.limit - self.at_max_remove_tokens
        removed: list[str] = []
        for message, size in zip(messages, sizes, strict=True):  # oldest first
            if total <= target:
                break
            if message_list.get_source(message) == "memory":
                removed.append(message.id)
                total -= size
        if not removed:
            return
        message_list.remove_by_ids(removed)
        removed_tokens = sum(sizes) + system_tokens - total
        if self.on_memory_trim is not None:
            outcome = self.on_memory_trim(
                {"removed_ids": removed, "removed_tokens": removed_tokens, "tokens": total}
            )
            if hasattr(outcome, "__await__"):
                await outcome
        await self._report(len(removed), removed_tokens)

    async def _report(self, count: int, tokens: int) -> None:
        from procession.processors.base import ProcessorViolation, notify_violation

        await notify_violation(
            self,
            ProcessorViolation(
                processor_id=self.id,
                message=f"trimmed {count} message(s) ({tokens} tokens) to fit {self.limit}",
                detail={"removed": count, "removed_tokens": tokens, "limit": self.limit},
            ),
        )

    # -- output ----------------------------------------------------------------------------

    def process_output_stream(
        self,
        *,
        part: Chunk,
        state: dict[str, Any],
        abort: Callable[..., Any],
        writer: Any,
        **_: Any,
    ) -> Chunk | Any | None:
        """Count the answer's tokens; truncate or abort past the limit."""
        kind = part.type
        if kind == "text-delta":
            text = part.payload.get("text", "")
        elif kind == "object":
            text = json.dumps(part.payload.get("object"), ensure_ascii=False)
        else:
            return part
        if state.get("exhausted"):
            return None
        tokens = self._count(text)
        used = state.get("output_tokens", 0) if self.count_mode == "cumulative" else 0
        total = used + tokens
        if total <= self.limit:
            state["output_tokens"] = total
            return part
        if self.strategy == "abort":
            abort(
                f"Token limit of {self.limit} exceeded (current: {total})",
                metadata={"limit": self.limit, "current": total},
            )
        return self._truncate(part, text, self.limit - used, total, state, writer)

    def _truncate(
        self,
        part: Chunk,
        text: str,
        room: int,
        total: int,
        state: dict[str, Any],
        writer: Any,
    ) -> Chunk | Any | None:
        if self.count_mode == "cumulative":
            state["exhausted"] = True
        kept = self._prefix(text, room) if part.type == "text-delta" and room > 0 else ""
        state["output_tokens"] = state.get("output_tokens", 0) + self._count(kept)
        if not state.get("notified"):
            state["notified"] = True
            writer.custom(
                {
                    "type": "data-token-limit-reached",
                    "data": {"processorId": self.id, "limit": self.limit, "tokens": total},
                    "transient": True,
                }
            )
            return self._notify_truncation(part, kept, total)
        return part.copy(payload={**part.payload, "text": kept}) if kept else None

    async def _notify_truncation(self, part: Chunk, kept: str, total: int) -> Chunk | None:
        from procession.processors.base import ProcessorViolation, notify_violation

        await notify_violation(
            self,
            ProcessorViolation(
                processor_id=self.id,
                message=f"Token limit of {self.limit} exceeded (current: {total}): truncated",
                detail={"limit": self.limit, "current": total},
            ),
        )
        return part.copy(payload={**part.payload, "text": kept}) if kept else None

    def _prefix(self, text: str, room: int) -> str:
        """The longest prefix of ``text`` within ``room`` tokens (a binary search)."""
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if self._count(text[:middle]) <= room:
                low = middle
            else:
                high = middle - 1
        return text[:low]

    def process_output_result(
        self, *, messages: list[Message], abort: Callable[..., Any], **_: Any
    ) -> None:
        """Hold the stored answer to the limit too (truncating or aborting). In ``part`` mode
        the limit is per streamed chunk, and the stream already held each one to it."""
        if self.count_mode == "part":
            return
        used = 0
        for message in messages:
            if message.role != "assistant":
                continue
            for part in message.content.parts:
                if not isinstance(part, TextPart):
                    continue
                tokens = self._count(part.text)
                if used + tokens > self.limit:
                    if self.strategy == "abort":
                        abort(
                            f"Token limit of {self.limit} exceeded (current: {used + tokens})",
                            metadata={"limit": self.limit, "current": used + tokens},
                        )
                    part.text = self._prefix(part.text, self.limit - used)
                    tokens = self._count(part.text)
                used += tokens


def _prompt_groups(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Prompt messages grouped so tool results stay with the call that asked for them."""
    groups: list[list[dict[str, Any]]] = []
    for message in messages:
        if message.get("role") == "tool" and groups:
            groups[-1].append(message)
        else:
            groups.append([message])
    return groups


def _default_headroom(limit: int) -> int:
    """Mastra's default ``atMaxRemoveTokens``: a quarter of ``limit``, rounded up.

    Mastra trims while ``tokens > limit - limit * 0.25``; token counts are whole numbers, so
    rounding the quarter up gives the same stopping point.
    """
    return math.ceil(limit * 0.25)
