"""The Responses API's remote MCP items, both ways: output items to chunks, prompt parts back.

With a ``{"type": "mcp", "server_label": ..., "server_url": ...}`` tool the API itself talks
to the MCP server and reports it as output items:

* ``mcp_list_tools``: the server's tools, listed once per conversation;
* ``mcp_call``: a call the API made (``name``, ``arguments``, ``output`` or ``error``);
* ``mcp_approval_request``: a call waiting for the user's approval (``require_approval``).

Each becomes a ``tool-call`` and a ``tool-result`` chunk with ``providerExecuted: True`` (the
call's name is the MCP tool's; ``mcp_list_tools`` for a listing), whose
``providerMetadata.openai`` names the item (``itemId``, ``itemType``) and the server
(``serverLabel``). An approval request's result is ``{"approvalRequestId": ...,
"awaitingApproval": True}``: the call has not run.

On the next turn each item goes back: as an ``item_reference`` when the API stored the
response (``store`` not false), else rebuilt from the call and its result. The user's answers
to approval requests go in ``provider_options["openai"]["mcp_approvals"]`` (approval request
id to ``True``/``False``) and are sent as ``mcp_approval_response`` items after their request.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from procession.chunks import Chunk
from procession.models.openai.common import parse_args

__all__ = ["MCP_ITEMS", "mcp_chunks", "mcp_input_items"]

MCP_ITEMS = frozenset(("mcp_list_tools", "mcp_call", "mcp_approval_request"))
"""The Responses output item types of remote MCP servers."""

Data = dict[str, Any]


def mcp_chunks(item: Data, provider: str, out: list[Chunk]) -> None:
    """Add the ``tool-call`` and ``tool-result`` chunks of one MCP output item to ``out``."""
    kind = str(item.get("type"))
    item_id = str(item.get("id") or "")
    meta: Data = {"itemId": item_id, "itemType": kind, "serverLabel": item.get("server_label")}
    args: Data | str = {}
    if kind == "mcp_list_tools":
        name = "mcp_list_tools"
        result: Any = {"tools": item.get("tools") or []}
    else:
        name, args = str(item.get("name") or ""), parse_args(item.get("arguments") or "")
        if kind == "mcp_approval_request":
            result = {"approvalRequestId": item_id, "awaitingApproval": True}
        elif item.get("error") is not None:
            result = {"error": item["error"]}
        else:
            result = item.get("output")
        if item.get("approval_request_id"):
            meta["approvalRequestId"] = item["approval_request_id"]
    call = {"toolCallId": item_id, "toolName": name, "providerExecuted": True}
    out.append(Chunk("tool-call", {**call, "args": args, "providerMetadata": {provider: meta}}))
    out.append(Chunk("tool-result", {**call, "result": result}))


def mcp_input_items(
    meta: Mapping[str, Any],
    call: Data,
    result: Data | None,
    *,
    store: bool,
    approvals: Mapping[str, Any],
) -> list[Data]:
    """The input items that send one MCP item back; ``meta`` is the call's ``openai``
    provider metadata, ``result`` its ``tool-result`` part (if the prompt has it)."""
    item_id = str(meta.get("itemId") or "")
    kind = meta.get("itemType")
    items = [{"type": "item_reference", "id": item_id} if store else _rebuilt(meta, call, result)]
    if kind == "mcp_approval_request" and item_id in approvals:
        answer = approvals[item_id]
        items.append(
            {"type": "mcp_approval_response", "approval_request_id": item_id, "approve": answer}
        )
    return items


def _rebuilt(meta: Mapping[str, Any], call: Data, result: Data | None) -> Data:
    kind = str(meta.get("itemType"))
    item: Data = {"type": kind, "id": meta.get("itemId"), "server_label": meta.get("serverLabel")}
    value = _value(result)
    if kind == "mcp_list_tools":
        item["tools"] = value.get("tools", []) if isinstance(value, dict) else []
        return item
    item["name"] = call.get("toolName")
    args = call.get("input", call.get("args"))
    item["arguments"] = args if isinstance(args, str) else json.dumps(args or {})
    if kind == "mcp_call":
        if isinstance(value, dict) and set(value) == {"error"}:
            item["error"] = value["error"]
        else:
            item["output"] = value if isinstance(value, str) or value is None else json.dumps(value)
        if meta.get("approvalRequestId"):
            item["approval_request_id"] = meta["approvalRequestId"]
    return item


def _value(result: Data | None) -> Any:
    output = (result or {}).get("output")
    if isinstance(output, dict) and "type" in output:
        return output.get("value")
    return output
