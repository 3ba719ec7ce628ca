"""Stopping a stream closes the HTTP response: the server sees the client hang up."""

from __future__ import annotations

import asyncio

import pytest
from openai import AsyncOpenAI

from procession.models.base import ModelCallOptions
from procession.models.openai import OpenAIChatModel, OpenAIResponsesModel
from procession.signals import AbortSignal
from tests.models.helpers import HELLO
from tests.models.openai_server import (
    OpenAIServer,
    Reply,
    chat_chunk,
    chat_stream,
    message_events,
    response_object,
    responses_stream,
)

SLOW = 0.05
"""Seconds between events of the slow streams (200 events: 10 s if nobody hangs up)."""


def _slow_chat() -> Reply:
    return chat_stream(*(chat_chunk({"content": f"{n} "}) for n in range(200)), delay=SLOW)


@pytest.mark.asyncio
async def test_aclose_after_the_first_chunks_disconnects(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(_slow_chat())
    result = await OpenAIChatModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO)
    )
    seen = 0
    async for chunk in result.stream:
        seen += chunk.type == "text-delta"
        if seen == 2:
            break
    await result.stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)
    assert [chunk async for chunk in result.stream] == []


@pytest.mark.asyncio
async def test_abort_signal_interrupts_a_pending_read(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    server.reply(_slow_chat())
    signal = AbortSignal()
    result = await OpenAIChatModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO, abort_signal=signal)
    )
    deltas = 0

    async def consume() -> None:
        nonlocal deltas
        async for chunk in result.stream:
            if chunk.type == "text-delta":
                deltas += 1
                if deltas == 1:
                    asyncio.get_running_loop().call_later(SLOW / 5, signal.abort, "user left")

    with pytest.raises(asyncio.CancelledError) as caught:
        await consume()
    assert caught.value.args == ("user left",)
    assert deltas == 1  # aborted while waiting for the second delta
    current = asyncio.current_task()
    assert current is not None
    assert current.cancelling() == 0  # the cancellation was ours and was withdrawn
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


@pytest.mark.asyncio
async def test_an_already_fired_signal_sends_nothing(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    signal = AbortSignal()
    signal.abort()
    model = OpenAIChatModel("gpt-test", client=client)
    with pytest.raises(asyncio.CancelledError):
        await model.do_stream(ModelCallOptions(prompt=HELLO, abort_signal=signal))
    assert server.requests == []


@pytest.mark.asyncio
async def test_responses_stream_aclose_disconnects(
    server: OpenAIServer, client: AsyncOpenAI
) -> None:
    created = {"type": "response.created", "response": response_object("in_progress")}
    events = message_events("msg_1", *(f"{n} " for n in range(200)))
    server.reply(responses_stream(created, *events, delay=SLOW))
    result = await OpenAIResponsesModel("gpt-test", client=client).do_stream(
        ModelCallOptions(prompt=HELLO)
    )
    async for chunk in result.stream:
        if chunk.type == "text-delta":
            break
    await result.stream.aclose()  # type: ignore[attr-defined]
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)
