"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for tests of the real ``openai`` SDK.

It speaks plain HTTP/1.1 over a real socket (one request per connection, chunked bodies):
``POST /v1/chat/completions`` answers with SSE ``data: {...}`` lines and ``data: [DONE]``,
``POST /v1/responses`` with ``event:``/``data:`` pairs. Replies queued with
:meth:`OpenAIServer.reply` are served in order; with the queue empty the server answers like
a tiny model (text, or a call of the forced tool), which is what ``check_model`` needs.
Each request is recorded, and a client that hangs up mid-stream is noticed.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "FIXTURES",
    "OpenAIServer",
    "RecordedRequest",
    "Reply",
    "chat_chunk",
    "chat_stream",
    "fixture_events",
    "fixture_reply",
    "responses_stream",
    "usage_chunk",
]

FIXTURES = Path(__file__).parent / "fixtures"
"""The recorded wire fixtures (see ``fixtures/README.md``)."""

CREATED = 1_700_000_000
MODEL = "gpt-test"


@dataclass
class Reply:
    """One scripted answer: a JSON body, or SSE frames (when ``frames`` is not ``None``)."""

    status: int = 200
    json: Any = None
    frames: list[str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait after each SSE frame."""


@dataclass
class RecordedRequest:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


def chat_chunk(
    delta: dict[str, Any] | None = None, finish_reason: str | None = None, **extra: Any
) -> dict[str, Any]:
    """A ``chat.completion.chunk`` with one choice."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
        **extra,
    }


def usage_chunk(prompt: int, completion: int, **details: Any) -> dict[str, Any]:
    """The last chunk of a stream with ``include_usage``: no choices, only usage."""
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        **details,
    }
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [],
        "usage": usage,
    }


def chat_stream(
    *chunks: dict[str, Any],
    done: bool = True,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Reply:
    """An SSE reply of chat chunks, ended by ``data: [DONE]``."""
    frames = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    if done:
        frames.append("data: [DONE]\n\n")
    return _sse(frames, headers, delay)


def _sse(frames: list[str], headers: dict[str, str] | None, delay: float) -> Reply:
    return Reply(
        frames=frames,
        headers={"content-type": "text/event-stream", **(headers or {})},
        delay=delay,
    )


def fixture_reply(name: str, *, headers: dict[str, str] | None = None) -> Reply:
    """A streamed reply of the fixture file ``name``, one SSE frame per chunk, as is."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    frames = [frame + "\n\n" for frame in text.split("\n\n") if frame.strip()]
    return _sse(frames, headers, 0.0)


def fixture_events(name: str) -> list[Any]:
    """The JSON ``data`` payloads of the fixture file ``name`` (``[DONE]`` left out)."""
    events = []
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            events.append(json.loads(line[len("data: ") :]))
    return events


def responses_stream(
    *events: dict[str, Any], headers: dict[str, str] | None = None, delay: float = 0.0
) -> Reply:
    """An SSE reply of Responses API events (``event:`` and ``data:`` lines)."""
    frames = []
    for number, event in enumerate(events):
        event = {"sequence_number": number, **event}
        frames.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
    return _sse(frames, headers, delay)


class OpenAIServer:
    """The server; use ``async with OpenAIServer() as server``."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self.disconnected = asyncio.Event()
        """Set when a client closed the connection before a stream was complete."""
        self._replies: deque[Reply] = deque()
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    @property
    def base_url(self) -> str:
        """The API root to give the SDK."""
        return f"http://127.0.0.1:{self.port}/v1"

    def reply(self, *replies: Reply) -> None:
        """Queue replies for the next requests."""
        self._replies.extend(replies)

    async def __aenter__(self) -> OpenAIServer:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            request = await self._read_request(reader)
            if request is not None:
                self.requests.append(request)
                reply = self._replies.popleft() if self._replies else default_reply(request)
                await self._send(reader, writer, reply)
        except ConnectionError:
            self.disconnected.set()
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _read_request(self, reader: asyncio.StreamReader) -> RecordedRequest | None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
        body = json.loads(raw) if raw else None
        return RecordedRequest(method, path, headers, body)

    async def _send(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
    ) -> None:
        headers = {"connection": "close", **reply.headers}
        if reply.frames is None:
            payload = json.dumps(reply.json).encode()
            headers.setdefault("content-type", "application/json")
            headers["content-length"] = str(len(payload))
            writer.write(_head(reply.status, headers) + payload)
            await writer.drain()
            return
        headers["transfer-encoding"] = "chunked"
        writer.write(_head(reply.status, headers))
        await writer.drain()
        await self._stream_frames(reader, writer, reply)

    async def _stream_frames(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
    ) -> None:
        hangup = asyncio.ensure_future(reader.read(1))  # b"" once the client closes
        try:
            for frame in reply.frames or []:
                if hangup.done():
                    self.disconnected.set()
                    return
                data = frame.encode()
                writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                await writer.drain()
                if reply.delay:
                    await asyncio.wait({hangup}, timeout=reply.delay)
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        finally:
            hangup.cancel()


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {'OK' if status < 400 else 'Error'}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def default_reply(request: RecordedRequest) -> Reply:
    """What the server answers with no scripted reply: a short text or the forced tool call."""
    body = request.body or {}
    choice = body.get("tool_choice")
    if request.path.split("?", 1)[0].endswith("/responses"):
        return _default_responses(choice)
    if isinstance(choice, dict):
        name = choice["function"]["name"]
        call = {"index": 0, "id": "call_1", "type": "function"}
        return chat_stream(
            chat_chunk({"role": "assistant", "tool_calls": [{**call, "function": {"name": name}}]}),
            chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"text":'}}]}),
            chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' "hi"}'}}]}),
            chat_chunk({}, "tool_calls"),
            usage_chunk(10, 5),
        )
    return chat_stream(
        chat_chunk({"role": "assistant", "content": "Hello"}),
        chat_chunk({"content": " there!"}),
        chat_chunk({}, "stop"),
        usage_chunk(10, 3),
    )


def response_object(status: str = "completed", **extra: Any) -> dict[str, Any]:
    """A Responses API ``response`` object."""
    return {
        "id": "resp_test",
        "object": "response",
        "created_at": CREATED,
        "model": MODEL,
        "status": status,
        "output": [],
        **extra,
    }


def _default_responses(choice: Any) -> Reply:
    created = {"type": "response.created", "response": response_object("in_progress")}
    usage = {"input_tokens": 10, "output_tokens": 4, "total_tokens": 14}
    completed = {"type": "response.completed", "response": response_object(usage=usage)}
    if isinstance(choice, dict):
        item = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": choice["name"],
            "arguments": "",
            "status": "in_progress",
        }
        done = {**item, "arguments": '{"text": "hi"}', "status": "completed"}
        return responses_stream(
            created,
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            _args_delta("fc_1", '{"text":'),
            _args_delta("fc_1", ' "hi"}'),
            {"type": "response.output_item.done", "output_index": 0, "item": done},
            completed,
        )
    return responses_stream(created, *message_events("msg_1", "Hello", " there!"), completed)


def _args_delta(item_id: str, delta: str) -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": 0,
        "delta": delta,
    }


def message_events(item_id: str, *deltas: str, output_index: int = 0) -> list[dict[str, Any]]:
    """The events of one assistant message item with ``deltas`` as its text."""
    item = {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress"}
    text = "".join(deltas)
    done = {
        **item,
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    where = {"item_id": item_id, "output_index": output_index, "content_index": 0}
    return [
        {
            "type": "response.output_item.added",
            "output_index": output_index,
            "item": {**item, "content": []},
        },
        *(
            {"type": "response.output_text.delta", **where, "delta": delta, "logprobs": []}
            for delta in deltas
        ),
        {"type": "response.output_item.done", "output_index": output_index, "item": done},
    ]
