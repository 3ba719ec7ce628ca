"""An agent as a tool: a supervisor delegates a task to a sub-agent (Mastra's ``agents``).

``Agent(tools=[researcher])`` (or Mastra's ``Agent(agents={"researcher": researcher})``)
offers the model a tool named ``agent-researcher`` (Mastra's spelling) whose one argument is
``prompt``; :func:`agent_tool` makes one with another name or
description. A call runs the sub-agent as a run of its own:

- its own processors apply inside it (its lanes, its memory);
- it keeps the parent's ``resource_id`` and request context, on a thread of its own derived
  from the parent's thread and the tool call id (``<parent thread>/<tool name>/<call id>``:
  deterministic, so a durable run replays onto the same thread, and under the parent's
  resource, so no other tenant reaches it);
- the parent's abort signal aborts it, and leaving the parent's stream cancels it (D32);
- each of its chunks reaches the parent's output processors as Mastra's nested
  ``tool-output`` chunk, ``{"output": <the sub-agent's chunk>, "toolCallId", "toolName"}``,
  except its ``data-*`` chunks, which become the parent's own (as Mastra forwards them, D9:
  only processors with ``process_data_parts`` see them);
- its answer is the tool's result, ``{"text": ...}`` (and ``"object"`` with structured
  output);
- a tripwire of its processors is a tool error the parent's model sees (it may try another
  way), unless the processor asked to stop the parent too with
  ``abort(reason, metadata={"escalate": True})``: the parent then ends with that tripwire.
  An error or an abort of the sub-run is a tool error.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from procession.context import RequestContext
from procession.errors import ConfigurationError, ToolError, TripWire
from procession.tools._types import Tool, ToolContext

if TYPE_CHECKING:
    from procession.agent import Agent

__all__ = ["agent_tool", "is_agent", "sub_thread_id"]

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prompt": {
            "type": "string",
            "description": "The task for the agent, with everything it needs to know.",
        }
    },
    "required": ["prompt"],
    "additionalProperties": False,
}


def is_agent(value: object) -> TypeGuard[Agent]:
    """Whether ``value`` is a :class:`procession.Agent`. An Agent exists only once its module
    is loaded, so the module is looked up, not imported (the engine imports this module)."""
    module = sys.modules.get("procession.agent")
    return module is not None and isinstance(value, module.Agent)


def agent_tool(agent: Agent, *, name: str | None = None, description: str | None = None) -> Tool:
    """A tool that runs ``agent`` as a sub-agent (see the module's description).

    Args:
        agent: The sub-agent.
        name: The tool's name; default ``agent-<agent id>``.
        description: What the model reads; default the agent's ``description``, else its
            name.

    Raises:
        ConfigurationError: ``agent`` is not an Agent, or ``name`` is not a non-empty string.
    """
    if not is_agent(agent):
        raise ConfigurationError(f"agent_tool: expected an Agent, got {agent!r}")
    if name is not None and (not isinstance(name, str) or not name):
        raise ConfigurationError(f"agent_tool name: expected a non-empty string, got {name!r}")
    if description is not None and not isinstance(description, str):
        raise ConfigurationError(f"agent_tool description: expected a string, got {description!r}")
    tool_name = name or f"agent-{agent.id}"
    text = description or agent.description or f"Ask the agent {agent.name!r} to do a task."

    async def run(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        return await _run_sub_agent(agent, args, context)

    return Tool(
        name=tool_name,
        description=text,
        input_schema=dict(_SCHEMA),
        function=run,
        pass_model=True,
        context_parameter="context",
        is_async=True,
    )


def sub_thread_id(context: ToolContext) -> str:
    """The sub-run's thread: the parent's thread (or run, without one), the tool's name and
    the call's id."""
    parent = context.request_context.thread_id or context.run_id
    return f"{parent}/{context.tool_name}/{context.tool_call_id}"


async def _run_sub_agent(
    agent: Agent, args: Mapping[str, Any], context: ToolContext
) -> dict[str, Any]:
    prompt = args.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ToolError(f"tool {context.tool_name!r}: 'prompt' must be a non-empty string")
    extra = sorted(set(args) - {"prompt"})
    if extra:
        raise ToolError(f"tool {context.tool_name!r}: unknown arguments {extra}")
    request_context = RequestContext(context.request_context.to_dict())
    request_context.thread_id = sub_thread_id(context)
    stream = agent.stream(
        prompt,
        request_context=request_context,
        abort_signal=context.abort_signal,
    )
    write, custom = context.writer.write, context.writer.custom
    async with stream:
        async for chunk in stream:
            if chunk.type.startswith("data-"):  # the parent's data chunk, as Mastra does
                await custom(chunk.copy())
            else:
                await write(chunk.to_dict())
    result = await stream.result(raise_error=False)
    return _outcome(agent, result)


def _outcome(agent: Agent, result: Any) -> dict[str, Any]:
    """The sub-run's answer, or the tool error (or parent tripwire) its ending calls for."""
    if result.error is not None:
        raise ToolError(f"sub-agent {agent.id!r} failed: {result.error}")
    tripwire = result.tripwire
    if tripwire is not None:
        metadata = tripwire.get("metadata")
        reason = tripwire.get("reason") or "no reason given"
        processor = tripwire.get("processorId")
        if isinstance(metadata, Mapping) and metadata.get("escalate") is True:
            raise TripWire(reason, metadata=metadata, processor_id=processor)
        raise ToolError(f"sub-agent {agent.id!r} was stopped by processor {processor!r}: {reason}")
    if result.finish_reason == "abort":
        raise ToolError(f"sub-agent {agent.id!r} was aborted")
    out: dict[str, Any] = {"text": result.text}
    if result.object is not None:
        out["object"] = result.object
    return out
