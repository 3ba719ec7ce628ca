"""Tools: a typed Python function or a pydantic model, with a JSON schema for the model.

:func:`tool` builds one from a function, :func:`toolset` normalises an agent's ``tools=``;
the value itself is :class:`Tool` (:mod:`procession.tools._types`). Pydantic is imported only
when a tool is built, so ``import procession`` stays fast.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import TypeAlias, overload

from procession.errors import ConfigurationError
from procession.tools._build import build_tool
from procession.tools._types import Tool, ToolContext, ToolFunction, ToolWriter, to_jsonable
from procession.tools.sub_agents import agent_tool, is_agent

__all__ = [
    "Tool",
    "ToolContext",
    "ToolWriter",
    "Tools",
    "to_jsonable",
    "tool",
    "toolset",
    "with_agents",
]


@overload
def tool(function: ToolFunction, /) -> Tool: ...
@overload
def tool(
    *, name: str | None = None, description: str | None = None, requires_approval: bool = False
) -> Callable[[ToolFunction], Tool]: ...
def tool(
    function: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> Tool | Callable[[ToolFunction], Tool]:
    """Make a tool from a typed function (sync or async).

    Parameters become the argument schema (validated with pydantic). The docstring's prose
    (summary and body) is the description, and the parameters it documents (Google, NumPy or
    Sphinx style) describe the schema's properties; a description given in the annotation
    (``Annotated[str, Field(description=...)]``) wins. A tool left without a description is
    reported with a :class:`ToolDescriptionWarning` and a log line. A single parameter
    annotated with a pydantic model makes that model the schema, and the function receives the
    validated instance. A parameter annotated :class:`ToolContext` receives the tool's context
    (its ``writer``, the request context...). ``requires_approval=True`` makes every call wait
    for a decision from the run's approval broker (``procession.approvals``).

    Example::

        @tool
        async def lookup_user(id: int) -> dict[str, str]:
            \"\"\"Look up a user.

            Args:
                id: The user's numeric id.
            \"\"\"
            return {"name": "Ada"}
    """
    flag: object = requires_approval
    if type(flag) is not bool:
        raise ConfigurationError(
            f"tool: requires_approval must be True or False, got {requires_approval!r}"
        )

    def make(f: ToolFunction) -> Tool:
        built = build_tool(f, name, description)
        built.requires_approval = requires_approval
        return built

    return make(function) if function is not None else make


Tools: TypeAlias = "Mapping[str, Tool | ToolFunction] | list[Tool | ToolFunction]"


def toolset(tools: object) -> dict[str, Tool]:
    """Normalise a list or mapping of tools (or plain functions) to ``{name: Tool}``."""
    if tools is None:
        return {}
    items: list[tuple[str | None, object]]
    if isinstance(tools, Mapping):
        items = list(tools.items())
    elif isinstance(tools, list | tuple):
        items = [(None, t) for t in tools]
    else:
        raise ConfigurationError(f"tools: expected a list or a mapping, got {tools!r}")
    out: dict[str, Tool] = {}
    for key, value in items:
        if isinstance(value, Tool):
            built = value
        elif is_agent(value):  # a sub-agent (procession.tools.sub_agents)
            built = agent_tool(value, name=key) if key else agent_tool(value)
        elif callable(value):
            built = build_tool(value, key, None)
        else:
            raise ConfigurationError(f"tools: {value!r} is neither a Tool, an Agent nor a function")
        name = key or built.name
        if name in out:
            raise ConfigurationError(f"tools: two tools are named {name!r}")
        out[name] = built if built.name == name else dataclasses.replace(built, name=name)
    return out


def with_agents(tools: object, agents: object) -> object:
    """``tools`` with Mastra's ``agents={"key": agent}`` folded in, each as the tool
    ``agent-<key>`` (Mastra's name): the ``agents=`` option of :class:`procession.Agent`."""
    if agents is None:
        return tools
    if not isinstance(agents, Mapping):
        raise ConfigurationError(f"agents: expected a mapping of name to Agent, got {agents!r}")
    merged = toolset(tools)
    for key, agent in agents.items():
        if not isinstance(key, str) or not key:
            raise ConfigurationError(f"agents: a key must be a non-empty string, got {key!r}")
        if not is_agent(agent):
            raise ConfigurationError(f"agents[{key!r}]: expected an Agent, got {agent!r}")
        name = f"agent-{key}"
        if name in merged:
            raise ConfigurationError(f"agents[{key!r}]: a tool is already named {name!r}")
        merged[name] = agent_tool(agent, name=name)
    return merged
