"""Procession prompts (``LanguageModelV2Prompt`` dicts) to Anthropic Messages API content.

System messages become ``system`` text blocks; user text and files become ``text``,
``image`` and ``document`` blocks; assistant reasoning, text and tool calls become
``thinking``, ``text``, ``tool_use`` (or ``server_tool_use``) blocks; tool results become
``tool_result`` blocks in a user turn. Consecutive turns of the same Anthropic role are merged,
as the API requires alternating roles. ``providerOptions.anthropic.cacheControl`` on a message
or a part puts ``cache_control`` on the matching block.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from procession.messages.formats import Prompt

__all__ = ["AnthropicPrompt", "cache_control_of", "convert_prompt"]

Block = dict[str, Any]

_SERVER_RESULT_TYPES = {
    "web_search": "web_search_tool_result",
    "web_fetch": "web_fetch_tool_result",
    "code_execution": "code_execution_tool_result",
}


class AnthropicPrompt:
    """The converted prompt: ``system`` blocks, ``messages`` and conversion warnings."""

    __slots__ = ("messages", "system", "warnings")

    def __init__(self) -> None:
        self.system: list[Block] = []
        self.messages: list[dict[str, Any]] = []
        self.warnings: list[dict[str, Any]] = []

    def append(self, role: str, blocks: list[Block]) -> None:
        """Add blocks to the conversation, merging them into the last turn of the same role."""
        if not blocks:
            return
        if self.messages and self.messages[-1]["role"] == role:
            self.messages[-1]["content"].extend(blocks)
        else:
            self.messages.append({"role": role, "content": list(blocks)})


def cache_control_of(obj: dict[str, Any]) -> dict[str, Any] | None:
    """The ``cache_control`` an object's ``providerOptions.anthropic`` asks for, if any."""
    options = (obj.get("providerOptions") or {}).get("anthropic") or {}
    value = options.get("cacheControl", options.get("cache_control"))
    if value is True:
        return {"type": "ephemeral"}
    return dict(value) if isinstance(value, dict) else None


def _with_cache(blocks: list[Block], owner: dict[str, Any]) -> list[Block]:
    """Apply the owner's (message-level) cache control to its last block."""
    control = cache_control_of(owner)
    if control is not None and blocks:
        blocks[-1]["cache_control"] = control
    return blocks


def _part_cache(block: Block, part: dict[str, Any]) -> Block:
    control = cache_control_of(part)
    if control is not None:
        block["cache_control"] = control
    return block


def _source(data: Any, media_type: str) -> dict[str, Any]:
    if isinstance(data, bytes | bytearray):
        return {
            "type": "base64",
            "media_type": media_type,
            "data": base64.b64encode(data).decode(),
        }
    text = str(data)
    if text.startswith(("http://", "https://")):
        return {"type": "url", "url": text}
    if text.startswith("data:") and ";base64," in text:
        return {"type": "base64", "media_type": media_type, "data": text.split(",", 1)[1]}
    return {"type": "base64", "media_type": media_type, "data": text}


def _file_block(part: dict[str, Any]) -> Block:
    media_type = str(part.get("mediaType") or "application/octet-stream")
    data = part.get("data")
    if media_type.startswith("image/"):
        return {"type": "image", "source": _source(data, media_type)}
    if media_type == "text/plain" and isinstance(data, str) and not data.startswith("http"):
        return {
            "type": "document",
            "source": {"type": "text", "media_type": media_type, "data": data},
        }
    block: Block = {"type": "document", "source": _source(data, media_type)}
    if part.get("filename"):
        block["title"] = part["filename"]
    return block


def _user_blocks(content: Any) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[Block] = []
    for part in content:
        if part.get("type") == "text":
            blocks.append(_part_cache({"type": "text", "text": part["text"]}, part))
        elif part.get("type") == "file":
            blocks.append(_part_cache(_file_block(part), part))
    return blocks


def _tool_result_content(output: dict[str, Any]) -> tuple[Any, bool]:
    kind = output.get("type")
    value = output.get("value")
    if kind == "text":
        return str(value), False
    if kind == "error-text":
        return str(value), True
    if kind == "error-json":
        return json.dumps(value), True
    if kind == "content" and isinstance(value, list):
        return [_content_item(item) for item in value], False
    return json.dumps(value), False


def _content_item(item: dict[str, Any]) -> Block:
    if item.get("type") == "media":
        return _file_block({"data": item.get("data"), "mediaType": item.get("mediaType")})
    return {"type": "text", "text": str(item.get("text", ""))}


def _tool_blocks(content: list[dict[str, Any]]) -> list[Block]:
    blocks: list[Block] = []
    for part in content:
        if part.get("type") != "tool-result":
            continue
        value, is_error = _tool_result_content(part.get("output") or {})
        block: Block = {"type": "tool_result", "tool_use_id": part["toolCallId"], "content": value}
        if is_error:
            block["is_error"] = True
        blocks.append(_part_cache(block, part))
    return blocks


def _reasoning_block(part: dict[str, Any], warnings: list[dict[str, Any]]) -> Block | None:
    meta = (part.get("providerOptions") or part.get("providerMetadata") or {}).get("anthropic")
    meta = meta or {}
    if meta.get("redactedData"):
        return {"type": "redacted_thinking", "data": meta["redactedData"]}
    if meta.get("signature"):
        return {
            "type": "thinking",
            "thinking": part.get("text", ""),
            "signature": meta["signature"],
        }
    warnings.append(
        {"type": "other", "message": "reasoning without an Anthropic signature was left out"}
    )
    return None


def _assistant_blocks(content: Any, warnings: list[dict[str, Any]]) -> list[Block]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[Block] = []
    server_names: dict[str, str] = {}
    for part in content:
        kind = part.get("type")
        block: Block | None = None
        if kind == "text" and part.get("text"):
            block = {"type": "text", "text": part["text"]}
        elif kind == "reasoning":
            block = _reasoning_block(part, warnings)
        elif kind == "tool-call":
            block = _tool_use_block(part, server_names)
        elif kind == "tool-result" and part.get("toolCallId") in server_names:
            block = _server_result_block(part, server_names[part["toolCallId"]])
        if block is not None:
            blocks.append(_part_cache(block, part))
    return blocks


def _tool_use_block(part: dict[str, Any], result_types: dict[str, str]) -> Block:
    """A ``tool_use`` block; a provider-executed call is ``server_tool_use``, or
    ``mcp_tool_use`` with its server when the MCP connector made it. ``result_types`` learns
    the block type of each such call's result."""
    args = part.get("input", part.get("args")) or {}
    block: Block = {"id": part["toolCallId"], "name": part["toolName"], "input": args}
    if not part.get("providerExecuted"):
        return {"type": "tool_use", **block}
    meta = (part.get("providerOptions") or part.get("providerMetadata") or {}).get("anthropic")
    server = (meta or {}).get("mcpServerName")
    if isinstance(server, str):
        result_types[part["toolCallId"]] = "mcp_tool_result"
        return {"type": "mcp_tool_use", **block, "server_name": server}
    name = part["toolName"]
    result_types[part["toolCallId"]] = _SERVER_RESULT_TYPES.get(name, f"{name}_tool_result")
    return {"type": "server_tool_use", **block}


def _server_result_block(part: dict[str, Any], kind: str) -> Block:
    output = part.get("output") or {}
    value = output.get("value") if isinstance(output, dict) and "type" in output else output
    block: Block = {"type": kind, "tool_use_id": part["toolCallId"], "content": value}
    if kind == "mcp_tool_result":
        is_error = isinstance(output, dict) and str(output.get("type", "")).startswith("error")
        block["is_error"] = bool(is_error or part.get("isError"))
    return block


def convert_prompt(prompt: Prompt) -> AnthropicPrompt:
    """Convert a procession prompt to Anthropic ``system`` blocks and ``messages``."""
    out = AnthropicPrompt()
    for message in prompt:
        role = message.get("role")
        content = message.get("content")
        if role == "system":
            blocks = [{"type": "text", "text": str(content)}]
            out.system.extend(_with_cache(blocks, message))
        elif role == "user":
            out.append("user", _with_cache(_user_blocks(content), message))
        elif role == "assistant":
            out.append("assistant", _with_cache(_assistant_blocks(content, out.warnings), message))
        elif role == "tool":
            out.append("user", _with_cache(_tool_blocks(content or []), message))
        else:
            raise ValueError(f"prompt: unknown message role {role!r}")
    return out
