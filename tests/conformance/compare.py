"""Compare procession's trace of a scenario with Mastra's recorded trace.

Per request, both traces are reduced to the same *view* (:func:`project`):

- ``events``: every hook call (processor, hook, step number, retry count, whether a writer was
  passed, argument summaries, actions taken, outcome), model call (prompt, tools, tool choice,
  outcome), tool execution and ``on_violation`` call, in order;
- ``chunks``: what the client read (stream mode), type and key fields;
- ``result``: text, finish reason, tripwire;
- ``messages``: the final message list (role and parts); ``systemMessages`` (stream mode);
- ``threw``: whether ``stream()``/``generate()`` itself raised.

The expected view is Mastra's, adjusted by the named D-row rules a scenario's delta file lists
(:mod:`tests.conformance.rules`). Any other difference is reported.

Usage::

    python tests/conformance/compare.py SCENARIO_NAME   # runs procession, prints differences
"""

from __future__ import annotations

import copy
import difflib
import json
import re
from typing import Any

__all__ = ["canonical_tool_choice", "diff_views", "event_signature", "project", "renumber_ids"]

_ID = re.compile(r"<id\d+>")


def canonical_tool_choice(value: Any) -> Any:
    """``"auto"`` and ``{"type": "auto"}`` are the same choice; use the object form."""
    if isinstance(value, str) and value in ("auto", "none", "required"):
        return {"type": value}
    return value


def _error(error: Any) -> Any:
    """Errors are compared by message (and status): names differ between JavaScript and Python."""
    if not isinstance(error, dict):
        return error
    out = {"message": error.get("message")}
    if error.get("statusCode") is not None:
        out["statusCode"] = error["statusCode"]
    return out


def _chunk(chunk: Any) -> Any:
    if not isinstance(chunk, dict):
        return chunk
    if chunk.get("type") == "error":
        return {"type": "error"}  # the text is runtime-specific (Mastra wraps it)
    if chunk.get("type") == "tool-error":
        return {**chunk, "error": _error(chunk.get("error"))}
    return chunk


def _event(event: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in event.items() if k != "seq"}
    if out.get("kind") != "hook":
        return out
    args = dict(out.get("args", {}))
    if "toolChoice" in args:
        args["toolChoice"] = canonical_tool_choice(args["toolChoice"])
    if "error" in args:
        args["error"] = _error(args["error"])
    if "part" in args:
        args["part"] = _chunk(args["part"])
    out["args"] = args
    return out


def _message(message: Any) -> Any:
    if isinstance(message, dict) and "parts" in message:
        return {"role": message["role"], "parts": message["parts"]}
    return message


def _strip_message_metadata(value: Any) -> Any:
    """Message ``metadata`` (Mastra's ``{modelId, provider}`` bookkeeping) is not compared."""
    if isinstance(value, dict):
        if "role" in value and "parts" in value:
            return {"role": value["role"], "parts": _strip_message_metadata(value["parts"])}
        return {k: _strip_message_metadata(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_message_metadata(v) for v in value]
    return value


def project(request: dict[str, Any]) -> dict[str, Any]:
    """The comparable view of one request of a trace."""
    result = request.get("result") or {}
    view: dict[str, Any] = {
        "mode": request.get("mode"),
        "events": [_event(e) for e in request.get("events", [])],
        "result": {k: result.get(k) for k in ("text", "finishReason", "tripwire")},
        "messages": [_message(m) for m in request.get("messages") or []],
        "threw": request.get("threw") is not None,
    }
    if "chunks" in request:
        view["chunks"] = [_chunk(c) for c in request["chunks"]]
    if "systemMessages" in request:
        view["systemMessages"] = request["systemMessages"]
    calls = [e["call"] for e in view["events"] if e.get("kind") == "model"]
    for event in view["events"]:  # model calls are numbered from 0 in each request
        if event.get("kind") == "model":
            event["call"] -= calls[0]
    return renumber_ids(_strip_message_metadata(view))


def renumber_ids(view: dict[str, Any]) -> dict[str, Any]:
    """Renumber ``<idN>`` placeholders in order of first appearance within the view."""
    text = json.dumps(view)
    mapping: dict[str, str] = {}

    def swap(match: re.Match[str]) -> str:
        found = match.group(0)
        if found not in mapping:
            mapping[found] = f"<id{len(mapping) + 1}>"
        return mapping[found]

    renumbered: dict[str, Any] = json.loads(_ID.sub(swap, text))
    return renumbered


def event_signature(event: dict[str, Any]) -> str:
    """A one-line name of an event, for sequence diffs."""
    kind = event.get("kind")
    if kind == "hook":
        step = event.get("stepNumber")
        where = "" if step is None else f" step={step}"
        part = event.get("args", {}).get("part")
        what = f" [{part.get('type')}]" if isinstance(part, dict) else ""
        outcome = f" -> {event['outcome']}" if event.get("outcome") else ""
        return f"{event.get('processorId')}.{event.get('method')}{where}{what}{outcome}"
    if kind == "model":
        return f"model call {event.get('call')} ({event.get('outcome')})"
    if kind == "tool":
        return f"tool {event.get('toolName')} {json.dumps(event.get('args'))}"
    if kind == "violation":
        return f"violation {event.get('processorId')}: {event.get('violation', {}).get('message')}"
    return json.dumps(event)


def _chunk_signature(chunk: dict[str, Any]) -> str:
    return json.dumps(chunk, sort_keys=True)


def _diff_values(path: str, want: Any, got: Any, out: list[str], limit: int) -> None:
    if len(out) >= limit:
        return
    if isinstance(want, dict) and isinstance(got, dict):
        for key in list(want) + [k for k in got if k not in want]:
            if key not in got:
                out.append(f"{path}.{key}: missing (expected {json.dumps(want[key])[:200]})")
            elif key not in want:
                out.append(f"{path}.{key}: unexpected {json.dumps(got[key])[:200]}")
            else:
                _diff_values(f"{path}.{key}", want[key], got[key], out, limit)
        return
    if isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            _diff_values(f"{path}[{i}]", w, g, out, limit)
        return
    if want != got:
        out.append(f"{path}: expected {json.dumps(want)[:300]}, got {json.dumps(got)[:300]}")


def _sequence_diff(
    path: str, want: list[Any], got: list[Any], sig: Any, out: list[str], limit: int
) -> bool:
    """Report a sequence difference; ``True`` if the sequences have the same shape."""
    a, b = [sig(x) for x in want], [sig(x) for x in got]
    if a == b:
        return True
    lines = list(difflib.unified_diff(a, b, "expected", "procession", lineterm="", n=2))
    out.append(f"{path}: sequences differ\n    " + "\n    ".join(lines[2:60]))
    return len(out) >= limit


COMPARE_DATA_PARTS = "_compareDataParts"
"""A view key a rule may set to False: stored ``data-*`` parts are then left out of the
message comparison (both sides)."""


def _strip_data_parts(view: dict[str, Any]) -> None:
    def strip(messages: Any) -> None:
        for message in messages if isinstance(messages, list) else []:
            parts = message.get("parts") if isinstance(message, dict) else None
            if isinstance(parts, list):
                parts[:] = [
                    p
                    for p in parts
                    if not (isinstance(p, dict) and str(p.get("type", "")).startswith("data-"))
                ]

    strip(view.get("messages"))
    for event in view.get("events", []):
        if isinstance(event, dict) and isinstance(event.get("args"), dict):
            strip(event["args"].get("messages"))


def diff_views(want: dict[str, Any], got: dict[str, Any], limit: int = 40) -> list[str]:
    """Human-readable differences between an expected and an actual view (empty if equal)."""
    out: list[str] = []
    want, got = copy.deepcopy(want), copy.deepcopy(got)
    if not want.pop(COMPARE_DATA_PARTS, True):
        _strip_data_parts(want)
        _strip_data_parts(got)
    for key in ("events", "chunks"):
        w, g = want.pop(key, None), got.pop(key, None)
        if w is None and g is None:
            continue
        if w is None or g is None:
            out.append(
                f"{key}: expected {'none' if w is None else len(w)}, got "
                f"{'none' if g is None else len(g)}"
            )
            continue
        sig = event_signature if key == "events" else (lambda c: c.get("type"))
        if _sequence_diff(key, w, g, sig, out, limit):
            for i, (we, ge) in enumerate(zip(w, g, strict=True)):
                label = event_signature(we) if key == "events" else we.get("type")
                before = len(out)
                _diff_values(f"{key}[{i}]", we, ge, out, limit)
                for n in range(before, len(out)):
                    out[n] = f"{out[n]}   <{label}>"
    _diff_values("", want, got, out, limit)
    return out
