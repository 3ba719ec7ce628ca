"""Fixtures: the scripted OpenAI server and real SDK clients pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest_asyncio
from openai import AsyncOpenAI

from tests.models.openai_server import OpenAIServer


@pytest_asyncio.fixture
async def server() -> AsyncIterator[OpenAIServer]:
    """A fresh server on 127.0.0.1 for each test."""
    async with OpenAIServer() as running:
        yield running


@pytest_asyncio.fixture
async def client(server: OpenAIServer) -> AsyncIterator[AsyncOpenAI]:
    """A real ``AsyncOpenAI`` on the server, with the SDK's own retries off."""
    sdk = AsyncOpenAI(api_key="test-key", base_url=server.base_url, max_retries=0)
    yield sdk
    await sdk.close()
