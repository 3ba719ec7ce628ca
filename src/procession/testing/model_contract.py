"""``check_model``: the contract every model adapter passes.

It makes real calls through the model and checks what comes back against the rules of
:mod:`procession.models.base`: a ``StreamResult``; only known chunk types; ``text-delta``
chunks inside a matching ``text-start``/``text-end`` pair; ``tool-call`` args that are JSON
objects naming an offered tool; exactly one ``finish``, last, with a known reason and integer
(or unknown) usage; and a stream that closes cleanly when the caller stops early.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from procession.chunks import Chunk
from procession.messages.formats import Prompt
from procession.models.base import LanguageModel, ModelCallOptions, StreamResult, ToolDefinition

__all__ = ["ModelContractReport", "check_model"]

MODEL_CHUNK_TYPES = frozenset(
    (
        "response-metadata",
        "text-start",
        "text-delta",
        "text-end",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-end",
        "source",
        "file",
        "tool-call-input-streaming-start",
        "tool-call-delta",
        "tool-call-input-streaming-end",
        "tool-call",
        "tool-result",
        "finish",
        "error",
        "raw",
    )
)
FINISH_REASONS = frozenset(
    ("stop", "length", "content-filter", "tool-calls", "error", "other", "unknown")
)

ECHO_TOOL: ToolDefinition = {
    "type": "function",
    "name": "echo",
    "description": "Echo the given text back.",
    "inputSchema": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
}


@dataclass(slots=True)
class ModelContractReport:
    """What :func:`check_model` saw: the chunks of each call, by check name."""

    chunks: dict[str, list[Chunk]] = field(default_factory=dict)

    def text(self, check: str) -> str:
        """The text a check's call streamed."""
        return "".join(c.payload["text"] for c in self.chunks[check] if c.type == "text-delta")


class ModelContractError(AssertionError):
    """A model broke the model contract."""


def _fail(check: str, problem: str) -> None:
    raise ModelContractError(f"check_model[{check}]: {problem}")


def _validate(check: str, items: list[Any], offered: set[str]) -> None:
    open_text: set[str] = set()
    open_reasoning: set[str] = set()
    finishes = 0
    chunks: list[Chunk] = []
    for index, item in enumerate(items):
        if not isinstance(item, Chunk):
            raise ModelContractError(f"check_model[{check}]: chunk {index} is not a Chunk")
        chunks.append(item)
    for index, chunk in enumerate(chunks):
        if chunk.type not in MODEL_CHUNK_TYPES:
            _fail(check, f"chunk {index} has unknown type {chunk.type!r}")
        payload = chunk.payload
        if chunk.type == "text-start":
            open_text.add(payload["id"])
        elif chunk.type == "text-delta":
            if payload.get("id") not in open_text:
                _fail(check, f"text-delta {index} outside a text-start/text-end pair")
            if not isinstance(payload.get("text"), str):
                _fail(check, f"text-delta {index} has no string text")
        elif chunk.type == "text-end":
            open_text.discard(payload["id"])
        elif chunk.type == "reasoning-start":
            open_reasoning.add(payload["id"])
        elif chunk.type == "reasoning-delta" and payload.get("id") not in open_reasoning:
            _fail(check, f"reasoning-delta {index} outside a reasoning-start/-end pair")
        elif chunk.type == "reasoning-end":
            open_reasoning.discard(payload["id"])
        elif chunk.type == "tool-call":
            _check_tool_call(check, index, payload, offered)
        elif chunk.type == "finish":
            finishes += 1
            _check_finish(check, index, payload, last=index == len(chunks) - 1)
    if finishes != 1:
        _fail(check, f"expected exactly one finish chunk, got {finishes}")
    if open_text:
        _fail(check, f"text parts never ended: {sorted(open_text)}")


def _check_tool_call(check: str, index: int, payload: dict[str, Any], offered: set[str]) -> None:
    if not isinstance(payload.get("toolCallId"), str) or not payload["toolCallId"]:
        _fail(check, f"tool-call {index} has no toolCallId")
    if payload.get("toolName") not in offered and not payload.get("providerExecuted"):
        _fail(check, f"tool-call {index} names a tool that was not offered: {payload!r}")
    if not isinstance(payload.get("args"), dict):
        _fail(check, f"tool-call {index} args must be a JSON object: {payload.get('args')!r}")
    json.dumps(payload["args"])


def _check_finish(check: str, index: int, payload: dict[str, Any], *, last: bool) -> None:
    if not last:
        _fail(check, f"finish chunk {index} is not the last chunk")
    reason = payload.get("stepResult", {}).get("reason")
    if reason not in FINISH_REASONS:
        _fail(check, f"finish reason {reason!r} is not one of {sorted(FINISH_REASONS)}")
    usage = payload.get("output", {}).get("usage", {})
    for key in ("inputTokens", "outputTokens", "totalTokens"):
        value = usage.get(key)
        if value is not None and (not isinstance(value, int) or value < 0):
            _fail(check, f"usage.{key} must be a non-negative int or None, got {value!r}")


async def _collect(model: LanguageModel, options: ModelCallOptions) -> list[Chunk]:
    result = await model.do_stream(options)
    if not isinstance(result, StreamResult):
        raise ModelContractError(f"do_stream must return a StreamResult, got {result!r}")
    return [chunk async for chunk in result.stream]


async def check_model(
    model: LanguageModel,
    *,
    text_prompt: Prompt | None = None,
    tool_prompt: Prompt | None = None,
    check_tools: bool = True,
) -> ModelContractReport:
    """Run the model contract against ``model``; raise ``AssertionError`` on a violation.

    Three calls are made: a plain text answer, a forced tool call (unless
    ``check_tools=False``), and a text call the caller abandons after the first chunk, which
    must close without error. The prompts default to short English requests.
    """
    report = ModelContractReport()
    if not isinstance(model, LanguageModel):
        raise ModelContractError(f"{model!r} does not implement the LanguageModel protocol")
    for attribute in ("provider", "model_id"):
        if not isinstance(getattr(model, attribute), str) or not getattr(model, attribute):
            raise ModelContractError(f"model.{attribute} must be a non-empty string")
    text_prompt = text_prompt or [
        {"role": "user", "content": [{"type": "text", "text": "Say hello."}]}
    ]
    chunks = await _collect(model, ModelCallOptions(prompt=text_prompt))
    _validate("text", chunks, set())
    report.chunks["text"] = chunks
    if check_tools:
        tool_prompt = tool_prompt or [
            {"role": "user", "content": [{"type": "text", "text": "Echo 'hi' with the tool."}]}
        ]
        options = ModelCallOptions(
            prompt=tool_prompt,
            tools=[ECHO_TOOL],
            tool_choice={"type": "tool", "toolName": "echo"},
        )
        chunks = await _collect(model, options)
        _validate("tool", chunks, {"echo"})
        if not any(c.type == "tool-call" for c in chunks):
            _fail("tool", "a forced tool choice produced no tool-call chunk")
        report.chunks["tool"] = chunks
    result = await model.do_stream(ModelCallOptions(prompt=text_prompt))
    stream = result.stream
    async for _ in stream:
        break
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()
    return report
