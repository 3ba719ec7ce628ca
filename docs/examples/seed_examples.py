"""Every processor example of the Processor interface reference, in Python.

Each class mirrors one example of the seed (``processor-interface.zh-HK.md``); the tests in
``test_seed_examples.py`` run each one through an ``Agent``.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any, cast

from procession import (
    APICallError,
    Chunk,
    Message,
    MessageList,
    Processor,
    StepResult,
    SystemMessage,
    TextPart,
    get_text,
)

# -- basic input processor -----------------------------------------------------------------


class LowercaseProcessor(Processor):
    """Lower-cases the text of every input message (returns new messages)."""

    id = "lowercase"

    async def process_input(self, *, messages: list[Message], **_: Any) -> list[Message]:
        return [
            replace(
                message,
                content=replace(
                    message.content,
                    parts=[
                        replace(part, text=part.text.lower())
                        if isinstance(part, TextPart)
                        else part
                        for part in message.content.parts
                    ],
                ),
            )
            for message in messages
        ]


def _lowered(part: Any) -> Any:
    return replace(part, text=part.text.lower()) if isinstance(part, TextPart) else part


# -- per-step processor with process_input_step ----------------------------------------------


class DynamicModelProcessor(Processor):
    """A fast model first, a strong one after tool calls, no tools after five steps."""

    id = "dynamic-model"

    async def process_input_step(
        self, *, step_number: int, steps: list[StepResult], **_: Any
    ) -> dict[str, Any]:
        if step_number == 0:
            return {"model": "openai/gpt-5-mini"}
        if steps and steps[-1].tool_calls:
            return {"model": "openai/gpt-5.6-sol"}
        if step_number > 5:
            return {"tool_choice": "none"}
        return {}


# -- message transformer with process_input_step ---------------------------------------------


class ReasoningTransformer(Processor):
    """Turns reasoning parts into ``thinking`` parts at each step, editing them in place."""

    id = "reasoning-transformer"

    async def process_input_step(
        self, *, messages: list[Message], message_list: MessageList, **_: Any
    ) -> MessageList:
        for message in messages:
            if message.role == "assistant":
                for part in message.content.parts:
                    if part.type == "reasoning":
                        cast(Any, part).type = "thinking"  # the seed's `(part as any).type`
        return message_list


# -- mixed processor (input and output) ------------------------------------------------------


class ContentFilter(Processor):
    """Blocks input and streamed output that contain a blocked word."""

    id = "content-filter"

    def __init__(self, blocked_words: list[str]) -> None:
        self.blocked_words = blocked_words

    async def process_input(
        self, *, messages: list[Message], abort: Any, **_: Any
    ) -> list[Message]:
        for message in messages:
            text = " ".join(p.text for p in message.content.parts if isinstance(p, TextPart))
            if any(word in text for word in self.blocked_words):
                abort("Blocked content detected in input")
        return messages

    async def process_output_stream(self, *, part: Chunk, abort: Any, **_: Any) -> Chunk | None:
        if part.type == "text-delta" and any(w in part.payload["text"] for w in self.blocked_words):
            abort("Blocked content detected in output")
        return part


# -- stream accumulator with state -----------------------------------------------------------


class WordCounter(Processor):
    """Counts streamed words in per-request state; reports the total on ``finish``."""

    id = "word-counter"

    def __init__(self) -> None:
        self.reports: list[int] = []

    async def process_output_stream(self, *, part: Chunk, state: dict[str, Any], **_: Any) -> Chunk:
        state.setdefault("word_count", 0)  # the seed's `state.wordCount ??= 0`
        if part.type == "text-delta":
            state["word_count"] += len(part.payload["text"].split())
        if part.type == "finish":
            self.reports.append(state["word_count"])
        return part


# -- custom data chunks ------------------------------------------------------------------------


class ModerationCollector(Processor):
    """Collects ``data-moderation`` chunks (it opts in with ``process_data_parts``)."""

    id = "moderation-collector"
    process_data_parts = True

    async def process_output_stream(self, *, part: Chunk, state: dict[str, Any], **_: Any) -> Chunk:
        if part.type == "data-moderation":
            state.setdefault("warnings", []).append(part.data)
        return part


class ModerationWarner(Processor):
    """Emits a stored ``data-moderation`` chunk and a transient ``data-progress`` chunk."""

    id = "moderation-warner"

    async def process_output_step(self, *, writer: Any, text: str, **_: Any) -> None:
        if "unsafe" in text:
            await writer.custom(
                {"type": "data-moderation", "data": {"level": "warn", "reason": "Possibly unsafe"}}
            )
        await writer.custom(
            {"type": "data-progress", "data": {"status": "Processing"}, "transient": True}
        )


# -- retryable quality guardrail ---------------------------------------------------------------


def evaluate_response_quality(text: str) -> float:
    """A stand-in quality score: longer answers score higher."""
    return min(1.0, len(text.split()) / 10)


class QualityGuardrail(Processor):
    """Asks for a retry when the answer is too thin; blocks after three tries."""

    id = "quality-guardrail"

    async def process_output_step(
        self, *, text: str, abort: Any, retry_count: int, **_: Any
    ) -> list[Message]:
        score = evaluate_response_quality(text)
        if score < 0.7:
            if retry_count < 3:
                abort(
                    "Response quality too low. Please provide more detail.",
                    retry=True,
                    metadata={"quality_score": score},
                )
            else:
                abort("Response quality too low after multiple attempts.")
        return []  # D16: "no change"


# -- tool results ----------------------------------------------------------------------------


class RedactToolResult(Processor):
    """Redacts ``ssn`` and ``email`` in the ``lookup-customer`` tool's result."""

    id = "redact-tool-result"

    async def process_tool_result(
        self,
        *,
        tool_name: str,
        tool_call_id: str,
        args: Any,
        result: Any,
        message_list: MessageList,
        **_: Any,
    ) -> None:
        if tool_name != "lookup-customer":
            return
        redacted = {**cast(dict[str, Any], result), "ssn": "[REDACTED]", "email": "[REDACTED]"}
        message_list.update_tool_invocation(
            {
                "type": "tool-invocation",
                "toolInvocation": {
                    "state": "result",
                    "toolCallId": tool_call_id,
                    "toolName": tool_name,
                    "args": args,
                    "result": redacted,
                },
            }
        )


def contains_prompt_injection(text: str) -> bool:
    """The seed's detector: "ignore (all) previous/prior instructions"."""
    return re.search(r"ignore (all )?(previous|prior) instructions", text, re.I) is not None


class ScanToolResult(Processor):
    """Blocks the run when a tool's output looks like a prompt injection."""

    id = "scan-tool-result"

    async def process_tool_result(self, *, result: Any, abort: Any, **_: Any) -> None:
        text = result if isinstance(result, str) else json.dumps(result)
        if contains_prompt_injection(text):
            abort("blocked by scan-tool-result: suspected prompt injection")


# -- error recovery ----------------------------------------------------------------------------


class ErrorRecoveryProcessor(Processor):
    """Trims two old messages and retries once when the context length is exceeded."""

    id = "error-recovery"

    def process_api_error(
        self, *, error: object, message_list: MessageList, retry_count: int, **_: Any
    ) -> dict[str, bool] | None:
        if retry_count > 0:
            return None
        if isinstance(error, APICallError) and "context length exceeded" in error.message:
            messages = message_list.get.all.db()
            if len(messages) > 4:
                message_list.remove_by_ids([messages[1].id, messages[2].id])
                return {"retry": True}
        return None


# -- a system-message example and the text accessor -------------------------------------------


class AddBrevity(Processor):
    """Returns ``{messages, system_messages}`` from ``process_input``: one more system line."""

    id = "add-brevity"

    async def process_input(
        self, *, messages: list[Message], system_messages: list[SystemMessage], **_: Any
    ) -> dict[str, Any]:
        return {
            "messages": messages,
            "system_messages": [*system_messages, SystemMessage("Answer briefly.")],
        }


def text_of(message: Message) -> str:
    """The seed's ``getText``: text parts first, the legacy string as the fallback."""
    return get_text(message)
