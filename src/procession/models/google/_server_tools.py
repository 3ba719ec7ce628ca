"""Gemini's server-side tools (``toolCall`` / ``toolResponse`` parts), both ways.

Gemini 3 can run its built-in tools (Google Search, URL context, file search, Maps...) inside
a turn that also calls functions ("tool combination"). It reports each as a ``toolCall`` part
(``id``, ``toolType``, ``args``) and a ``toolResponse`` part (``id``, ``toolType``,
``response``), either of which may carry a ``thoughtSignature``. They become a provider-executed
``tool-call`` (named by its ``toolType``) and ``tool-result``; the call's
``providerMetadata.google`` keeps ``serverToolType`` and both signatures, so the next turn
sends the two parts back as they came, which Gemini requires of a turn it signed. The call is
reported once its response has arrived (or the stream moved on), so that its metadata holds
the response's signature too.

Code execution (``executableCode`` / ``codeExecutionResult``) goes back the same way, as its
own parts, not as a function call.
"""

from __future__ import annotations

from typing import Any

from procession.chunks import Chunk

__all__ = ["ServerTools", "server_tool_parts"]

Data = dict[str, Any]


class ServerTools:
    """The ``toolCall`` parts of one call waiting for their ``toolResponse``."""

    __slots__ = ("_waiting",)

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[Data, Any]] = {}  # id -> (the call, its signature)

    @property
    def waiting(self) -> bool:
        """Whether a ``toolCall`` waits for its response."""
        return bool(self._waiting)

    def call(self, part: Data) -> list[Chunk]:
        """A ``toolCall`` part: kept until its response (a call without id is reported now)."""
        call = part.get("toolCall") or {}
        call_id = str(call.get("id") or "")
        out = self.flush() if call_id in self._waiting else []
        self._waiting[call_id] = (call, part.get("thoughtSignature"))
        return out if call_id else out + self.flush()

    def response(self, part: Data) -> list[Chunk]:
        """A ``toolResponse`` part: its call's ``tool-call`` and the ``tool-result``."""
        response = part.get("toolResponse") or {}
        call_id = str(response.get("id") or "")
        call, signature = self._waiting.pop(call_id, ({"toolType": response.get("toolType")}, None))
        out = self.flush()
        chunk = _call_chunk(call_id, call, signature, part.get("thoughtSignature"))
        payload = {k: chunk.payload[k] for k in ("toolCallId", "toolName", "providerExecuted")}
        return [*out, chunk, Chunk("tool-result", {**payload, "result": response.get("response")})]

    def flush(self) -> list[Chunk]:
        """The calls still waiting, reported without a result."""
        out = [_call_chunk(i, call, sig, None) for i, (call, sig) in self._waiting.items()]
        self._waiting.clear()
        return out


def _call_chunk(call_id: str, call: Data, signature: Any, response_signature: Any) -> Chunk:
    tool_type = str(call.get("toolType") or "server_tool")
    meta: Data = {"serverToolType": tool_type}
    if signature:
        meta["thoughtSignature"] = signature
    if response_signature:
        meta["responseThoughtSignature"] = response_signature
    args = call.get("args")
    payload: Data = {"toolCallId": call_id, "toolName": tool_type, "providerExecuted": True}
    payload["args"] = args if isinstance(args, dict) else {}
    payload["providerMetadata"] = {"google": meta}
    return Chunk("tool-call", payload)


def server_tool_parts(part: Data, meta: Data, calls: dict[str, Data]) -> Data | None:
    """The Gemini part of a provider-executed prompt part (``tool-call`` or ``tool-result``).

    ``meta`` is the call's ``google`` provider metadata; ``calls`` learns each call (by id) so
    its result can follow. ``None`` for a tool Gemini did not run (another provider's).
    """
    if part.get("type") == "tool-call":
        call_id = str(part.get("toolCallId") or "")
        args = part.get("input", part.get("args")) or {}
        tool_type = meta.get("serverToolType")
        if isinstance(tool_type, str):
            calls[call_id] = meta
            out: Data = {"toolCall": {"id": call_id, "toolType": tool_type, "args": args}}
        elif part.get("toolName") == "code_execution":
            calls[call_id] = {"codeExecution": True}
            out = {"executableCode": args}
        else:
            return None
        if meta.get("thoughtSignature"):
            out["thoughtSignature"] = meta["thoughtSignature"]
        return out
    known = calls.get(str(part.get("toolCallId") or ""))
    if known is None:
        return None
    output = part.get("output") or {}
    value = output.get("value") if isinstance(output, dict) and "type" in output else output
    if known.get("codeExecution"):
        return {"codeExecutionResult": value if isinstance(value, dict) else {"output": value}}
    response: Data = {"id": part.get("toolCallId"), "toolType": known["serverToolType"]}
    result: Data = {"toolResponse": {**response, "response": value}}
    if known.get("responseThoughtSignature"):
        result["thoughtSignature"] = known["responseThoughtSignature"]
    return result
