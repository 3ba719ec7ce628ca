"""PrefillErrorHandler against the provider errors it targets, through a real SDK client."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, APICallError, PrefillErrorHandler
from procession.models.anthropic import AnthropicModel
from tests.models.anthropic_server import text_reply
from tests.models.scripted_server import Reply, ScriptedServer

pytest.importorskip("anthropic")

HISTORY = [
    {"role": "user", "content": "Write a haiku about tea."},
    {"role": "assistant", "content": "Steam rises slowly"},
]


def rejection(message: str) -> Reply:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return Reply(400, body=body)


@pytest.mark.parametrize(
    "message",
    [
        "This model does not support assistant message prefill. The conversation must end "
        "with a user message.",
        "Assistant prefill is not supported for this model",
        "Requests ending with a model turn are not supported",
        "assistant response prefill is incompatible with enable_thinking",
    ],
)
@pytest.mark.asyncio
async def test_a_rejected_prefill_is_retried_once_with_a_continuation(message: str) -> None:
    async with ScriptedServer() as server:
        server.script(rejection(message), text_reply("leaves unfurl in the cup"))
        model = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
        try:
            agent = Agent(id="poet", model=model, error_processors=[PrefillErrorHandler()])
            result = await agent.generate(HISTORY)
        finally:
            await model.aclose()
        assert result.text == "leaves unfurl in the cup"
        retried: Any = server.requests[1].body
        assert retried["messages"][-1]["role"] == "user"
        assert "Continue." in str(retried["messages"][-1]["content"])


@pytest.mark.asyncio
async def test_other_errors_and_second_failures_are_left_alone() -> None:
    async with ScriptedServer() as server:
        server.script(rejection("max_tokens: must be positive"))
        model = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
        try:
            agent = Agent(id="poet", model=model, error_processors=[PrefillErrorHandler()])
            with pytest.raises(APICallError, match="max_tokens"):
                await agent.generate(HISTORY)
        finally:
            await model.aclose()
        assert len(server.requests) == 1
    async with ScriptedServer() as server:
        refusal = "Assistant prefill is not supported"
        server.script(rejection(refusal), rejection(refusal))
        model = AnthropicModel("claude-test-1", api_key="sk-test", base_url=server.url)
        try:
            agent = Agent(id="poet", model=model, error_processors=[PrefillErrorHandler()])
            with pytest.raises(APICallError, match="prefill"):
                await agent.generate(HISTORY)
        finally:
            await model.aclose()
        assert len(server.requests) == 2
