"""What procession adds per streamed chunk, next to what the provider's own SDK costs.

A loopback HTTP server (127.0.0.1, in a child process) answers every request with the same
recorded-shape, 500-event streamed response of one API. Each round streams it ``--requests``
times through each of these readers, interleaved (the order rotates each round):

* ``typed``: the SDK's ordinary typed streaming call, the one a user would write instead of
  procession (the baseline issue 15 names: "the bare official SDK"): OpenAI
  ``chat.completions.create(stream=True)`` / ``responses.create(stream=True)``, Anthropic
  ``messages.stream()`` reading ``text_stream``, Gemini ``google-genai``'s
  ``aio.models.generate_content_stream`` (measured only when ``google-genai`` is installed:
  it is not a dependency of procession); Anthropic's ``messages.create(stream=True)`` (typed
  events without the accumulated message) is printed below the table;
* ``raw``: the cheapest read of the same stream through the same client, each event a dict
  (``client.post(..., cast_to=object, stream=True)`` for OpenAI and Anthropic; Gemini, which
  procession calls over ``httpx2`` without an SDK: the same ``httpx2`` stream parsed into
  JSON): the floor under any adapter built on these clients;
* ``adapter``: procession's model (``do_stream``) drained directly;
* ``agent0`` / ``agent3``: ``Agent.stream()`` with no output processor / with 3 pass-through
  output processors,

and prints the medians per event of this process's CPU time (the server's work is not
counted, and a busy machine disturbs CPU time less than wall time). ``x/raw`` is
``(x - raw) / raw``, procession's added cost as a share of the cheapest SDK read; ``x/typed``
the same against the typed call (negative: procession costs less than the typed SDK). The
issue's goal: ``agent3`` at most 5 % over the SDK. Which baseline is the honest one:
``docs/decisions/0170-provider-overhead-baselines.md``.

    .venv/bin/python bench/bench_providers.py                # all four APIs
    .venv/bin/python bench/bench_providers.py --api chat --rounds 9 --requests 20
    .venv/bin/python bench/bench_providers.py --abort     # also with an abort signal

Not a test: it asserts nothing and runs for a while (about two minutes with the defaults).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import multiprocessing
import statistics
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from procession import AbortSignal, Agent, Chunk
from procession.models.base import LanguageModel, ModelCallOptions

EVENTS = 500
TEXT = "word "


# -- the recorded-shape streams, one per API -----------------------------------------------


def _chat_wire() -> list[tuple[str | None, dict[str, Any]]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": 1750000000,
            "model": "gpt-bench",
            "system_fingerprint": "fp_bench",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
        }

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events += [chunk({"content": TEXT}) for _ in range(EVENTS - 3)]
    events.append(chunk({}, "stop"))
    usage = {"prompt_tokens": 10, "completion_tokens": EVENTS, "total_tokens": EVENTS + 10}
    events.append({**chunk({}), "choices": [], "usage": usage})
    return [(None, event) for event in events]


def _responses_wire() -> list[tuple[str | None, dict[str, Any]]]:
    response = {
        "id": "resp_bench",
        "object": "response",
        "created_at": 1750000000,
        "model": "gpt-bench",
        "status": "in_progress",
        "output": [],
    }
    item = {"id": "msg_bench", "type": "message", "role": "assistant", "status": "in_progress"}
    where = {"item_id": "msg_bench", "output_index": 0, "content_index": 0}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": {**item, "content": []}},
    ]
    events += [
        {"type": "response.output_text.delta", **where, "delta": TEXT, "logprobs": []}
        for _ in range(EVENTS - 4)
    ]
    done = {**item, "status": "completed", "content": [{"type": "output_text", "text": "..."}]}
    usage = {"input_tokens": 10, "output_tokens": EVENTS, "total_tokens": EVENTS + 10}
    events += [
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {
            "type": "response.completed",
            "response": {**response, "status": "completed", "usage": usage},
        },
    ]
    return [
        (event["type"], {**event, "sequence_number": number}) for number, event in enumerate(events)
    ]


def _anthropic_wire() -> list[tuple[str | None, dict[str, Any]]]:
    message: dict[str, Any] = {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": "claude-bench",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    events += [
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": TEXT}}
        for _ in range(EVENTS - 5)
    ]
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": EVENTS},
        },
        {"type": "message_stop"},
    ]
    return [(event["type"], event) for event in events]


def _gemini_wire() -> list[tuple[str | None, dict[str, Any]]]:
    # As recorded (tests/models/fixtures/google/): every response repeats the usage so far.
    def response(number: int) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"text": TEXT}], "role": "model"}}
        candidate["index"] = 0
        if number == EVENTS - 1:
            candidate["finishReason"] = "STOP"
        usage: dict[str, Any] = {"promptTokenCount": 10, "candidatesTokenCount": number + 1}
        usage["totalTokenCount"] = number + 11
        usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": 10}]
        body: dict[str, Any] = {"candidates": [candidate], "usageMetadata": usage}
        body.update(modelVersion="gemini-bench", responseId="resp_bench")
        return body

    return [(None, response(number)) for number in range(EVENTS)]


def _encode(events: list[tuple[str | None, dict[str, Any]]], done: bool) -> list[bytes]:
    frames = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        frames.append(f"{head}data: {json.dumps(data)}\n\n".encode())
    if done:
        frames.append(b"data: [DONE]\n\n")
    return [b"%x\r\n%s\r\n" % (len(frame), frame) for frame in frames] + [b"0\r\n\r\n"]


class Server:
    """Answers every request with the same streamed body, one chunked frame per event."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames = frames
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def run_until(self, port_out: Connection, stop: Any) -> None:
        """Serve in this (child) process until ``stop`` is set; send the port first."""

        async def serve() -> None:
            await self.start()
            port_out.send(self.port)
            await asyncio.get_running_loop().run_in_executor(None, stop.wait)
            await self.stop()

        asyncio.run(serve())

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:  # keep-alive: one request after another on the connection
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                await reader.readexactly(length)
                writer.write(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                    b"transfer-encoding: chunked\r\n\r\n"
                )
                for frame in self.frames:
                    writer.write(frame)
                    await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client hung up, or the bench is over
        finally:
            self._tasks.discard(task)
            writer.close()


# -- the ways to read one response ----------------------------------------------------------

Reader = Callable[[str], Awaitable[tuple[Callable[[], Awaitable[int]], Callable[[], Any]] | None]]
"""Makes a reader on a base URL: ``(read, close)``, or ``None`` if its SDK is not installed."""


@dataclass
class Api:
    """One API: its stream, its SDK readers and procession's model on a base URL.

    ``typed`` is the SDK's ordinary typed streaming call, the one a user would write; ``raw``
    is the cheapest read of the same stream through the same client (each event a dict),
    the floor of any adapter built on the SDK; ``also`` are further typed baselines.
    """

    name: str
    events: Callable[[], list[tuple[str | None, dict[str, Any]]]]
    done: bool
    raw: Reader
    typed: Reader
    model: Callable[[str], LanguageModel]
    also: dict[str, Reader] = field(default_factory=dict)


async def _openai_raw(base: str, responses: bool) -> tuple[Callable[[], Awaitable[int]], Any]:
    import openai

    client = openai.AsyncOpenAI(api_key="bench", base_url=f"{base}/v1", max_retries=0)
    path = "/responses" if responses else "/chat/completions"
    body: dict[str, Any] = {"model": "gpt-bench", "stream": True}
    body.update({"input": "go"} if responses else {"messages": [{"role": "user", "content": "go"}]})

    async def read() -> int:
        count = 0
        stream = await client.post(
            path, body=body, cast_to=object, stream=True, stream_cls=openai.AsyncStream[object]
        )
        event: Any
        async for event in stream:
            if responses:
                count += event.get("type") == "response.output_text.delta"
            else:
                choices = event.get("choices")
                count += bool(choices and choices[0]["delta"].get("content"))
        return count

    return read, client.close


async def _openai_typed(base: str, responses: bool) -> tuple[Callable[[], Awaitable[int]], Any]:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="bench", base_url=f"{base}/v1", max_retries=0)
    messages: Any = [{"role": "user", "content": "go"}]

    async def chat() -> int:
        count = 0
        stream = await client.chat.completions.create(
            model="gpt-bench", messages=messages, stream=True
        )
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                count += 1
        return count

    async def responses_api() -> int:
        count = 0
        stream = await client.responses.create(model="gpt-bench", input="go", stream=True)
        async for event in stream:
            if event.type == "response.output_text.delta" and event.delta:
                count += 1
        return count

    return (responses_api if responses else chat), client.close


def _anthropic_client(base: str) -> Any:
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(api_key="bench", base_url=base, max_retries=0, open_telemetry=False)


async def _anthropic_raw(base: str) -> tuple[Callable[[], Awaitable[int]], Any]:
    import anthropic

    client = _anthropic_client(base)
    body = {"model": "claude-bench", "max_tokens": 1024, "stream": True}
    body["messages"] = [{"role": "user", "content": "go"}]

    async def read() -> int:
        count = 0
        stream = await client.post(
            "/v1/messages",
            body=body,
            cast_to=object,
            stream=True,
            stream_cls=anthropic.AsyncStream[object],
        )
        event: Any
        async for event in stream:
            if event["type"] == "content_block_delta" and event["delta"]["type"] == "text_delta":
                count += 1
        return count

    return read, client.close


async def _anthropic_create(base: str) -> tuple[Callable[[], Awaitable[int]], Any]:
    client = _anthropic_client(base)
    messages: Any = [{"role": "user", "content": "go"}]

    async def read() -> int:
        count = 0
        stream = await client.messages.create(
            model="claude-bench", max_tokens=1024, messages=messages, stream=True
        )
        async for event in stream:
            if event.type == "content_block_delta" and event.delta.type == "text_delta":
                count += 1
        return count

    return read, client.close


async def _anthropic_typed(base: str) -> tuple[Callable[[], Awaitable[int]], Any]:
    client = _anthropic_client(base)
    messages: Any = [{"role": "user", "content": "go"}]

    async def read() -> int:
        count = 0
        async with client.messages.stream(
            model="claude-bench", max_tokens=1024, messages=messages
        ) as stream:
            async for text in stream.text_stream:
                count += bool(text)
        return count

    return read, client.close


async def _gemini_raw(base: str) -> tuple[Callable[[], Awaitable[int]], Any]:
    import httpx2

    client = httpx2.AsyncClient()
    url = f"{base}/v1beta/models/gemini-bench:streamGenerateContent"
    body = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}

    async def read() -> int:
        count = 0
        async with client.stream("POST", url, params={"alt": "sse"}, json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data:"):
                    event = json.loads(line[5:])
                    if event["candidates"][0]["content"]["parts"][0].get("text"):
                        count += 1
        return count

    return read, client.aclose


async def _gemini_typed(base: str) -> tuple[Callable[[], Awaitable[int]], Any] | None:
    try:  # google-genai is not a dependency of procession: measured when it is installed
        genai: Any = importlib.import_module("google.genai")
    except ImportError:
        return None
    options = genai.types.HttpOptions(base_url=base, api_version="v1beta")
    client = genai.Client(api_key="bench", http_options=options)

    async def read() -> int:
        count = 0
        models = client.aio.models
        async for response in await models.generate_content_stream(
            model="gemini-bench", contents="go"
        ):
            count += bool(response.candidates[0].content.parts[0].text)
        return count

    return read, client.aio.aclose


def _openai_model(base: str, responses: bool) -> LanguageModel:
    from procession.models.openai import OpenAIChatModel, OpenAIResponsesModel

    if responses:
        return OpenAIResponsesModel("gpt-bench", api_key="bench", base_url=f"{base}/v1")
    return OpenAIChatModel("gpt-bench", api_key="bench", base_url=f"{base}/v1")


def _anthropic_model(base: str) -> LanguageModel:
    from procession.models.anthropic import AnthropicModel

    return AnthropicModel("claude-bench", api_key="bench", base_url=base)


def _gemini_model(base: str) -> LanguageModel:
    from procession.models.google import GoogleModel

    return GoogleModel("gemini-bench", api_key="bench", base_url=f"{base}/v1beta")


APIS = {
    "chat": Api(
        "OpenAI Chat",
        _chat_wire,
        True,
        lambda base: _openai_raw(base, False),
        lambda base: _openai_typed(base, False),
        lambda base: _openai_model(base, False),
    ),
    "responses": Api(
        "OpenAI Responses",
        _responses_wire,
        False,
        lambda base: _openai_raw(base, True),
        lambda base: _openai_typed(base, True),
        lambda base: _openai_model(base, True),
    ),
    "anthropic": Api(
        "Anthropic",
        _anthropic_wire,
        False,
        _anthropic_raw,
        _anthropic_typed,
        _anthropic_model,
        {"create(stream=True)": _anthropic_create},
    ),
    "gemini": Api("Gemini", _gemini_wire, False, _gemini_raw, _gemini_typed, _gemini_model),
}


class PassThrough:
    """An output processor that hands every chunk on unchanged."""

    def __init__(self, number: int) -> None:
        self.id = f"pass-{number}"

    async def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk:
        return part


async def _drain_model(model: LanguageModel, signal: AbortSignal | None = None) -> int:
    options = ModelCallOptions(
        prompt=[{"role": "user", "content": [{"type": "text", "text": "go"}]}],
        abort_signal=signal,
    )
    result = await model.do_stream(options)
    stream: AsyncIterator[Chunk] = result.stream
    return sum([1 async for chunk in stream if chunk.type == "text-delta"])


async def _drain_agent(agent: Agent, signal: AbortSignal | None = None) -> int:
    stream = agent.stream("go", abort_signal=signal)
    return sum([1 async for chunk in stream if chunk.type == "text-delta"])


async def _timed(read: Callable[[], Awaitable[int]], requests: int) -> float:
    """CPU seconds of this process (the server runs in another) for ``requests`` reads."""
    started = time.process_time()
    for _ in range(requests):
        await read()
    return time.process_time() - started


async def bench_api(api: Api, rounds: int, requests: int, abort: bool) -> dict[str, float]:
    """Per-event medians in microseconds of every reader of ``api``."""
    server = Server(_encode(api.events(), api.done))
    receive, send = multiprocessing.Pipe(duplex=False)
    stop = multiprocessing.Event()
    child = multiprocessing.Process(target=server.run_until, args=(send, stop), daemon=True)
    child.start()
    base = f"http://127.0.0.1:{receive.recv()}"
    model = api.model(base)
    agents = {
        f"agent{count}": Agent(
            id="bench",
            instructions="bench",
            model=model,
            output_processors=[PassThrough(n) for n in range(count)],
        )
        for count in (0, 3)
    }
    readers: dict[str, Callable[[], Awaitable[int]]] = {}
    closers = []
    for name, make in (("typed", api.typed), *api.also.items(), ("raw", api.raw)):
        made = await make(base)
        if made is not None:
            readers[name], close = made
            closers.append(close)
    readers["adapter"] = lambda: _drain_model(model)
    for name, agent in agents.items():
        readers[name] = lambda agent=agent: _drain_agent(agent)  # type: ignore[misc]
    if abort:  # the same with an abort signal (as a server passes, to stop on a disconnect)
        readers["adapter+abort"] = lambda: _drain_model(model, AbortSignal())
        readers["agent3+abort"] = lambda: _drain_agent(agents["agent3"], AbortSignal())
    for read in readers.values():  # warm up connections, caches and imports
        await _timed(read, 2)
    samples: dict[str, list[float]] = {name: [] for name in readers}
    names = list(readers)
    for number in range(rounds):
        order = names[number % len(names) :] + names[: number % len(names)]
        for name in order:
            elapsed = await _timed(readers[name], requests)
            samples[name].append(elapsed / (requests * EVENTS) * 1e6)
    for close in closers:
        await close()
    aclose = getattr(model, "aclose", None)
    if aclose is not None:
        await aclose()
    stop.set()
    child.join(timeout=10)
    return {name: statistics.median(values) for name, values in samples.items()}


def _share(value: float, base: float | None) -> str:
    return f"{'-':>9}" if base is None else f"{(value - base) / base:>+9.1%}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", choices=[*APIS, "all"], default="all")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median)")
    parser.add_argument("--requests", type=int, default=10, help="responses per sample")
    parser.add_argument(
        "--abort", action="store_true", help="also the adapter and agent3 with an abort signal"
    )
    args = parser.parse_args()
    chosen = list(APIS) if args.api == "all" else [args.api]
    print(
        f"{EVENTS} events per response, {args.requests} responses per sample, "
        f"median of {args.rounds} interleaved rounds; client CPU microseconds per event"
    )
    heads = ("typed", "raw", "adapter", "agent0", "agent3")
    shares = ("adapter", "agent3")
    print(
        f"{'API':<17}"
        + "".join(f"{head:>8}" for head in heads)
        + "".join(f"{name + '/raw':>12}" for name in shares)
        + "".join(f"{name + '/typed':>14}" for name in shares)
    )
    notes = []
    for key in chosen:
        api = APIS[key]
        result = await bench_api(api, args.rounds, args.requests, args.abort)
        typed, raw = result.get("typed"), result["raw"]
        print(
            f"{api.name:<17}"
            + "".join(f"{result[head]:>8.1f}" if head in result else f"{'-':>8}" for head in heads)
            + "".join(f"{_share(result[name], raw):>12}" for name in shares)
            + "".join(f"{_share(result[name], typed):>14}" for name in shares)
        )
        for name in api.also:
            if name in result:
                value = result[name]
                notes.append(
                    f"{api.name} {name}: {value:.1f}; adapter {_share(result['adapter'], value)}"
                    f", agent3 {_share(result['agent3'], value)}"
                )
        if abort_line := _abort_note(api.name, result):
            notes.append(abort_line)
    for note in notes:
        print(note)


def _abort_note(name: str, result: dict[str, float]) -> str:
    if "agent3+abort" not in result:
        return ""
    adapter, agent = result["adapter+abort"], result["agent3+abort"]
    return (
        f"{name} with an abort signal: adapter {adapter:.1f} ({_share(adapter, result['adapter'])}"
        f" over none), agent3 {agent:.1f} ({_share(agent, result['agent3'])} over none)"
    )


if __name__ == "__main__":
    asyncio.run(main())
