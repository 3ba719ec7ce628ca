"""The adapters' fast paths give what their general paths (and the SDKs' typed streams) give.

The adapters read the commonest events (text deltas) without their general mapping path
(``docs/decisions/0170-provider-overhead-baselines.md``); these tests pin that both paths
make the same chunks, and the shared :class:`ChunkStream`'s own contract (lone chunks,
lists, errors, closing, ending in an error after a few last chunks).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st

from procession.chunks import Chunk
from procession.errors import APICallError
from procession.models import ModelCallOptions
from procession.models._chunk_stream import ChunksThenError, ChunkStream
from procession.models.anthropic import AnthropicModel
from procession.models.anthropic._stream import AnthropicStreamMapper
from procession.models.base import StreamResult
from procession.models.google import GoogleModel
from procession.models.google._stream import GeminiStreamMapper
from procession.models.retry import stream_with_retries
from procession.signals import AbortSignal
from tests.models.scripted_server import Reply, ScriptedServer, SseEvent
from tests.models.wire_fixtures import FIXTURES, fixture_reply

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
ANTHROPIC_FIXTURES = sorted(path.name for path in (FIXTURES / "anthropic").glob("*.sse"))


def shapes(chunks: list[Chunk]) -> list[tuple[str, dict[str, Any]]]:
    return [(chunk.type, chunk.payload) for chunk in chunks]


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


# -- Anthropic: dict events against the SDK's own typed stream --------------------------------


def _block_event(kind: str, index: int, **fields: Any) -> SseEvent:
    return SseEvent({"type": kind, "index": index, **fields}, kind)


def _delta(index: int, kind: str, **fields: Any) -> SseEvent:
    return _block_event("content_block_delta", index, delta={"type": kind, **fields})


MESSAGE: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant"}
MESSAGE |= {"model": "claude-test-1", "content": [], "stop_reason": None}
MESSAGE["usage"] = {"input_tokens": 5, "output_tokens": 1}
SYNTHETIC = [
    SseEvent({"type": "message_start", "message": MESSAGE}, "message_start"),
    _block_event("content_block_start", 0, content_block={"type": "thinking", "thinking": ""}),
    _delta(0, "thinking_delta", thinking="Let me think"),
    _delta(0, "thinking_delta", thinking=" more."),
    _delta(0, "signature_delta", signature="c2ln"),
    _block_event("content_block_stop", 0),
    _block_event("content_block_start", 1, content_block={"type": "text", "text": ""}),
    _delta(1, "text_delta", text="Hello"),
    _delta(1, "text_delta", text=""),
    _delta(1, "future_delta", text="skipped"),
    _delta(7, "text_delta", text="no such block"),
    _delta(1, "text_delta", text=" there", extra_field=1),
    _block_event("content_block_stop", 1),
    _block_event(
        "content_block_start",
        2,
        content_block={"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
    ),
    _delta(2, "input_json_delta", partial_json='{"x": '),
    _delta(2, "input_json_delta", partial_json="1}"),
    _block_event("content_block_stop", 2),
    SseEvent({"type": "ping"}, "ping"),
    SseEvent({"type": "future_event", "x": 1}, "future_event"),
    SseEvent(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 12, "cache_read_input_tokens": None},
        },
        "message_delta",
    ),
    SseEvent({"type": "message_stop"}, "message_stop"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("name", [*ANTHROPIC_FIXTURES, "synthetic"])
async def test_anthropic_dict_events_map_like_the_sdks_typed_events(
    server: ScriptedServer, name: str
) -> None:
    pytest.importorskip("anthropic")
    from anthropic import AsyncAnthropic

    def reply() -> Reply:
        return (
            Reply(events=SYNTHETIC) if name == "synthetic" else fixture_reply(f"anthropic/{name}")
        )

    model = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
    server.script(reply())
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    adapter = [chunk async for chunk in result.stream]
    await model.aclose()

    # The same bytes through the SDK's typed stream, mapped by the general (typed) path.
    client = AsyncAnthropic(api_key="sk-test", base_url=server.url, max_retries=0)
    server.script(reply())
    stream = await client.messages.create(
        model="claude-test-1",
        max_tokens=1024,
        messages=[{"role": "user", "content": "Hi"}],
        stream=True,
    )
    mapper = AnthropicStreamMapper()
    typed = [chunk async for event in stream for chunk in mapper.map(event)]
    typed += mapper.finish()
    await client.close()

    assert adapter[-1].type == "finish"
    assert shapes(adapter) == shapes(typed)


# -- Gemini: map_event against map --------------------------------------------------------------

_TEXT = st.text(alphabet="ab ", max_size=3)
_PLAIN = st.builds(lambda text: {"text": text}, _TEXT)
_PART = st.one_of(
    _PLAIN,
    _PLAIN,
    _PLAIN,
    st.builds(lambda text: {"text": text, "thought": True}, _TEXT),
    st.builds(lambda text: {"text": text, "thoughtSignature": "sig"}, _TEXT),
    st.just({"functionCall": {"name": "f", "args": {"x": 1}}}),
)
_EXTRAS: list[dict[str, Any]] = [
    {},
    {"index": 0},
    {"index": 0},
    {"finishReason": None},
    {"safetyRatings": None},
    {"finishReason": "STOP"},
]
_CANDIDATE_EXTRA = st.sampled_from(_EXTRAS)


@st.composite
def _responses(draw: st.DrawFn) -> dict[str, Any]:
    parts = draw(st.one_of(st.lists(_PLAIN, min_size=1, max_size=1), st.lists(_PART, max_size=2)))
    extra: dict[str, Any] = draw(_CANDIDATE_EXTRA)
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, **extra}
    if draw(st.booleans()):
        del candidate["content"]["role"]
    response: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-test"}
    if draw(st.booleans()):
        count = draw(st.integers(0, 9))
        response["usageMetadata"] = {"promptTokenCount": 3, "candidatesTokenCount": count}
    if draw(st.integers(0, 3)) == 0:
        response["promptFeedback"] = draw(st.sampled_from([None, {"blockReason": "SAFETY"}]))
    return response


@settings(max_examples=150, deadline=None)
@given(st.lists(_responses(), min_size=1, max_size=6))
def test_gemini_fast_path_maps_like_the_general_path(responses: list[dict[str, Any]]) -> None:
    general, fast = GeminiStreamMapper(), GeminiStreamMapper()
    expected: list[Chunk] = []
    got: list[Chunk] = []
    for response in responses:
        expected += general.map(response)
        fed = fast.map_event(response)
        got += [fed] if isinstance(fed, Chunk) else fed or []
    expected += general.finish()
    got += fast.finish()
    # Generated ids (function calls) differ between two mappers; everything else must not.
    for chunk in (*expected, *got):
        if "toolCallId" in chunk.payload:
            chunk.payload["toolCallId"] = "call"
    assert shapes(got) == shapes(expected)


@pytest.mark.asyncio
async def test_gemini_error_after_a_response_in_one_event_comes_after_its_chunks(
    server: ScriptedServer,
) -> None:
    text = {"candidates": [{"content": {"role": "model", "parts": [{"text": "Once"}]}}]}
    error = {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
    body = f"data: {json.dumps([text, error])}\r\n\r\n".encode()
    server.script(Reply(raw=[body]))
    model = GoogleModel("gemini-test", api_key="g-key", base_url=f"{server.url}/v1beta")
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    seen: list[Chunk] = []
    with pytest.raises(APICallError) as caught:
        await _collect(result.stream, seen)
    await model.aclose()
    assert [c.type for c in seen] == ["response-metadata", "text-start", "text-delta"]
    assert (caught.value.status_code, caught.value.message) == (503, "overloaded")


async def _collect(stream: AsyncIterator[Chunk], seen: list[Chunk]) -> None:
    async for chunk in stream:
        seen.append(chunk)


# -- ChunkStream -------------------------------------------------------------------------------


class _Source:
    """An event source that records how often it was closed; ``None`` events wait forever."""

    def __init__(self, events: list[Any]) -> None:
        self.events = list(events)
        self.closed = 0

    async def next(self) -> Any:
        if not self.events:
            raise StopAsyncIteration
        event = self.events.pop(0)
        if isinstance(event, BaseException):
            raise event
        if event is None:
            await asyncio.Event().wait()
        return event

    async def close(self) -> None:
        self.closed += 1


def _stream(
    source: _Source,
    feed: Callable[[Any], Any],
    finish: Callable[[], list[Chunk]] = list,
    signal: AbortSignal | None = None,
    on_error: Callable[[BaseException], BaseException | None] = lambda exc: None,
) -> ChunkStream:
    return ChunkStream(
        source.next, feed, finish, source.close, abort_signal=signal, on_error=on_error
    )


async def _drain(stream: ChunkStream) -> list[str]:
    return [chunk.type async for chunk in stream]


def _feed(event: Any) -> Any:
    """``"a"`` -> one chunk ``a``; ``"a b"`` -> a list; ``""`` -> ``None``; a list -> ``[]``."""
    if isinstance(event, list):
        return []
    names = event.split()
    if not names:
        return None
    return Chunk(names[0]) if len(names) == 1 else [Chunk(name) for name in names]


@pytest.mark.asyncio
async def test_chunk_stream_hands_out_lone_chunks_lists_and_closing_chunks() -> None:
    source = _Source(["a", "", "b c", [], "d"])
    stream = _stream(source, _feed, finish=lambda: [Chunk("end"), Chunk("finish")])
    assert await _drain(stream) == ["a", "b", "c", "d", "end", "finish"]
    assert source.closed == 1
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


@pytest.mark.asyncio
async def test_chunk_stream_maps_read_errors_but_not_feed_errors() -> None:
    source = _Source(["a", OSError("reset")])
    stream = _stream(source, _feed, on_error=lambda exc: APICallError(f"mapped: {exc}"))
    with pytest.raises(APICallError, match="mapped: reset") as caught:
        await _drain(stream)
    assert isinstance(caught.value.__cause__, OSError)
    assert source.closed == 1

    def bad_feed(event: Any) -> Any:
        raise KeyError(event)

    source = _Source(["a"])
    stream = _stream(source, bad_feed, on_error=lambda exc: APICallError("never"))
    with pytest.raises(KeyError):
        await _drain(stream)
    assert source.closed == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["feed", "finish"])
async def test_chunk_stream_ends_in_an_error_after_the_last_chunks(where: str) -> None:
    error = APICallError("boom")

    def feed(event: Any) -> Any:
        if where == "feed" and event == "x":
            raise ChunksThenError([Chunk("last"), Chunk("least")], error)
        return _feed(event)

    def finish() -> list[Chunk]:
        raise ChunksThenError([Chunk("last"), Chunk("least")], error)

    source = _Source(["a", "x", "b"])
    stream = _stream(source, feed, finish=finish if where == "finish" else list)
    seen: list[Chunk] = []
    with pytest.raises(APICallError) as caught:
        await _collect(stream, seen)
    assert caught.value is error
    expected = ["a", "last", "least"] if where == "feed" else ["a", "x", "b", "last", "least"]
    assert [chunk.type for chunk in seen] == expected
    assert source.closed == 1
    with pytest.raises(StopAsyncIteration):  # raised once
        await stream.__anext__()


@pytest.mark.asyncio
async def test_chunk_stream_error_with_no_last_chunks_is_raised_at_once() -> None:
    error = APICallError("boom")

    def feed(event: Any) -> Any:
        raise ChunksThenError([], error)

    source = _Source(["a"])
    with pytest.raises(APICallError) as caught:
        await _drain(_stream(source, feed))
    assert caught.value is error
    assert source.closed == 1


@pytest.mark.asyncio
async def test_chunk_stream_aclose_drops_pending_chunks_and_closes_once() -> None:
    source = _Source(["a b c"])
    stream = _stream(source, _feed)
    assert (await stream.__anext__()).type == "a"
    await stream.aclose()
    await stream.aclose()
    assert source.closed == 1
    assert await _drain(stream) == []


@pytest.mark.asyncio
async def test_chunk_stream_abort_signal_interrupts_a_waiting_read() -> None:
    signal = AbortSignal()
    source = _Source(["a", None])
    stream = _stream(source, _feed, signal=signal)
    assert (await stream.__anext__()).type == "a"
    waiting: Awaitable[Chunk] = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0.01)
    signal.abort("user left")
    with pytest.raises(asyncio.CancelledError, match="user left"):
        await waiting
    assert source.closed == 1


class _CountingSignal(AbortSignal):
    """An abort signal that counts its registered listeners."""

    def __init__(self) -> None:
        super().__init__()
        self.added = 0
        self.live = 0

    def add_listener(self, listener: Callable[[], object]) -> Callable[[], None]:
        remove = super().add_listener(listener)
        self.added += 1
        self.live += 1

        def counted() -> None:
            self.live -= 1
            remove()

        return counted


@pytest.mark.asyncio
async def test_chunk_stream_listens_to_the_signal_once_and_stops_listening_when_closed() -> None:
    signal = _CountingSignal()
    stream = _stream(_Source(["a", "b", "c d"]), _feed, signal=signal)
    assert await _drain(stream) == ["a", "b", "c", "d"]
    assert (signal.added, signal.live) == (1, 0)


@pytest.mark.asyncio
async def test_chunk_stream_signal_fired_between_reads_stops_the_next_read() -> None:
    signal = AbortSignal()
    source = _Source(["a", "b"])
    stream = _stream(source, _feed, signal=signal)
    assert (await stream.__anext__()).type == "a"
    signal.abort("gone")
    await asyncio.sleep(0)  # nothing was being read: the task is not cancelled
    with pytest.raises(asyncio.CancelledError, match="gone"):
        await stream.__anext__()
    assert source.closed == 1


class _SourceModel:
    """A model whose stream is a :class:`ChunkStream` over a scripted source."""

    provider = "test"
    model_id = "scripted"
    specification_version = "v2"
    supports_structured_output = False

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        source = _Source(["a b", "", "c"])
        return StreamResult(stream=_stream(source, _feed, finish=lambda: [Chunk("finish")]))


@pytest.mark.asyncio
async def test_retry_layer_gives_the_first_chunk_back_to_an_adapter_stream() -> None:
    result = await stream_with_retries(_SourceModel(), ModelCallOptions(prompt=[]))
    assert isinstance(result.stream, ChunkStream)  # no wrapper on the per-chunk path
    assert await _drain(result.stream) == ["a", "b", "c", "finish"]
