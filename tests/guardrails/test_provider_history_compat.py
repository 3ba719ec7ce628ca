"""ProviderHistoryCompat: each rule rewrites the prompt for its provider and repairs the
run's messages when the provider rejects them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from procession import (
    Agent,
    APICallError,
    ConfigurationError,
    Message,
    MessageContent,
    ProviderHistoryCompat,
    ReasoningPart,
    TextPart,
    tool,
)
from procession.guardrails.history_compat import (
    AnthropicReasoningSignatures,
    AnthropicToolCallIds,
    AzureSystemReminders,
    CerebrasReasoning,
    ForeignProviderTools,
    OrphanOpenAIItemIds,
    anthropic_tool_call_id,
)
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript


@tool
def lookup(key: str) -> str:
    """Look up a key."""
    return f"value of {key}"


async def _history(tmp_path: Path, call_id: str = "functions.lookup:0") -> Memory:
    memory = Memory(SQLiteStorage(tmp_path / "m.db"))
    openai = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("lookup", {"key": "k"}, call_id)]), "found it"],
        provider="openai",
    )
    await Agent(id="a", model=openai, tools=[lookup], memory=memory).generate(
        "look up k", thread_id="t", resource_id="r"
    )
    return memory


def _ids(prompt: list[dict[str, Any]]) -> list[str]:
    return [
        part["toolCallId"]
        for message in prompt
        if isinstance(message["content"], list)
        for part in message["content"]
        if "toolCallId" in part
    ]


@pytest.mark.asyncio
async def test_tool_call_ids_are_rewritten_for_anthropic_only(tmp_path: Path) -> None:
    memory = await _history(tmp_path)
    compat = ProviderHistoryCompat()
    claude = ScriptedModel(["ok"], provider="anthropic")
    agent = Agent(id="a", model=claude, tools=[lookup], memory=memory, input_processors=[compat])
    await agent.generate("again", thread_id="t", resource_id="r")
    fixed = anthropic_tool_call_id("functions.lookup:0")
    assert _ids(claude.calls[0].prompt) == [fixed, fixed]  # the call and its result agree
    assert fixed.startswith("functions_lookup_0_")
    gpt = ScriptedModel(["ok"], provider="openai")
    await Agent(id="a", model=gpt, memory=memory, input_processors=[compat]).generate(
        "again", thread_id="t", resource_id="r"
    )
    assert _ids(gpt.calls[0].prompt)[:2] == ["functions.lookup:0"] * 2
    stored = await memory.storage.list_messages("t", resource_id="r")
    assert "functions.lookup:0" in str([m.content.parts for m in stored])  # memory unchanged
    await memory.storage.close()


@pytest.mark.asyncio
async def test_a_rejected_history_is_repaired_and_the_step_retried(tmp_path: Path) -> None:
    memory = await _history(tmp_path)
    rejection = APICallError(
        "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
        status_code=400,
    )
    claude = ScriptedModel([Reply(error=rejection), "repaired"], provider="anthropic")
    compat = ProviderHistoryCompat(rules=[AnthropicToolCallIds()])
    agent = Agent(
        id="a", model=claude, tools=[lookup], memory=memory, error_processors=[compat]
    )  # the error lane only: the prompt is not rewritten up front
    result = await agent.generate("again", thread_id="t", resource_id="r")
    assert result.text == "repaired"
    assert _ids(claude.calls[0].prompt)[0] == "functions.lookup:0"
    assert _ids(claude.calls[1].prompt)[0] == anthropic_tool_call_id("functions.lookup:0")
    twice = ScriptedModel([Reply(error=rejection), Reply(error=rejection)], provider="anthropic")
    failing = Agent(id="a", model=twice, memory=memory, error_processors=[compat])
    with pytest.raises(APICallError):
        await failing.generate("again", thread_id="t", resource_id="r")
    assert len(twice.calls) == 2  # one repair, then the error stands
    await memory.storage.close()


def test_reasoning_rules() -> None:
    prompt: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": "q"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "reasoning", "text": "mine",
                 "providerOptions": {"anthropic": {"signature": "sig"}}},
                {"type": "reasoning", "text": "from openai"},
                {"type": "reasoning", "text": ""},
                {"type": "text", "text": "answer"},
            ],
        },
    ]  # fmt: skip
    signed = AnthropicReasoningSignatures().rewrite(prompt, "anthropic")
    assert signed is not None
    assert [p.get("text") for p in signed[1]["content"]] == ["mine", "answer"]
    bare = CerebrasReasoning().rewrite(prompt, "cerebras")
    assert bare is not None
    assert [p["type"] for p in bare[1]["content"]] == ["text"]
    message = Message(
        id="m1",
        role="assistant",
        content=MessageContent(
            parts=[
                ReasoningPart(reasoning="x", details=[]),
                ReasoningPart(
                    reasoning="y", details=[], provider_metadata={"anthropic": {"signature": "s"}}
                ),
                TextPart(text="answer"),
            ]
        ),
    )
    assert AnthropicReasoningSignatures().repair([message])
    assert [getattr(p, "reasoning", None) for p in message.content.parts] == ["y", None]
    assert AnthropicReasoningSignatures().repairs(
        APICallError("Invalid `signature` in `thinking` block")
    )


def test_foreign_server_tools_leave_the_prompt() -> None:
    prompt = [
        {
            "role": "assistant",
            "content": [
                {"type": "tool-call", "toolCallId": "ws1", "toolName": "web_search",
                 "providerExecuted": True, "providerOptions": {"openai": {}}},
                {"type": "tool-result", "toolCallId": "ws1", "toolName": "web_search",
                 "providerExecuted": True, "providerOptions": {"openai": {}}},
                {"type": "text", "text": "Found it."},
            ],
        }
    ]  # fmt: skip
    rule = ForeignProviderTools()
    assert rule.rewrite(prompt, "openai") is None
    other = rule.rewrite(prompt, "anthropic")
    assert other is not None
    assert [p["type"] for p in other[0]["content"]] == ["text"]


def test_azure_late_system_messages_become_reminders() -> None:
    prompt: list[dict[str, Any]] = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "system", "content": "be brief"},
    ]
    out = AzureSystemReminders().rewrite(prompt, "azure")
    assert out is not None
    assert out[0] == prompt[0]
    assert out[2] == {
        "role": "user",
        "content": [{"type": "text", "text": "<system-reminder>be brief</system-reminder>"}],
    }
    assert AzureSystemReminders().rewrite(prompt[:2], "azure") is None


def test_orphan_openai_item_ids() -> None:
    text = {"type": "text", "text": "a", "providerOptions": {"openai": {"itemId": "msg_1"}}}
    reasoning = {
        "type": "reasoning",
        "text": "r",
        "providerOptions": {"openai": {"itemId": "rs_1"}},
    }
    rule = OrphanOpenAIItemIds()
    assert rule.rewrite([{"role": "assistant", "content": [reasoning, text]}], "openai") is None
    orphan = rule.rewrite([{"role": "assistant", "content": [text]}], "openai")
    assert orphan is not None
    assert orphan[0]["content"][0] == {"type": "text", "text": "a", "providerOptions": {}}
    stored = Message(
        id="m2",
        role="assistant",
        content=MessageContent(
            parts=[TextPart(text="a", provider_metadata={"openai": {"itemId": "msg_1", "x": 1}})]
        ),
    )
    assert rule.repairs(APICallError("Item with id 'rs_9' not found."))
    assert rule.repair([stored])
    assert stored.content.parts[0].provider_metadata == {"openai": {"x": 1}}  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_only_the_first_failure_is_repaired() -> None:
    compat = ProviderHistoryCompat()
    from procession import MessageList

    answer = compat.process_api_error(
        error=APICallError("tool_use.id: bad"), message_list=MessageList(), retry_count=1, state={}
    )
    assert answer is None


def test_options_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="additional_rules"):
        ProviderHistoryCompat(additional_rules=[lambda prompt: prompt])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="rules"):
        ProviderHistoryCompat(rules="all")  # type: ignore[arg-type]
