"""Run one oracle scenario against procession and print its trace in the oracle's format.

Usage::

    python tests/conformance/run_scenario.py tests/conformance/scenarios/01-chain-order.json

The scenario format is the oracle's (see ``tests/conformance/README.md``): a scripted model
(``ScriptedModel`` in repeat-last mode), tools that return or raise, processors built from the
declarative spec, and one or more requests on one agent, each in ``stream`` or ``generate``
mode. The trace has the oracle's keys (``requests[].chunks``, ``result``, ``messages``,
``systemMessages``, ``threw``, ``events``) so that it compares directly with a recorded one.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, create_model

from procession import Agent
from procession.context import RequestContext
from procession.models.base import ModelCallOptions, StreamResult
from procession.testing import ScriptedModel
from procession.tools._tool import Tool

from .spec_processors import TraceContext, build_processor
from .summarize import (
    IdNormalizer,
    chunk_summary,
    clean,
    compact_json,
    error_summary,
    message_summary,
    prompt_summary,
    usage_summary,
)

__all__ = ["load_scenario", "main", "run_scenario"]

_CALL_OPTIONS = {
    "maxSteps": "max_steps",
    "maxProcessorRetries": "max_processor_retries",
    "toolChoice": "tool_choice",
    "activeTools": "active_tools",
    "instructions": "instructions",
    "modelSettings": "model_settings",
    "providerOptions": "provider_options",
}


class TracedModel(ScriptedModel):
    """The oracle's mock model: scripted replies (the last repeats), each call recorded."""

    def __init__(self, responses: list[dict[str, Any]], trace: TraceContext) -> None:
        super().__init__(
            responses or [{"text": ["(empty script)"]}],
            provider="mock",
            model_id="mock-model",
            repeat_last=True,
        )
        self._responses = responses or [{"text": ["(empty script)"]}]
        self._trace = trace

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Record the call (prompt, tools, tool choice), then answer from the script."""
        index = len(self.calls)
        response = self._responses[min(index, len(self._responses) - 1)]
        ids = self._trace.ids
        tools = [t["name"] for t in options.tools or ()]
        event: dict[str, Any] = {
            "kind": "model",
            "method": "doStream",
            "call": index,
            "prompt": prompt_summary(options.prompt, ids),
            "tools": tools,
        }
        choice = clean(options.tool_choice, ids)
        if tools or (choice or {}).get("type") != "auto":  # the AI SDK drops a lone "auto"
            event["toolChoice"] = choice
        error = response.get("error")
        event["outcome"] = {"apiError": error.get("statusCode", 400)} if error else "ok"
        self._trace.push(event)
        return await super().do_stream(options)


def _tool(name: str, definition: dict[str, Any], trace: TraceContext) -> Tool:
    """A tool taking any JSON object, returning ``result`` (or raising ``throws``)."""
    args_model = create_model(f"{name}_args", __config__=ConfigDict(extra="allow"))

    async def execute(args: Any) -> Any:
        trace.push({"kind": "tool", "toolName": name, "args": clean(args.model_dump(), trace.ids)})
        if definition.get("throws"):
            raise RuntimeError(definition["throws"])
        return json.loads(json.dumps(definition.get("result", {"ok": True})))

    return Tool(
        name=name,
        description=definition.get("description", f"Test tool {name}"),
        input_schema={"type": "object", "additionalProperties": True},
        function=execute,
        args_model=args_model,
        pass_model=True,
        is_async=True,
    )


def _call_options(scenario: dict[str, Any], request: dict[str, Any]) -> dict[str, Any]:
    merged = {**scenario.get("callOptions", {}), **request.get("callOptions", {})}
    max_steps = request.get("maxSteps", scenario.get("maxSteps"))
    if max_steps is not None:
        merged["maxSteps"] = max_steps
    options: dict[str, Any] = {}
    for key, value in merged.items():
        if key not in _CALL_OPTIONS:
            raise ValueError(f"callOptions: {key!r} is not supported by the conformance runner")
        options[_CALL_OPTIONS[key]] = value
    return options


def _result_summary(result: Any, ids: IdNormalizer, *, generate: bool) -> dict[str, Any]:
    tripwire = result.tripwire
    out: dict[str, Any] = {
        "text": result.text,
        "finishReason": result.finish_reason,
    }
    if tripwire is not None:
        out["tripwire"] = {
            "reason": tripwire.get("reason"),
            "retry": tripwire.get("retry"),
            "metadata": clean(tripwire.get("metadata"), ids),
            "processorId": tripwire.get("processorId"),
        }
    if generate:
        out["steps"] = len(result.steps)
        out["stepSummaries"] = [
            {
                "text": step.text,
                "finishReason": step.finish_reason,
                "toolCalls": [
                    {"toolName": c.tool_name, "args": clean(c.args, ids)} for c in step.tool_calls
                ],
                "toolResults": [
                    {"toolName": r.tool_name, "result": clean(r.result, ids)}
                    for r in step.tool_results
                ],
                "usage": usage_summary(step.usage),
            }
            for step in result.steps
        ]
        out["usage"] = usage_summary(result.usage)
        out["totalUsage"] = usage_summary(result.usage)
    if result.error is not None:
        out["error"] = error_summary(result.error, ids)
    return out


async def _run_request(
    agent: Agent,
    scenario: dict[str, Any],
    index: int,
    request: dict[str, Any],
    trace: TraceContext,
) -> dict[str, Any]:
    ids = trace.ids
    trace.request_index = index
    trace.message_lists = []
    mode = request.get("mode", scenario.get("mode", "stream"))
    text = request.get("input", scenario.get("input", "Hello"))
    options = _call_options(scenario, request)
    context = RequestContext()
    context.set("oracle.request", index)
    options["request_context"] = context
    record: dict[str, Any] = {"request": index, "mode": mode}
    try:
        if mode == "generate":
            result = await agent.generate(text, **options)
            record["result"] = _result_summary(result, ids, generate=True)
        else:
            stream = agent.stream(text, **options)
            chunks = [chunk_summary(chunk, ids) async for chunk in stream]
            record["chunks"] = chunks
            result = await stream.result(raise_error=False)
            record["result"] = _result_summary(result, ids, generate=False)
        message_list = trace.message_lists[-1] if trace.message_lists else None
        if message_list is None and mode != "generate":
            message_list = stream.message_list
        if message_list is not None:
            record["messages"] = [message_summary(m, ids) for m in message_list.get.all.db()]
            if mode != "generate":
                record["systemMessages"] = [
                    message_summary(m, ids) for m in message_list.get_all_system_messages()
                ]
        else:
            record["messages"] = [message_summary(m, ids) for m in result.messages]
    except Exception as error:
        record["threw"] = error_summary(error, ids)
        if trace.message_lists:
            record["messagesFromHooks"] = [
                message_summary(m, ids) for m in trace.message_lists[-1].get.all.db()
            ]
    trace.returned.add(index)
    for _ in range(5):  # let any work left behind surface (it would be marked afterReturn)
        await asyncio.sleep(0)
    return record


async def run_scenario(scenario: dict[str, Any]) -> dict[str, Any]:
    """Run a scenario and return its trace (``seq`` renumbered per request)."""
    ids = IdNormalizer()
    trace = TraceContext(ids)
    model = TracedModel(scenario.get("model", {}).get("responses", []), trace)
    tools = {n: _tool(n, d, trace) for n, d in scenario.get("tools", {}).items()}
    lanes = {
        lane: [build_processor(p, trace) for p in scenario.get(f"{lane}Processors", [])]
        for lane in ("input", "output", "error")
    }
    agent = Agent(
        id="oracle-agent",
        name="oracle-agent",
        instructions=scenario.get("instructions", "You are a test agent."),
        model=model,
        tools=tools,
        input_processors=lanes["input"] or None,
        output_processors=lanes["output"] or None,
        error_processors=lanes["error"] or None,
        max_processor_retries=scenario.get("maxProcessorRetries"),
    )
    records = [
        await _run_request(agent, scenario, i, request, trace)
        for i, request in enumerate(scenario.get("requests", [{}]))
    ]
    for record in records:
        events = [e for e in trace.events if e["request"] == record["request"]]
        record["events"] = [
            {"seq": n, **{k: v for k, v in e.items() if k != "request"}}
            for n, e in enumerate(events)
        ]
    return {
        "scenario": scenario.get("name"),
        "description": scenario.get("description"),
        "runtime": "procession",
        "requests": records,
    }


def load_scenario(path: Path) -> dict[str, Any]:
    """Read a scenario file; its name defaults to the file's stem."""
    scenario: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    scenario.setdefault("name", path.stem)
    return scenario


def main(argv: list[str] | None = None) -> int:
    """Command line: print the trace of the scenario file given."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: run_scenario.py SCENARIO.json", file=sys.stderr)
        return 2
    trace = asyncio.run(run_scenario(load_scenario(Path(args[0]))))
    sys.stdout.write(compact_json(trace) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
