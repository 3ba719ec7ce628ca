"""``ProviderHistoryCompat``: make a conversation one provider wrote acceptable to another.

A thread that moves between providers (a fallback model, a model picked per request) carries
history the next provider may reject: tool-call ids outside Anthropic's character set,
reasoning blocks signed by another provider, server-side tool calls only their own provider
can replay, OpenAI item ids whose reasoning item is gone. Each :class:`CompatRule` knows one
such problem and works in two places:

- **proactively**, in ``process_llm_request``: the rule rewrites the prompt for the provider
  about to be called (this call only; the message list and memory keep the original);
- **reactively**, in ``process_api_error`` (first failure only): when the provider's error
  is the one the rule knows, the rule repairs the run's messages and the step is retried.

Put the same object in both lanes (they share one ``state``, D15)::

    compat = ProviderHistoryCompat()
    agent = Agent(..., input_processors=[compat], error_processors=[compat])

Prompt parts carry provider data under ``providerOptions`` (the AI SDK's name); stored parts
under ``provider_metadata``. Rules: :data:`DEFAULT_RULES`; add your own with
``additional_rules``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from procession.guardrails._common.options import option_error
from procession.messages.message import Message
from procession.messages.message_list import MessageList
from procession.messages.parts import ReasoningPart, ToolInvocationPart
from procession.processors.base import Processor

__all__ = [
    "DEFAULT_RULES",
    "AnthropicReasoningSignatures",
    "AnthropicToolCallIds",
    "AzureSystemReminders",
    "CerebrasReasoning",
    "CompatRule",
    "ForeignProviderTools",
    "OrphanOpenAIItemIds",
    "ProviderHistoryCompat",
    "anthropic_tool_call_id",
]

Prompt = list[dict[str, Any]]
_TARGET = "target"


class CompatRule:
    """One compatibility rule; subclasses override what they need.

    Attributes:
        name: The rule's name, for logs and reports.
        providers: The providers it applies to (empty: every provider).
        error_pattern: A regular expression over the provider's error text that this rule
            knows how to repair (``None``: no repair).
    """

    name = "rule"
    providers: frozenset[str] = frozenset()
    error_pattern: re.Pattern[str] | None = None

    def applies_to(self, provider: str | None) -> bool:
        """Whether the rule concerns calls to ``provider``."""
        return not self.providers or (provider or "") in self.providers

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """The prompt made acceptable, or ``None`` when it needs nothing."""
        return None

    def repairs(self, error: BaseException) -> bool:
        """Whether ``error`` is the failure this rule can repair."""
        pattern = self.error_pattern
        return pattern is not None and bool(pattern.search(_error_text(error)))

    def repair(self, messages: Sequence[Message]) -> bool:
        """Fix the run's messages in place; whether anything changed."""
        return False


def _error_text(error: BaseException) -> str:
    parts = [str(error), str(getattr(error, "response_body", "") or "")]
    return "\n".join(parts)


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def _map_parts(
    prompt: Prompt, keep: Callable[[dict[str, Any], str], dict[str, Any] | None]
) -> Prompt | None:
    """Apply ``keep(part, role)`` to every content part; ``None`` when nothing changed.
    A part mapped to ``None`` is removed; a message left empty is dropped."""
    changed = False
    out: Prompt = []
    for message in prompt:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        parts = []
        for part in content:
            new = keep(part, str(message.get("role"))) if isinstance(part, dict) else part
            changed = changed or new is not part
            if new is not None:
                parts.append(new)
        if parts:
            out.append({**message, "content": parts} if parts != content else message)
    return out if changed else None


def _options(part: dict[str, Any]) -> dict[str, Any]:
    value = part.get("providerOptions") or part.get("providerMetadata") or {}
    return value if isinstance(value, dict) else {}


class ForeignProviderTools(CompatRule):
    """Server-side (provider-executed) tool calls and results recorded for another provider
    are left out of the prompt; only their own provider can replay them."""

    name = "foreign-provider-tools"
    error_pattern = re.compile(
        r"(server[_ ]tool|web_search|code_execution|unknown tool type|tool_use.*not found)", re.I
    )

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Drop provider-executed parts whose recorded provider is not ``provider``."""

        def keep(part: dict[str, Any], role: str) -> dict[str, Any] | None:
            if part.get("type") not in ("tool-call", "tool-result"):
                return part
            if not part.get("providerExecuted") and role != "assistant":
                return part
            owners = set(_options(part))
            foreign = part.get("providerExecuted") and owners and provider not in owners
            return None if foreign else part

        return _map_parts(prompt, keep)

    def repair(self, messages: Sequence[Message]) -> bool:
        """Remove every provider-executed tool part from the run's messages."""
        changed = False
        for message in messages:
            parts = message.content.parts
            kept = [
                p for p in parts if not (isinstance(p, ToolInvocationPart) and p.provider_executed)
            ]
            if len(kept) != len(parts):
                message.content.parts[:] = kept
                changed = True
        return changed


_ANTHROPIC_ID = re.compile(r"^[a-zA-Z0-9_-]+$")


def anthropic_tool_call_id(call_id: str) -> str:
    """``call_id`` in Anthropic's character set, unique per original id."""
    if _ANTHROPIC_ID.match(call_id):
        return call_id
    digest = hashlib.sha1(call_id.encode(), usedforsecurity=False).hexdigest()[:8]
    return re.sub(r"[^a-zA-Z0-9_-]", "_", call_id)[:55] + "_" + digest


class AnthropicToolCallIds(CompatRule):
    """Tool-call ids outside ``[a-zA-Z0-9_-]`` (other providers allow ``.``, ``:``, ``|``)
    are rewritten for Anthropic, the same way in a call and in its result."""

    name = "anthropic-tool-call-ids"
    providers = frozenset(("anthropic",))
    error_pattern = re.compile(r"tool_use\.id|tool_use_id|\^\[a-zA-Z0-9_-\]", re.I)

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Rewrite invalid ids in tool-call and tool-result parts."""

        def keep(part: dict[str, Any], role: str) -> dict[str, Any] | None:
            call_id = part.get("toolCallId")
            if not isinstance(call_id, str) or _ANTHROPIC_ID.match(call_id):
                return part
            return {**part, "toolCallId": anthropic_tool_call_id(call_id)}

        return _map_parts(prompt, keep)

    def repair(self, messages: Sequence[Message]) -> bool:
        """Rewrite invalid ids in the run's stored tool invocations."""
        changed = False
        for part in _tool_parts(messages):
            invocation = part.tool_invocation
            fixed = anthropic_tool_call_id(invocation.tool_call_id)
            if fixed != invocation.tool_call_id:
                invocation.tool_call_id = fixed
                changed = True
        return changed


def _tool_parts(messages: Iterable[Message]) -> Iterable[ToolInvocationPart]:
    for message in messages:
        for part in message.content.parts:
            if isinstance(part, ToolInvocationPart):
                yield part


def _strip_reasoning(messages: Sequence[Message], drop: Callable[[ReasoningPart], bool]) -> bool:
    changed = False
    for message in messages:
        parts = message.content.parts
        kept = [p for p in parts if not (isinstance(p, ReasoningPart) and drop(p))]
        if len(kept) != len(parts):
            message.content.parts[:] = kept
            changed = True
    return changed


class CerebrasReasoning(CompatRule):
    """Cerebras rejects reasoning content in assistant history: it is left out."""

    name = "cerebras-reasoning"
    providers = frozenset(("cerebras",))
    error_pattern = re.compile(r"reasoning", re.I)

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Drop reasoning parts."""
        return _map_parts(prompt, lambda p, _: None if p.get("type") == "reasoning" else p)

    def repair(self, messages: Sequence[Message]) -> bool:
        """Remove reasoning parts from the run's messages."""
        return _strip_reasoning(messages, lambda _: True)


def _anthropic_signed(options: dict[str, Any]) -> bool:
    mine = options.get("anthropic")
    return isinstance(mine, dict) and bool(mine.get("signature") or mine.get("redactedData"))


class AnthropicReasoningSignatures(CompatRule):
    """Anthropic replays only its own signed thinking blocks: empty reasoning, and reasoning
    another provider wrote (no Anthropic signature), is left out."""

    name = "anthropic-reasoning-signatures"
    providers = frozenset(("anthropic",))
    error_pattern = re.compile(r"signature|thinking block|redacted_thinking", re.I)

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Drop unsigned or empty reasoning parts."""

        def keep(part: dict[str, Any], role: str) -> dict[str, Any] | None:
            if part.get("type") != "reasoning":
                return part
            signed = _anthropic_signed(_options(part))
            return part if signed and (part.get("text") or signed) else None

        return _map_parts(prompt, keep)

    def repair(self, messages: Sequence[Message]) -> bool:
        """Remove reasoning parts without an Anthropic signature from the run's messages."""
        return _strip_reasoning(
            messages, lambda part: not _anthropic_signed(part.provider_metadata or {})
        )


class AzureSystemReminders(CompatRule):
    """Azure OpenAI rejects system messages after the conversation started: such a message
    becomes a user message wrapped in ``<system-reminder>`` tags."""

    name = "azure-system-reminders"
    providers = frozenset(("azure", "azure-openai"))

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Turn late system messages into reminders."""
        seen_conversation = False
        changed = False
        out: Prompt = []
        for message in prompt:
            if message.get("role") != "system":
                seen_conversation = True
                out.append(message)
            elif seen_conversation:
                text = f"<system-reminder>{message.get('content', '')}</system-reminder>"
                out.append({"role": "user", "content": [{"type": "text", "text": text}]})
                changed = True
            else:
                out.append(message)
        return out if changed else None


def _item_id(options: dict[str, Any]) -> str | None:
    mine = options.get("openai")
    value = mine.get("itemId") if isinstance(mine, dict) else None
    return value if isinstance(value, str) else None


def _without_item_id(options: dict[str, Any]) -> dict[str, Any]:
    mine = {k: v for k, v in options["openai"].items() if k != "itemId"}
    rest = {k: v for k, v in options.items() if k != "openai"}
    return {**rest, "openai": mine} if mine else rest


class OrphanOpenAIItemIds(CompatRule):
    """OpenAI's Responses API rejects an output item id whose reasoning item is not in the
    prompt (it was filtered, or another provider wrote the turn): such ids are dropped, so
    the item is sent by value instead of by reference."""

    name = "orphan-openai-item-ids"
    error_pattern = re.compile(
        r"without its required 'reasoning' item|item with id '[^']+' not found", re.I
    )

    def rewrite(self, prompt: Prompt, provider: str | None) -> Prompt | None:
        """Drop item ids that have no reasoning item in their message (all of them for a
        provider other than OpenAI)."""
        out: Prompt = []
        changed = False
        for message in prompt:
            parts = _parts(message)
            has_reasoning = any(
                p.get("type") == "reasoning" and (_item_id(_options(p)) or "").startswith("rs_")
                for p in parts
                if isinstance(p, dict)
            )
            keep_ids = provider == "openai" and has_reasoning
            new_parts = [
                p if keep_ids or not isinstance(p, dict) or not _item_id(_options(p))
                else {**p, "providerOptions": _without_item_id(_options(p))}
                for p in parts
            ]  # fmt: skip
            if any(a is not b for a, b in zip(new_parts, parts, strict=True)):
                message = {**message, "content": new_parts}
                changed = True
            out.append(message)
        return out if changed else None

    def repair(self, messages: Sequence[Message]) -> bool:
        """Remove OpenAI item ids from the run's stored parts."""
        changed = False
        for message in messages:
            for part in message.content.parts:
                metadata = getattr(part, "provider_metadata", None)
                if isinstance(metadata, dict) and _item_id(metadata):
                    part.provider_metadata = _without_item_id(metadata)  # type: ignore[union-attr]
                    changed = True
        return changed


DEFAULT_RULES: tuple[CompatRule, ...] = (
    ForeignProviderTools(),
    AnthropicToolCallIds(),
    CerebrasReasoning(),
    AnthropicReasoningSignatures(),
    AzureSystemReminders(),
    OrphanOpenAIItemIds(),
)
"""The built-in rules, applied in this order."""


class ProviderHistoryCompat(Processor):
    """Rewrites history for the provider being called, and repairs it when the provider
    rejects it (Mastra's ``ProviderHistoryCompat``). Put it in the input and error lanes.

    Args:
        rules: The rules (default :data:`DEFAULT_RULES`).
        additional_rules: More rules, applied after ``rules``.
    """

    id = "provider-history-compat"

    def __init__(
        self,
        *,
        rules: Sequence[CompatRule] = DEFAULT_RULES,
        additional_rules: Sequence[CompatRule] = (),
    ) -> None:
        for name, value in (("rules", rules), ("additional_rules", additional_rules)):
            if not isinstance(value, list | tuple) or not all(
                isinstance(rule, CompatRule) for rule in value
            ):
                raise option_error(
                    "ProviderHistoryCompat", name, value, "a list of CompatRule objects"
                )
        self.rules: tuple[CompatRule, ...] = (*rules, *additional_rules)

    def process_llm_request(
        self, *, prompt: Prompt, model: Any, state: dict[str, Any], **_: Any
    ) -> dict[str, Any] | None:
        """Rewrite the prompt for the provider about to be called."""
        provider = getattr(model, "provider", None)
        state[_TARGET] = provider
        current = prompt
        for rule in self.rules:
            if rule.applies_to(provider):
                current = rule.rewrite(current, provider) or current
        return None if current is prompt else {"prompt": current}

    def process_api_error(
        self,
        *,
        error: BaseException,
        message_list: MessageList,
        retry_count: int,
        state: dict[str, Any],
        **_: Any,
    ) -> dict[str, bool] | None:
        """On the first failure, let the rules that know this error repair the messages."""
        if retry_count > 0:
            return None
        provider = state.get(_TARGET)
        messages = message_list.get.all.db()
        repaired = False
        for rule in self.rules:  # an unknown provider: the error text alone decides
            if (provider is None or rule.applies_to(provider)) and rule.repairs(error):
                repaired = rule.repair(messages) or repaired
        return {"retry": True} if repaired else None
