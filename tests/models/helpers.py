"""Small helpers shared by the OpenAI adapter tests."""

from __future__ import annotations

from procession.chunks import Chunk
from procession.messages.formats import Prompt
from procession.models.base import LanguageModel, ModelCallOptions, StreamResult

HELLO: Prompt = [{"role": "user", "content": [{"type": "text", "text": "Hello?"}]}]


async def collect(model: LanguageModel, options: ModelCallOptions | None = None) -> list[Chunk]:
    """All chunks of one call."""
    result = await model.do_stream(options or ModelCallOptions(prompt=HELLO))
    return await drain(result)


async def drain(result: StreamResult) -> list[Chunk]:
    """All chunks of a started call."""
    return [chunk async for chunk in result.stream]


def types(chunks: list[Chunk]) -> list[str]:
    """The chunk types, in order."""
    return [chunk.type for chunk in chunks]


def of_type(chunks: list[Chunk], kind: str) -> list[Chunk]:
    """The chunks of one type."""
    return [chunk for chunk in chunks if chunk.type == kind]
