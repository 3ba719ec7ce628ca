"""Replays the built-in cases (``cases/*.json``) through procession, in the shape that
``record_builtins.mjs`` records Mastra's runs: the model's prompts and tools per call, the
final text, the ``data-*`` chunks, the tool results and the tripwire reason."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from procession import (
    Agent,
    PIIDetector,
    TokenLimiter,
    Tool,
    ToolCallFilter,
    ToolSearch,
    UnicodeNormalizer,
)
from procession.testing import Reply, ScriptedModel

HERE = Path(__file__).parent

# Mastra's option names and procession's, for each built-in.
_NAMES = {
    "stripControlChars": "strip_control_chars",
    "preserveEmojis": "preserve_emojis",
    "collapseWhitespace": "collapse_whitespace",
    "filterAfterToolSteps": "filter_after_tool_steps",
    "preserveModelOutput": "preserve_model_output",
    "countMode": "count_mode",
    "trimMode": "trim_mode",
    "atMaxRemoveTokens": "at_max_remove_tokens",
    "detectionTypes": "detection_types",
    "redactionMethod": "redaction_method",
    "preserveFormat": "preserve_format",
    "includeDetections": "include_detections",
    "injectCatalog": "inject_catalog",
}


def load(name: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The cases of ``name`` and Mastra's recorded results, by case name."""
    cases = json.loads((HERE / "cases" / f"{name}.json").read_text())["cases"]
    expected = json.loads((HERE / "expected" / f"{name}.json").read_text())["results"]
    return cases, {result["name"]: result for result in expected}


def options(spec: dict[str, Any]) -> dict[str, Any]:
    """Mastra's options in procession's names (``search: {topK...}`` flattened)."""
    out: dict[str, Any] = {}
    for key, value in spec.get("options", {}).items():
        if key == "search":
            out.update(
                {
                    {"topK": "top_k", "minScore": "min_score", "autoLoad": "auto_load"}[k]: v
                    for k, v in value.items()
                }
            )
        else:
            out[_NAMES.get(key, key)] = value
    return out


def _words(text: str) -> int:
    return len(text.split())


def tools(defs: dict[str, Any]) -> list[Tool]:
    """Tools answering their recorded result, taking any arguments."""

    def answer(result: Any) -> Callable[..., Any]:
        def run(**_: Any) -> Any:
            return json.loads(json.dumps(result))

        return run

    return [
        Tool(
            name=name,
            description=spec.get("description", f"Test tool {name}"),
            input_schema={"type": "object", "additionalProperties": True},
            function=answer(spec.get("result", {"ok": True})),
        )
        for name, spec in defs.items()
    ]


def processor(spec: dict[str, Any]) -> Any:
    """procession's built-in for a case's processor spec."""
    kind = spec["kind"]
    kwargs = {**options(spec), **spec.get("procession", {})}
    if kind == "UnicodeNormalizer":
        return UnicodeNormalizer(**kwargs)
    if kind == "TokenLimiter":
        limit = kwargs.pop("limit")
        if spec.get("wordCounter"):
            kwargs["counter"] = _words
        return TokenLimiter(limit, **kwargs)
    if kind == "ToolCallFilter":
        return ToolCallFilter(**kwargs)
    if kind == "PIIDetector":
        return PIIDetector(**kwargs)
    if kind == "ToolSearch":
        return ToolSearch(tools(spec.get("catalog", {})), **kwargs)
    raise ValueError(f"unknown built-in {kind}")


def _part(part: Any) -> Any:
    if isinstance(part, str):
        return part
    kind = part.get("type")
    if kind == "text":
        return part["text"]
    if kind == "tool-call":
        return {"call": part["toolName"]}
    if kind == "tool-result":
        return {"result": part["toolName"]}
    return {"type": kind}


def prompt_summary(prompt: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The oracle's prompt summary: role and parts (text, tool call and result names)."""
    return [
        {
            "role": message["role"],
            "content": [message["content"]]
            if isinstance(message["content"], str)
            else [_part(p) for p in message["content"]],
        }
        for message in prompt
    ]


async def run_case(case: dict[str, Any]) -> dict[str, Any]:
    """What procession does with one case, in the recorded shape."""
    responses = case.get("model", {}).get("responses", [{"text": ["ok"]}])
    model = ScriptedModel([Reply.from_dict(r) for r in responses], repeat_last=True)
    built = processor(case["processor"])
    output = case.get("lane") == "output"
    agent = Agent(
        id="builtin-agent",
        model=model,
        instructions=case.get("instructions", "You are a test agent."),
        tools=tools(case.get("tools", {})),
        max_steps=case.get("maxSteps", 5),
        input_processors=[] if output else [built],
        output_processors=[built] if output else [],
    )
    out: dict[str, Any] = {"name": case["name"]}
    if "attributes" in case:
        out["attributes"] = {a: getattr(built, _NAMES.get(a, a), None) for a in case["attributes"]}
    stream = agent.stream(case.get("input", "Hello"))
    data, results, tripwire, streamed = [], [], None, []
    async for chunk in stream:
        if chunk.type == "text-delta":
            streamed.append(chunk.payload.get("text", ""))
        elif chunk.type.startswith("data-"):
            data.append({"type": chunk.type, "data": chunk.data})
        elif chunk.type == "tool-result":
            results.append(
                {"toolName": chunk.payload["toolName"], "result": chunk.payload["result"]}
            )
        elif chunk.type == "tripwire":
            tripwire = chunk.payload.get("reason")
    result = await stream.result()
    out["text"] = result.text
    out["streamed"] = "".join(streamed)
    out["calls"] = [
        {
            "prompt": prompt_summary(call.prompt),
            "tools": sorted(t["name"] for t in call.tools or ()),
        }
        for call in model.calls
    ]
    out["data"] = data
    out["toolResults"] = results
    out["tripwire"] = tripwire
    return out
