"""Test models: ``ScriptedModel`` (a strict queue of replies) and ``FunctionModel``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.errors import APICallError
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.unicode import valid_chunk, valid_text, valid_value

__all__ = ["FunctionModel", "Reply", "ScriptedModel", "ScriptExhaustedError", "ToolCallScript"]


class ScriptExhaustedError(AssertionError):
    """A strict ScriptedModel was called more often than its script allows."""


@dataclass(slots=True)
class ToolCallScript:
    """A tool call a scripted reply makes."""

    tool_name: str
    args: dict[str, Any]
    id: str | None = None


@dataclass(slots=True)
class Reply:
    """One scripted model reply.

    Attributes:
        text: Text deltas, streamed in order.
        reasoning: Reasoning deltas, streamed before the text.
        tool_calls: Tool calls, streamed after the text.
        finish_reason: Defaults to ``tool-calls`` when there are tool calls, else ``stop``.
        usage: Defaults to 10 input tokens and one output token per delta or tool call.
        error: Raised when the call is made (before any chunk), like a rejected API call.
        stream_error: Yielded as an ``error`` chunk after the text, like a broken stream.
        delay: Seconds to wait before each chunk (to test cancellation).
        first_delay: Seconds to wait before the first chunk, like a model that thinks
            before it answers; the wait ignores the abort signal, as a third-party model
            may (the loop must interrupt it, D32).
    """

    text: Sequence[str] = ()
    reasoning: Sequence[str] = ()
    tool_calls: Sequence[ToolCallScript] = ()
    finish_reason: str | None = None
    usage: Usage | None = None
    error: BaseException | None = None
    stream_error: BaseException | None = None
    delay: float = 0.0
    first_delay: float = 0.0
    extra_chunks: Sequence[Chunk] = field(default_factory=tuple)

    @classmethod
    def from_dict(cls, obj: dict[str, Any]) -> Reply:
        """Read a reply in the oracle's scenario format (``text``, ``toolCalls``, ``error``...)."""
        error = obj.get("error")
        stream_error = obj.get("streamError")
        usage = obj.get("usage")
        return cls(
            text=list(obj.get("text", [])),
            reasoning=list(obj.get("reasoning", [])),
            tool_calls=[
                ToolCallScript(c["toolName"], c.get("args", {}), c.get("id"))
                for c in obj.get("toolCalls", [])
            ],
            finish_reason=obj.get("finishReason"),
            usage=Usage.from_dict(usage) if usage else None,
            error=APICallError(
                error.get("message", "error"),
                status_code=error.get("statusCode", 400),
                response_body=error.get("body"),
                response_headers=error.get("headers"),
            )
            if error
            else None,
            stream_error=APICallError(stream_error.get("message", "stream error"))
            if stream_error
            else None,
        )


class ScriptedModel:
    """A model that answers from a script, one :class:`Reply` per call.

    Strict by default: a call past the end of the script raises
    :class:`ScriptExhaustedError`, failing the test. With ``repeat_last=True`` the last reply
    repeats (the oracle's mode). With ``interleave=True`` the stream gives the event loop a
    turn before every chunk, as a network stream does, so concurrent runs really overlap.
    ``calls`` records the options of every call.
    """

    specification_version = "v2"
    supports_structured_output = False

    def __init__(
        self,
        replies: Sequence[Reply | str | dict[str, Any]] = (),
        *,
        provider: str = "scripted",
        model_id: str = "scripted-model",
        repeat_last: bool = False,
        interleave: bool = False,
    ) -> None:
        self.provider = provider
        self.model_id = model_id
        self.replies = [self._coerce(r) for r in replies]
        self.repeat_last = repeat_last
        self.interleave = interleave
        self.calls: list[ModelCallOptions] = []

    @staticmethod
    def _coerce(reply: Reply | str | dict[str, Any]) -> Reply:
        if isinstance(reply, Reply):
            return reply
        if isinstance(reply, str):
            return Reply(text=[reply])
        return Reply.from_dict(reply)

    @property
    def remaining(self) -> int:
        """How many scripted replies have not been used."""
        return max(0, len(self.replies) - len(self.calls))

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Answer the next call from the script."""
        index = len(self.calls)
        self.calls.append(options)
        if index >= len(self.replies):
            if not (self.repeat_last and self.replies):
                raise ScriptExhaustedError(
                    f"ScriptedModel: call {index + 1} but the script has {len(self.replies)} "
                    "replies"
                )
            reply = self.replies[-1]
        else:
            reply = self.replies[index]
        if reply.error is not None:
            raise reply.error
        return StreamResult(
            stream=self._stream(reply, index, options),
            request={"body": {"callIndex": index}},
        )

    async def _stream(
        self, reply: Reply, index: int, options: ModelCallOptions
    ) -> AsyncIterator[Chunk]:
        signal = options.abort_signal
        delay = reply.delay
        if reply.first_delay:
            await asyncio.sleep(reply.first_delay)
        yield Chunk(
            "response-metadata", {"id": f"resp-{index}", "modelId": self.model_id, "timestamp": 0}
        )
        if reply.reasoning:
            rid = f"rsn-{index}"
            yield Chunk("reasoning-start", {"id": rid})
            for text in reply.reasoning:
                yield Chunk(
                    "reasoning-delta",
                    {"id": rid, "text": text if text.isascii() else valid_text(text)},
                )
            yield Chunk("reasoning-end", {"id": rid})
        if reply.text:
            tid = f"txt-{index}"
            yield Chunk("text-start", {"id": tid})
            for text in reply.text:
                if delay or self.interleave:
                    await asyncio.sleep(delay)
                if signal is not None and signal.aborted:
                    return
                yield Chunk(
                    "text-delta", {"id": tid, "text": text if text.isascii() else valid_text(text)}
                )
            yield Chunk("text-end", {"id": tid})
        for chunk in reply.extra_chunks:
            yield valid_chunk(chunk.copy())
        for number, call in enumerate(reply.tool_calls):
            yield Chunk(
                "tool-call",
                {
                    "toolCallId": call.id or f"call-{index}-{number}",
                    "toolName": call.tool_name,
                    "args": valid_value(dict(call.args)),
                },
            )
        if reply.stream_error is not None:
            yield Chunk("error", {"error": reply.stream_error})
            return
        reason = reply.finish_reason or ("tool-calls" if reply.tool_calls else "stop")
        usage = reply.usage or Usage(10, len(reply.text) + len(reply.tool_calls))
        if usage.total_tokens is None and usage.input_tokens is not None:
            usage.total_tokens = usage.input_tokens + (usage.output_tokens or 0)
        yield finish_chunk(reason, usage)


ModelFunction = Callable[[ModelCallOptions], "Reply | str | Awaitable[Reply | str]"]


class FunctionModel:
    """A model whose replies come from a function of the call options.

    The function returns a :class:`Reply` or a string (sync or async); ``calls`` records
    every call.
    """

    specification_version = "v2"
    supports_structured_output = False

    def __init__(
        self,
        function: ModelFunction,
        *,
        provider: str = "function",
        model_id: str = "function-model",
    ) -> None:
        self.function = function
        self.provider = provider
        self.model_id = model_id
        self.calls: list[ModelCallOptions] = []
        self._inner = ScriptedModel(provider=provider, model_id=model_id)

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Ask the function for a reply and stream it."""
        self.calls.append(options)
        reply = self.function(options)
        if not isinstance(reply, Reply | str):
            reply = await reply
        self._inner.replies.append(ScriptedModel._coerce(reply))
        return await self._inner.do_stream(options)
