"""Processors built from the oracle's declarative spec, recording every hook call.

A spec names the hooks to implement (``methods``) and behaviours (``{method, action, when,
...}``); ``{"method": "any", "action": "record"}`` implements all nine hooks. Exactly those
hooks exist on the processor, since the presence of a hook changes what a runtime does. Every
call is recorded in a :class:`TraceContext` as an event of the oracle's trace format.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from typing import Any

from procession import Chunk
from procession.errors import TripWire
from procession.messages.message import Message
from procession.messages.parts import TextPart

from .summarize import (
    IdNormalizer,
    chunk_summary,
    clean,
    error_summary,
    message_summary,
    prompt_summary,
    usage_summary,
)

__all__ = ["CAMEL", "SNAKE", "SpecProcessor", "TraceContext", "build_processor"]

CAMEL: dict[str, str] = {
    "process_input": "processInput",
    "process_input_step": "processInputStep",
    "process_llm_request": "processLLMRequest",
    "process_llm_response": "processLLMResponse",
    "process_output_stream": "processOutputStream",
    "process_output_step": "processOutputStep",
    "process_tool_result": "processToolResult",
    "process_output_result": "processOutputResult",
    "process_api_error": "processAPIError",
}
"""Python hook names to Mastra's."""
SNAKE: dict[str, str] = {v: k for k, v in CAMEL.items()}
"""Mastra's hook names to Python's."""

_STEP_KEYS = {
    "toolChoice": "tool_choice",
    "activeTools": "active_tools",
    "systemMessages": "system_messages",
    "providerOptions": "provider_options",
    "modelSettings": "model_settings",
    "structuredOutput": "structured_output",
}


class TraceContext:
    """Per-scenario runtime shared by every processor: events, ids, response cache."""

    def __init__(self, ids: IdNormalizer) -> None:
        self.ids = ids
        self.events: list[dict[str, Any]] = []
        self.request_index = 0
        self.cache: dict[str, Any] = {}
        self.message_lists: list[Any] = []
        self.returned: set[int] = set()

    def push(self, event: dict[str, Any], request: int | None = None) -> dict[str, Any]:
        """Record an event for ``request`` (default: the current one)."""
        index = self.request_index if request is None else request
        stored: dict[str, Any] = {"request": index, **event}
        if index in self.returned:
            stored["afterReturn"] = True
        self.events.append(stored)
        return stored

    def remember(self, message_list: Any) -> None:
        """Keep the message list a hook received (to read the final messages from)."""
        if message_list is not None and not any(m is message_list for m in self.message_lists):
            self.message_lists.append(message_list)


def _matches(when: dict[str, Any], ctx: dict[str, Any]) -> bool:
    for key, want in when.items():
        if key == "contains":
            text = ctx.get("text")
            if not isinstance(text, str) or want not in text:
                return False
        elif key == "retryCountBelow":
            if not ctx.get("retryCount", 0) < want:
                return False
        elif key == "callIndexAtLeast":
            if not ctx["callIndex"] >= want:
                return False
        elif key == "fromCache":
            if ctx.get("fromCache") is not want:
                return False
        else:
            actual = ctx.get(key)
            if isinstance(want, list):
                if actual not in want:
                    return False
            elif actual != want:
                return False
    return True


def _text_of(message: Message) -> str:
    return "".join(p.text for p in message.content.parts if isinstance(p, TextPart))


def _js_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _fill(template: Any, kw: dict[str, Any]) -> Any:
    if not isinstance(template, str):
        return template

    def js(value: Any) -> str:
        return "undefined" if value is None else str(value)

    out = template.replace("{retryCount}", js(kw.get("retry_count")), 1)
    return out.replace("{step}", js(kw.get("step_number")), 1)


def _step_value(value: dict[str, Any]) -> dict[str, Any]:
    return {
        _STEP_KEYS.get(k, re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower()): v for k, v in value.items()
    }


class SpecProcessor:
    """A processor implementing exactly the hooks its spec names."""

    def __init__(self, spec: dict[str, Any], trace: TraceContext) -> None:
        self.id: str = spec["id"]
        self.name: str = spec.get("name", self.id)
        self.spec = spec
        self.trace = trace
        if "processDataParts" in spec:
            self.process_data_parts = bool(spec["processDataParts"])
        self.behaviours: list[dict[str, Any]] = []
        for raw in spec.get("behaviours", []):
            behaviour = dict(raw)
            behaviour["when"] = dict(raw.get("when") or {})
            if "whenRetryCountBelow" in raw:
                behaviour["when"]["retryCountBelow"] = raw["whenRetryCountBelow"]
            self.behaviours.append(behaviour)
        methods = set(spec.get("methods", []))
        for behaviour in self.behaviours:
            if behaviour["method"] == "any":
                if behaviour["action"] == "record":
                    methods.update(SNAKE)
            else:
                methods.add(behaviour["method"])
        self.counters: dict[str, int] = {}
        for method in methods:
            setattr(self, SNAKE[method], self._hook(method))
        if spec.get("onViolation"):
            self.on_violation = self._on_violation

    def __repr__(self) -> str:
        return f"<SpecProcessor id={self.id!r}>"

    def _on_violation(self, violation: Any) -> None:
        self.trace.push(
            {
                "kind": "violation",
                "processorId": self.id,
                "violation": {
                    "processorId": violation.processor_id,
                    "message": violation.message,
                    "detail": clean(violation.detail, self.trace.ids),
                },
            }
        )

    def _hook(self, method: str) -> Any:
        async def hook(**kw: Any) -> Any:
            return await self._call(method, kw)

        return hook

    async def _call(self, method: str, kw: dict[str, Any]) -> Any:
        trace, ids = self.trace, self.trace.ids
        context = kw.get("request_context")
        tagged = context.get("oracle.request") if context is not None else None
        request = tagged if isinstance(tagged, int) else trace.request_index
        key = f"{request}:{method}"
        call_index = self.counters.get(key, 0)
        self.counters[key] = call_index + 1
        trace.remember(kw.get("message_list"))
        record: dict[str, Any] = {"kind": "hook", "processorId": self.id, "method": method}
        if kw.get("step_number") is not None:
            record["stepNumber"] = kw["step_number"]
        record["retryCount"] = kw.get("retry_count")
        record["writer"] = kw.get("writer") is not None
        record["args"] = args = self._summarize(method, kw, ids)
        actions: list[dict[str, Any]] = []
        record["actions"] = actions
        ctx: dict[str, Any] = {
            "callIndex": call_index,
            "retryCount": kw.get("retry_count"),
            "stepNumber": kw.get("step_number"),
            "requestIndex": request,
            **self._context(method, kw, args),
        }
        stored = trace.push(record, request)
        try:
            result = await self._behave(method, kw, ctx, actions)
        except TripWire:
            self._finish(stored, kw, "tripwire")
            raise
        except Exception:
            self._finish(stored, kw, "threw")
            raise
        self._finish(stored, kw, None)
        return result

    def _finish(self, stored: dict[str, Any], kw: dict[str, Any], outcome: str | None) -> None:
        if self.spec.get("traceState"):
            state = kw.get("state") or {}
            stored["state"] = {
                k: clean(v, self.trace.ids) for k, v in state.items() if not k.startswith("__")
            }
        if outcome is not None:
            stored["outcome"] = outcome
        if not stored["actions"]:
            del stored["actions"]

    @staticmethod
    def _summarize(method: str, kw: dict[str, Any], ids: IdNormalizer) -> dict[str, Any]:
        def msgs(key: str) -> list[Any]:
            return [message_summary(m, ids) for m in kw.get(key) or ()]

        def steps() -> int | None:
            value = kw.get("steps")
            return None if value is None else len(value)

        a: dict[str, Any] = {}
        if method == "processInput":
            a["messages"] = msgs("messages")
            a["systemMessages"] = msgs("system_messages")
        elif method == "processInputStep":
            a["messages"] = msgs("messages")
            a["systemMessages"] = msgs("system_messages")
            a["toolChoice"] = clean(kw.get("tool_choice"), ids)
            if kw.get("active_tools") is not None:
                a["activeTools"] = list(kw["active_tools"])
            if kw.get("tools") is not None:
                a["tools"] = list(kw["tools"])
            a["steps"] = steps()
        elif method == "processLLMRequest":
            a["prompt"] = prompt_summary(kw["prompt"], ids)
            a["steps"] = steps()
        elif method == "processLLMResponse":
            a["fromCache"] = kw.get("from_cache")
            a["chunkTypes"] = [c.type for c in kw.get("chunks") or ()]
            a["steps"] = steps()
        elif method == "processOutputStream":
            a["part"] = chunk_summary(kw["part"], ids)
            parts = kw.get("stream_parts")
            if parts is not None:
                a["streamParts"] = len(parts)
        elif method == "processOutputStep":
            a["finishReason"] = kw.get("finish_reason")
            a["text"] = kw.get("text")
            a["toolCalls"] = [
                {"toolName": c.tool_name, "toolCallId": c.tool_call_id, "args": clean(c.args, ids)}
                for c in kw.get("tool_calls") or ()
            ]
            a["usage"] = usage_summary(kw.get("usage"))
            a["messages"] = msgs("messages")
            a["systemMessages"] = msgs("system_messages")
            a["steps"] = steps()
        elif method == "processToolResult":
            a["toolName"] = kw.get("tool_name")
            a["toolCallId"] = kw.get("tool_call_id")
            a["args"] = clean(kw.get("args"), ids)
            a["result"] = clean(kw.get("result"), ids)
            a["steps"] = steps()
        elif method == "processOutputResult":
            result = kw.get("result")
            a["result"] = {
                "text": getattr(result, "text", None),
                "finishReason": getattr(result, "finish_reason", None),
                "steps": len(getattr(result, "steps", None) or ()),
                "usage": usage_summary(getattr(result, "usage", None)),
            }
            a["messages"] = msgs("messages")
        elif method == "processAPIError":
            a["error"] = error_summary(kw.get("error"), ids)
            a["messages"] = msgs("messages")
            a["steps"] = steps()
        return {k: v for k, v in a.items() if v is not None}

    @staticmethod
    def _context(method: str, kw: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        if method in ("processInput", "processInputStep"):
            return {"text": "\n".join(_text_of(m) for m in kw.get("messages") or ())}
        if method == "processLLMRequest":
            return {"text": _js_json(args["prompt"])}
        if method == "processLLMResponse":
            return {"fromCache": kw.get("from_cache")}
        if method == "processOutputStream":
            part: Chunk = kw["part"]
            text = part.payload.get("text")
            if text is None and part.type.startswith("data-"):
                text = _js_json(part.data)
            return {"type": part.type, "text": text, "toolName": part.payload.get("toolName")}
        if method == "processOutputStep":
            return {"text": kw.get("text"), "finishReason": kw.get("finish_reason")}
        if method == "processToolResult":
            return {"toolName": kw.get("tool_name")}
        if method == "processOutputResult":
            return {"text": getattr(kw.get("result"), "text", None)}
        return {}

    async def _behave(
        self, method: str, kw: dict[str, Any], ctx: dict[str, Any], actions: list[Any]
    ) -> Any:
        result: Any = None
        part: Chunk | None = kw.get("part") if method == "processOutputStream" else None
        prompt_out: list[dict[str, Any]] | None = None
        dropped = False
        state: dict[str, Any] = kw["state"]
        for b in self.behaviours:
            if b["method"] not in (method, "any") or not _matches(b["when"], ctx):
                continue
            act = b["action"]
            if act == "record":
                continue
            if act == "count":
                name = b.get("key", "count")
                state[name] = state.get(name, 0) + 1
                actions.append({"action": "count", "key": name, "value": state[name]})
            elif act == "abort":
                reason = _fill(b.get("reason"), kw)
                entry: dict[str, Any] = {"action": "abort"}
                if reason is not None:
                    entry["reason"] = reason
                if "retry" in b:
                    entry["retry"] = b["retry"]
                actions.append(entry)
                kw["abort"](reason, retry=bool(b.get("retry", False)), metadata=b.get("metadata"))
            elif act == "throw":
                actions.append({"action": "throw", "message": b.get("message")})
                raise RuntimeError(b.get("message") or "processor error")
            elif act == "emit":
                chunk: dict[str, Any] = {
                    "type": b.get("chunkType", "data-custom"),
                    "data": b.get("data", {"from": self.id}),
                }
                if "transient" in b:
                    chunk["transient"] = b["transient"]
                writer = kw.get("writer")
                if writer is not None:
                    pending = writer.custom(chunk)
                    if inspect.isawaitable(pending):
                        await pending
                    actions.append({"action": "emit", "chunkType": chunk["type"]})
                else:
                    actions.append(
                        {"action": "emit", "chunkType": chunk["type"], "skipped": "no writer"}
                    )
            elif act == "drop":
                dropped = True
                actions.append({"action": "drop"})
            elif act == "upper":
                if part is not None and part.type == "text-delta" and not dropped:
                    part = part.copy()
                    part.payload["text"] = part.payload["text"].upper()
                    actions.append({"action": "upper"})
            elif act == "replace":
                if method == "processOutputStream" and dropped:
                    continue
                result, part, prompt_out, done = self._replace(
                    method, b, kw, result, part, prompt_out
                )
                if done:
                    actions.append({"action": "replace"})
            elif act == "addSystem":
                text = _fill(b.get("text", ""), kw)
                system = [*kw["system_messages"], {"role": "system", "content": text}]
                if method == "processInput":
                    result = {"messages": kw["messages"], "system_messages": system}
                else:
                    result = {**(result or {}), "system_messages": system}
                actions.append({"action": "addSystem", "text": text})
            elif act == "tagSystem":
                text = _fill(b.get("text", ""), kw)
                tag = b.get("tag", self.id)
                kw["message_list"].add_system(text, tag=tag)
                actions.append({"action": "tagSystem", "text": text, "tag": tag})
            elif act == "set":
                result = {**(result or {}), **_step_value(b["value"])}
                actions.append({"action": "set", "value": b["value"]})
            elif act == "appendSystemToPrompt":
                base = prompt_out if prompt_out is not None else kw["prompt"]
                prompt_out = [{"role": "system", "content": b.get("text")}, *base]
                actions.append({"action": "appendSystemToPrompt"})
            elif act == "cacheLookup":
                base = prompt_out if prompt_out is not None else kw["prompt"]
                cache_key = _js_json(prompt_summary(base, IdNormalizer()))
                state["cacheKey"] = cache_key
                hit = self.trace.cache.get(cache_key)
                actions.append({"action": "cacheLookup", "hit": hit is not None})
                if hit is not None:
                    result = {"response": hit}
            elif act == "cacheStore":
                if not kw.get("from_cache") and state.get("cacheKey"):
                    chunks = [c.to_dict() for c in kw["chunks"]]  # D7: the compact form
                    self.trace.cache[state["cacheKey"]] = {"chunks": copy.deepcopy(chunks)}
                    actions.append({"action": "cacheStore", "stored": True})
                else:
                    actions.append({"action": "cacheStore", "stored": False})
            elif act == "redact":
                self._redact(b, kw, actions)
            elif act in ("retry", "retryOnce"):
                if act == "retryOnce" and state.get("__retriedOnce"):
                    actions.append({"action": act, "retry": False})
                    continue
                if act == "retryOnce":
                    state["__retriedOnce"] = True
                if b.get("addUserMessage"):
                    kw["message_list"].add(
                        {"role": "user", "content": b["addUserMessage"]}, "input"
                    )
                result = {"retry": True}
                actions.append({"action": act, "retry": True})
            else:
                actions.append({"action": act, "unsupported": True})
        if method == "processOutputStream":
            return None if dropped else part
        if method == "processLLMRequest" and prompt_out is not None:
            return {**(result or {}), "prompt": prompt_out}
        return result

    @staticmethod
    def _replace(
        method: str,
        b: dict[str, Any],
        kw: dict[str, Any],
        result: Any,
        part: Chunk | None,
        prompt_out: list[dict[str, Any]] | None,
    ) -> tuple[Any, Chunk | None, list[dict[str, Any]] | None, bool]:
        old, new = b["from"], b["to"]
        if method == "processOutputStream":
            if part is None or not isinstance(part.payload.get("text"), str):
                return result, part, prompt_out, False
            part = part.copy()
            part.payload["text"] = part.payload["text"].replace(old, new)
        elif method == "processInput":
            for message in kw["messages"]:
                if message.role != "user":
                    continue
                for p in message.content.parts:
                    if isinstance(p, TextPart):
                        p.text = p.text.replace(old, new)
                if isinstance(message.content.content, str):
                    message.content.content = message.content.content.replace(old, new)
            result = kw["messages"]
        elif method == "processLLMRequest":
            base = prompt_out if prompt_out is not None else kw["prompt"]
            prompt_out = []
            for msg in base:
                content = msg["content"]
                if isinstance(content, str):
                    prompt_out.append({**msg, "content": content.replace(old, new)})
                else:
                    prompt_out.append(
                        {
                            **msg,
                            "content": [
                                {**p, "text": p["text"].replace(old, new)}
                                if p.get("type") == "text"
                                else p
                                for p in content
                            ],
                        }
                    )
        else:
            return result, part, prompt_out, False
        return result, part, prompt_out, True

    def _redact(self, b: dict[str, Any], kw: dict[str, Any], actions: list[Any]) -> None:
        field = b["field"]
        value = kw.get("result")
        if isinstance(value, dict) and field in value:
            redacted = {**value, field: b.get("with", "[REDACTED]")}
            ok = kw["message_list"].update_tool_invocation(
                {
                    "type": "tool-invocation",
                    "toolInvocation": {
                        "state": "result",
                        "toolCallId": kw["tool_call_id"],
                        "toolName": kw["tool_name"],
                        "args": kw["args"],
                        "result": redacted,
                    },
                }
            )
            actions.append({"action": "redact", "field": field, "updated": ok})


def build_processor(spec: dict[str, Any], trace: TraceContext) -> SpecProcessor:
    """A processor for one spec, recording into ``trace``."""
    return SpecProcessor(spec, trace)
