"""Build a Responses API request body from :class:`ModelCallOptions`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from procession.messages.formats import Prompt
from procession.models.base import ModelCallOptions
from procession.models.openai.common import (
    file_url,
    provider_options,
    tool_output_text,
    warn_unsupported,
)
from procession.models.openai.responses_mcp import MCP_ITEMS, mcp_input_items

__all__ = [
    "ENCRYPTED_REASONING",
    "is_reasoning_model",
    "responses_input",
    "responses_request_body",
]

_REASONING_KEYS = {"reasoning_effort": "effort", "reasoning_summary": "summary"}
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5", "codex")
ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The ``include`` value that asks for reasoning items' encrypted content."""


def responses_request_body(
    model_id: str, options: ModelCallOptions, *, warnings: list[dict[str, Any]]
) -> dict[str, Any]:
    """The JSON body of a streamed ``POST /responses``.

    ``provider_options["openai"]`` keys go into the body as they are, except
    ``reasoning_effort``/``reasoning_summary`` (into ``reasoning``), ``tools``, whose
    entries (built-in tools such as ``{"type": "web_search"}``) join the function tools, and
    ``mcp_approvals`` (answers to MCP approval requests, see
    :mod:`procession.models.openai.responses_mcp`).
    """
    raw = provider_options(options, "openai")
    store = raw.get("store")
    approvals = raw.pop("mcp_approvals", None) or {}
    if not isinstance(approvals, dict):
        raise TypeError(
            "provider_options['openai']['mcp_approvals'] must map approval request ids to "
            f"True or False, not {type(approvals).__name__}"
        )
    body: dict[str, Any] = {
        "model": model_id,
        "input": responses_input(
            options.prompt, store=store is not False, warnings=warnings, approvals=approvals
        ),
        "stream": True,
    }
    settings = options.settings
    for key in ("temperature", "top_p", "max_output_tokens"):
        if key in settings:
            body[key] = settings[key]
    warn_unsupported(
        warnings,
        settings,
        "top_k",
        "presence_penalty",
        "frequency_penalty",
        "stop_sequences",
        "seed",
    )
    tools = [_function_tool(tool) for tool in options.tools] + list(raw.pop("tools", []))
    if tools:
        body["tools"] = tools
        body["tool_choice"] = _tool_choice(options.tool_choice)
    if options.response_format is not None:
        body["text"] = {"format": _text_format(options.response_format)}
    for key, field in _REASONING_KEYS.items():
        if key in raw:
            body.setdefault("reasoning", {})[field] = raw.pop(key)
    if store is False and is_reasoning_model(model_id):
        include = list(raw.pop("include", None) or [])
        if ENCRYPTED_REASONING not in include:
            include.append(ENCRYPTED_REASONING)
        body["include"] = include
    body.update(raw)
    return body


def is_reasoning_model(model_id: str) -> bool:
    """Whether ``model_id`` names one of OpenAI's reasoning models (o-series, gpt-5 but not
    its chat variants, codex), which return encrypted reasoning when asked."""
    name = model_id.rsplit("/", 1)[-1].lower()
    if name.startswith("gpt-5") and "chat" in name:
        return False
    return name.startswith(_REASONING_PREFIXES)


def _function_tool(tool: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool["name"],
        "description": tool.get("description", ""),
        "parameters": tool["inputSchema"],
        "strict": False,
    }


def _tool_choice(choice: dict[str, Any]) -> Any:
    if choice.get("type") == "tool":
        return {"type": "function", "name": choice["toolName"]}
    return choice.get("type", "auto")


def _text_format(response_format: Any) -> dict[str, Any]:
    if response_format.get("type") == "text":
        return {"type": "text"}
    schema = response_format.get("schema")
    if schema is None:
        return {"type": "json_object"}
    out: dict[str, Any] = {
        "type": "json_schema",
        "name": response_format.get("name") or "response",
        "schema": schema,
        "strict": False,
    }
    if response_format.get("description"):
        out["description"] = response_format["description"]
    return out


def responses_input(
    prompt: Prompt,
    *,
    store: bool = True,
    warnings: list[dict[str, Any]] | None = None,
    approvals: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """A procession prompt as Responses ``input`` items.

    Reasoning parts that came from this API (their ``providerOptions.openai.itemId``) go back
    as ``reasoning`` items, their summary parts joined into one item per id, with the
    encrypted content when known. With ``store=False`` the server keeps nothing, so a
    reasoning item without encrypted content cannot be resolved and is left out (with a
    warning); other reasoning parts (from other providers) are left out too.
    """
    items: list[dict[str, Any]] = []
    reasoning = _Reasoning(prompt, store, warnings if warnings is not None else [])
    for message in prompt:
        role = message["role"]
        content = message["content"]
        if role == "system":
            items.append({"role": "system", "content": content})
        elif role == "user":
            parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
            items.append({"role": "user", "content": [_user_part(p) for p in parts]})
        elif role == "assistant":
            items.extend(_assistant_items(content, reasoning, store, approvals or {}))
        elif role == "tool":
            items.extend(
                {
                    "type": "function_call_output",
                    "call_id": part["toolCallId"],
                    "output": tool_output_text(part["output"]),
                }
                for part in content
                if part.get("type") == "tool-result"
            )
    return items


def _user_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"type": "input_text", "text": part["text"]}
    media_type: str = part.get("mediaType") or "application/octet-stream"
    url = file_url(part["data"], media_type)
    if media_type.startswith("image/"):
        return {"type": "input_image", "image_url": url}
    if url.startswith("data:"):
        return {"type": "input_file", "filename": part.get("filename") or "file", "file_data": url}
    return {"type": "input_file", "file_url": url}


def _assistant_items(
    content: str | list[dict[str, Any]],
    reasoning: _Reasoning,
    store: bool,
    approvals: Mapping[str, Any],
) -> list[dict[str, Any]]:
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    results = {p.get("toolCallId"): p for p in content if p.get("type") == "tool-result"}
    items: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "reasoning":
            item = reasoning.item(part)
            if item is not None:
                items.append(item)
        elif kind == "text":
            items.append(
                {"role": "assistant", "content": [{"type": "output_text", "text": part["text"]}]}
            )
        elif kind == "tool-call" and part.get("providerExecuted"):
            items.extend(_provider_items(part, results.get(part["toolCallId"]), store, approvals))
        elif kind == "tool-call":
            call = {
                "type": "function_call",
                "call_id": part["toolCallId"],
                "name": part["toolName"],
                "arguments": json.dumps(part["input"]),
            }
            item_id = _openai_meta(part).get("itemId")
            if isinstance(item_id, str) and item_id:
                call["id"] = item_id  # the output item it was, for the reasoning before it
            items.append(call)
    return items


def _provider_items(
    part: dict[str, Any], result: dict[str, Any] | None, store: bool, approvals: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """A tool the API ran: referred to by its item id when stored; MCP items rebuilt if not;
    left out when it came from elsewhere (no ``openai`` item id)."""
    meta = _openai_meta(part)
    if not meta.get("itemId"):
        return []
    if meta.get("itemType") in MCP_ITEMS:
        return mcp_input_items(meta, part, result, store=store, approvals=approvals)
    return [{"type": "item_reference", "id": meta["itemId"]}] if store else []


def _openai_meta(part: dict[str, Any]) -> dict[str, Any]:
    options = part.get("providerOptions") or part.get("providerMetadata") or {}
    meta = options.get("openai")
    return meta if isinstance(meta, dict) else {}


class _Reasoning:
    """Turns reasoning parts into ``reasoning`` input items, one per item id."""

    def __init__(self, prompt: Prompt, store: bool, warnings: list[dict[str, Any]]) -> None:
        self._store = store
        self._warnings = warnings
        self._sent: dict[str, dict[str, Any]] = {}
        # An item's encrypted content rides on its last summary part: find it first.
        self._encrypted: dict[str, str] = {}
        for message in prompt:
            if message["role"] == "assistant" and isinstance(message["content"], list):
                for part in message["content"]:
                    meta = _openai_meta(part) if part.get("type") == "reasoning" else {}
                    if meta.get("itemId") and meta.get("reasoningEncryptedContent"):
                        self._encrypted[meta["itemId"]] = meta["reasoningEncryptedContent"]

    def item(self, part: dict[str, Any]) -> dict[str, Any] | None:
        """The item of ``part``, or ``None`` when it joined an item already sent (a later
        summary part of the same item) or cannot be sent."""
        item_id = _openai_meta(part).get("itemId")
        if not isinstance(item_id, str) or not item_id:
            return None
        text = part.get("text") or ""
        summary = [{"type": "summary_text", "text": text}] if text else []
        known = self._sent.get(item_id)
        if known is not None:
            known["summary"].extend(summary)
            return None
        encrypted = self._encrypted.get(item_id)
        if not self._store and not encrypted:
            self._warnings.append(
                {
                    "type": "other",
                    "message": f"reasoning item {item_id} has no encrypted content and store "
                    "is false: it was left out (add 'reasoning.encrypted_content' to include)",
                }
            )
            self._sent[item_id] = {"summary": []}  # warn once per item
            return None
        item: dict[str, Any] = {"type": "reasoning", "id": item_id, "summary": summary}
        if encrypted:
            item["encrypted_content"] = encrypted
        self._sent[item_id] = item
        return item
