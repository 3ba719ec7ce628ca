"""An MCP ``tools/call`` result as a procession tool result (``docs/tools.md``, MCP results).

Results are read in their wire form (``structuredContent``, ``mimeType``...), the JSON the
server sent, so the mapping does not depend on the SDK's Python class names.

- ``isError``: a :class:`~procession.ToolError` whose text is the server's text blocks.
- ``structuredContent``: that object, as it came.
- otherwise the ``content`` blocks: one text block is its string; no block is ``None``;
  several blocks (or one that is not text) are a list where text blocks are strings, images
  and audio are ``{"type", "mimeType", "data"}`` (base64), embedded resources
  ``{"type": "resource", "uri", "mimeType", "text" | "blob"}`` and resource links
  ``{"type": "resource_link", "uri", "name", ...}``.
"""

from __future__ import annotations

from typing import Any

from procession.errors import ToolError

__all__ = ["error_text", "tool_result"]

_DROPPED = frozenset({"_meta", "annotations", "icons"})
"""Block fields that mean nothing to a model: client hints and metadata."""


def tool_result(result: dict[str, Any], tool_name: str) -> Any:
    """The tool result the model and ``process_tool_result`` see; raise on ``isError``."""
    if result.get("isError"):
        raise ToolError(error_text(result, tool_name))
    structured = result.get("structuredContent")
    if structured is not None:
        return structured
    blocks = [_block(block) for block in result.get("content") or ()]
    if not blocks:
        return None
    if len(blocks) == 1 and isinstance(blocks[0], str):
        return blocks[0]
    return blocks


def error_text(result: dict[str, Any], tool_name: str) -> str:
    """The text of an ``isError`` result, or a sentence saying the tool failed."""
    texts = [
        block["text"]
        for block in result.get("content") or ()
        if block.get("type") == "text" and block.get("text")
    ]
    return "\n".join(texts) if texts else f"MCP tool {tool_name!r} reported an error"


def _block(block: dict[str, Any]) -> Any:
    kind = block.get("type")
    if kind == "text":
        return block.get("text", "")
    if kind == "resource":
        resource = block.get("resource") or {}
        return {"type": "resource", **{k: v for k, v in resource.items() if k not in _DROPPED}}
    return {k: v for k, v in block.items() if k not in _DROPPED}
