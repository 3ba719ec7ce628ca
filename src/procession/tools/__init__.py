"""Tools the model may call: from typed functions or pydantic models."""

from procession.tools._build import ToolDescriptionWarning
from procession.tools._tool import Tool, ToolContext, ToolWriter, to_jsonable, tool, toolset
from procession.tools.sub_agents import agent_tool

__all__ = [
    "Tool",
    "ToolContext",
    "ToolDescriptionWarning",
    "ToolWriter",
    "agent_tool",
    "to_jsonable",
    "tool",
    "toolset",
]
