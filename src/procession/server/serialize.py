"""procession objects in the JSON shapes Mastra's server answers with.

Agents as Mastra's ``serializedAgentSchema`` (what ``client.listAgents()`` and
``agent.details()`` return), threads as its ``threadSchema``, a finished run as the
``FullOutput`` object of ``agent.generate()`` (``text``, ``usage``, ``steps``,
``finishReason``, ``toolCalls`` as chunks, ``response.messages``, ``tripwire``, ...).
"""

from __future__ import annotations

import inspect
import json
from typing import Any

from procession.agent import Agent
from procession.chunks import Chunk
from procession.context import RequestContext
from procession.memory.storage import Thread
from procession.messages.codec import encode_datetime, message_to_dict
from procession.messages.formats import to_model_messages
from procession.models.default import default_model
from procession.results import AgentResult, StepResult

__all__ = ["serialize_agent", "serialize_result", "serialize_thread"]


def _superjson(schema: dict[str, Any]) -> str:
    """A schema as Mastra sends it: superjson text, ``{"json": schema}``."""
    return json.dumps({"json": schema}, separators=(",", ":"))


def _model(agent: Agent) -> tuple[str | None, str | None]:
    model = agent.model
    if model is None:
        model = default_model()
    if isinstance(model, str):
        provider, _, name = model.partition("/")
        return (provider, name) if name else (None, model)
    return getattr(model, "provider", None), getattr(model, "model_id", None)


def _processors(spec: Any) -> list[dict[str, str]]:
    if not isinstance(spec, list | tuple):
        return []  # a factory of the request context: known only per call
    out = []
    for processor in spec:
        pid = str(getattr(processor, "id", type(processor).__name__))
        out.append({"id": pid, "name": str(getattr(processor, "name", None) or pid)})
    return out


async def _instructions(agent: Agent) -> Any:
    value = agent.instructions
    if callable(value):
        value = value(RequestContext())
        if inspect.isawaitable(value):
            value = await value
    if isinstance(value, str) or value is None:
        return value
    return [str(item) for item in value]


async def serialize_agent(agent: Agent, *, expose_instructions: bool) -> dict[str, Any]:
    """An agent as Mastra's server lists it (``id`` included)."""
    provider, model_id = _model(agent)
    out: dict[str, Any] = {
        "id": agent.id,
        "name": agent.name,
        "tools": {
            name: {
                "id": name,
                "description": tool.description,
                "inputSchema": _superjson(tool.input_schema),
            }
            for name, tool in agent.tools.items()
        },
        "agents": {},
        "workflows": {},
        "skills": [],
        "workspaceTools": [],
        "browserTools": [],
        "hasBrowser": False,
        "inputProcessors": _processors(agent.input_processors),
        "outputProcessors": _processors(agent.output_processors),
        "supportsMemory": agent.memory is not None,
        "source": "code",
    }
    if agent.description is not None:
        out["description"] = agent.description
    if provider is not None:
        out["provider"] = provider
    if model_id is not None:
        out["modelId"] = model_id
    if expose_instructions:
        try:
            instructions = await _instructions(agent)
        except Exception:  # a user's instructions function failing is not the route's error
            instructions = None
        if instructions is not None:
            out["instructions"] = instructions
    return out


def serialize_thread(thread: Thread) -> dict[str, Any]:
    """A thread as Mastra's ``threadSchema``."""
    out: dict[str, Any] = {
        "id": thread.id,
        "resourceId": thread.resource_id,
        "createdAt": encode_datetime(thread.created_at),
        "updatedAt": encode_datetime(thread.updated_at),
        "metadata": thread.metadata,
    }
    if thread.title is not None:
        out["title"] = thread.title
    return out


def _call_chunk(run_id: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return Chunk(kind, payload, run_id).to_dict()


def _step(step: StepResult, run_id: str) -> dict[str, Any]:
    calls = [_call_chunk(run_id, "tool-call", c.to_dict()) for c in step.tool_calls]
    results = []
    for r in step.tool_results:
        payload: dict[str, Any] = {"toolCallId": r.tool_call_id, "toolName": r.tool_name}
        payload["args"] = r.args
        if r.is_error:
            payload["error"] = r.error
            results.append(_call_chunk(run_id, "tool-error", payload))
        else:
            payload["result"] = r.result
            results.append(_call_chunk(run_id, "tool-result", payload))
    response = {k: v for k, v in step.response.items() if k != "headers"}
    return {
        "stepNumber": step.step_number,
        "text": step.text,
        "reasoningText": step.reasoning or None,
        "toolCalls": calls,
        "toolResults": results,
        "sources": step.sources,
        "files": step.files,
        "finishReason": step.finish_reason,
        "usage": step.usage.to_dict(),
        "warnings": step.warnings,
        "response": response,
        "providerMetadata": step.provider_metadata,
    }


def serialize_result(result: AgentResult) -> dict[str, Any]:
    """A finished run as Mastra's ``generate()`` output."""
    steps = [_step(step, result.run_id) for step in result.steps]
    last = result.steps[-1] if result.steps else None
    response = {k: v for k, v in (last.response if last else {}).items() if k != "headers"}
    response["messages"] = to_model_messages(result.messages)
    return {
        "runId": result.run_id,
        "text": result.text,
        "object": result.object,
        "finishReason": result.finish_reason,
        "usage": result.usage.to_dict(),
        "totalUsage": result.usage.to_dict(),
        "steps": steps,
        "reasoning": [],
        "reasoningText": result.reasoning or None,
        "toolCalls": [call for step in steps for call in step["toolCalls"]],
        "toolResults": [res for step in steps for res in step["toolResults"]],
        "sources": [s for step in result.steps for s in step.sources],
        "files": [f for step in result.steps for f in step.files],
        "warnings": [w for step in result.steps for w in step.warnings],
        "providerMetadata": last.provider_metadata if last else None,
        "response": response,
        "messages": [message_to_dict(m) for m in result.messages],
        "tripwire": result.tripwire,
        "error": None,
    }
