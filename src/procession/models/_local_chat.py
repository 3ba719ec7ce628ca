"""The pure-Python half of the embedded local model: prompt rendering and output planning.

Nothing here imports ``llama_cpp``. :func:`to_chat_messages` turns a provider prompt into the
``{"role", "content"}`` string messages a chat template renders (tool calls and tool results
become plain text a small model can read); :func:`plan_output` decides what one call must
produce (free text, a grammar-constrained tool call, or grammar-constrained JSON); and
:class:`StopScanner` holds back streamed text that may be the start of a stop sequence.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from procession.errors import APICallError
from procession.messages.formats import Prompt
from procession.models.base import ModelCallOptions, ToolDefinition, normalize_tool_choice

__all__ = [
    "ChatMessage",
    "OutputPlan",
    "StopScanner",
    "parse_tool_call",
    "plan_output",
    "render_tool_output",
    "to_chat_messages",
]

ChatMessage = dict[str, str]
"""One chat-template message: ``{"role": "system" | "user" | "assistant", "content": str}``."""


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_tool_output(output: object) -> str:
    """A tool result's ``output`` (``{"type": "json" | "text" | "error-text" | ...}``) as text."""
    if not isinstance(output, dict):
        return _json(output)
    kind = output.get("type")
    value = output.get("value")
    if kind == "text":
        return str(value)
    if kind == "json":
        return _json(value)
    if kind == "error-text":
        return f"Error: {value}"
    if kind == "error-json":
        return f"Error: {_json(value)}"
    if kind == "content" and isinstance(value, list):
        texts = [str(p.get("text", "")) for p in value if isinstance(p, dict)]
        return "\n".join(t for t in texts if t)
    return _json(output)


def _part_text(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind == "text":
        return str(part.get("text", ""))
    if kind == "tool-call":
        # Left out: a small model shown "[called tool ...]" in its own turns copies the
        # pattern into answers; the tool's result (a user turn) carries what it needs.
        return ""
    if kind == "tool-result":
        return f"[tool {part.get('toolName')} returned: {render_tool_output(part.get('output'))}]"
    if kind == "file":
        return f"[attached file of type {part.get('mediaType', 'unknown')}]"
    return ""  # reasoning and unknown parts are not shown to the model


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (_part_text(p) for p in content if isinstance(p, dict))
    return "\n".join(t for t in texts if t)


def _tool_results_text(content: object) -> str:
    if not isinstance(content, list):
        return _content_text(content)
    lines = [
        f"Result of tool {p.get('toolName')}: {render_tool_output(p.get('output'))}"
        for p in content
        if isinstance(p, dict) and p.get("type") == "tool-result"
    ]
    return "\n".join(lines)


def to_chat_messages(prompt: Prompt, instructions: list[str] | None = None) -> list[ChatMessage]:
    """Render a provider prompt as chat-template messages.

    All system messages merge into one leading system message, as small models expect one.
    Tool results (role ``tool``) become user turns reading ``Result of tool NAME: ...``;
    consecutive turns of one role merge. ``instructions`` (what to produce) end the last user
    turn, where a small model heeds them best.
    """
    system: list[str] = []
    turns: list[ChatMessage] = []
    for message in prompt:
        role = message.get("role")
        if role == "system":
            text = _content_text(message.get("content"))
            if text:
                system.append(text)
            continue
        if role == "tool":
            role, text = "user", _tool_results_text(message.get("content"))
        elif role in ("user", "assistant"):
            text = _content_text(message.get("content"))
        else:
            raise APICallError(
                f"local model: prompt message with unknown role {role!r}", is_retryable=False
            )
        if not text:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + text
        else:
            turns.append({"role": str(role), "content": text})
    if instructions:
        text = "\n\n".join(instructions)
        if turns and turns[-1]["role"] == "user":
            turns[-1]["content"] += "\n\n" + text
        else:
            turns.append({"role": "user", "content": text})
    if system:
        turns.insert(0, {"role": "system", "content": "\n\n".join(system)})
    return turns


@dataclass(slots=True, kw_only=True)
class OutputPlan:
    """What one call must produce.

    Attributes:
        mode: ``"text"`` (free text), ``"tool"`` (the output is one tool's JSON arguments),
            ``"tools"`` (the output is ``{"name", "arguments"}`` choosing among several tools)
            or ``"json"`` (structured output, streamed as text).
        schema: The JSON schema the grammar enforces (``None``: free text; ``{}``: any JSON).
        tools: The tools the output may call.
        instructions: Extra system text telling the model what to produce.
        warnings: Call warnings for the ``StreamResult``.
    """

    mode: Literal["text", "tool", "tools", "json"]
    schema: dict[str, Any] | None = None
    tools: list[ToolDefinition] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)


def _object_schema(tool: ToolDefinition) -> dict[str, Any]:
    schema = dict(tool.get("inputSchema") or {})
    schema.pop("$schema", None)
    if not schema:
        schema = {"type": "object"}
    return schema


def _describe(tool: ToolDefinition) -> str:
    text = f"- {tool['name']}"
    if tool.get("description"):
        text += f": {tool['description']}"
    return text + f"\n  arguments (JSON schema): {_json(_object_schema(tool))}"


def plan_output(options: ModelCallOptions) -> OutputPlan:
    """Decide from ``tool_choice``, ``tools`` and ``response_format`` what a call produces.

    A forced tool (``{"type": "tool", "toolName": ...}``, or ``"required"``) is a grammar-
    constrained tool call; a JSON ``response_format`` is grammar-constrained JSON; otherwise
    free text (the small model does not call tools on its own, so offered tools with
    ``"auto"`` produce a warning).
    """
    choice = normalize_tool_choice(options.tool_choice)
    tools = list(options.tools)
    kind = choice["type"]
    if kind == "tool":
        tool = next((t for t in tools if t["name"] == choice["toolName"]), None)
        if tool is None:
            raise APICallError(
                f"local model: tool_choice names {choice['toolName']!r}, which is not among "
                f"the offered tools {[t['name'] for t in tools]}",
                is_retryable=False,
            )
        tools = [tool]
    if kind in ("tool", "required"):
        if not tools:
            raise APICallError(
                "local model: tool_choice 'required' but no tools were offered",
                is_retryable=False,
            )
        if len(tools) == 1:
            tool = tools[0]
            return OutputPlan(
                mode="tool",
                schema=_object_schema(tool),
                tools=tools,
                instructions=[
                    f"Write the JSON arguments of the tool `{tool['name']}` for this request.\n"
                    + _describe(tool)
                ],
            )
        variants = [
            {
                "type": "object",
                "properties": {"name": {"const": t["name"]}, "arguments": _object_schema(t)},
                "required": ["name", "arguments"],
            }
            for t in tools
        ]
        return OutputPlan(
            mode="tools",
            schema={"anyOf": variants},
            tools=tools,
            instructions=[
                "Choose the tool for this request and write JSON of the form "
                '{"name": TOOL_NAME, "arguments": {...}}.\n' + "\n".join(map(_describe, tools))
            ],
        )
    warnings: list[dict[str, Any]] = []
    if tools and kind == "auto":
        warnings.append(
            {
                "type": "other",
                "message": "local model: tools are only called when tool_choice forces one "
                "('required' or a tool name); this call answers in text",
            }
        )
    fmt = options.response_format
    if fmt is not None and fmt.get("type") == "json":
        schema = fmt.get("schema")
        text = "Reply with only JSON."
        if schema:
            text = f"Reply with only JSON matching this schema: {_json(schema)}"
        if fmt.get("description"):
            text += f"\n{fmt['description']}"
        return OutputPlan(mode="json", schema=dict(schema or {}), instructions=[text])
    return OutputPlan(mode="text", warnings=warnings)


def parse_tool_call(plan: OutputPlan, text: str) -> tuple[str, dict[str, Any]]:
    """The tool name and arguments in grammar-constrained output; ``ValueError`` if malformed."""
    value = json.loads(text)
    if plan.mode == "tools":
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            raise ValueError(f"expected {{'name', 'arguments'}}, got {text!r}")
        name, args = value["name"], value.get("arguments")
        if name not in {t["name"] for t in plan.tools}:
            raise ValueError(f"the model named a tool that was not offered: {name!r}")
    else:
        name, args = plan.tools[0]["name"], value
    if not isinstance(args, dict):
        raise ValueError(f"tool arguments must be a JSON object, got {text!r}")
    return name, args


class StopScanner:
    """Cuts streamed text at the first stop sequence.

    :meth:`feed` returns the text that is safe to emit and whether a stop sequence was hit;
    text that might be the start of a stop sequence is held back until it is decided.
    """

    __slots__ = ("_buffer", "_stops")

    def __init__(self, stops: list[str]) -> None:
        self._stops = [s for s in stops if s]
        self._buffer = ""

    def feed(self, text: str) -> tuple[str, bool]:
        """Add streamed text; return ``(text to emit, stopped)``."""
        if not self._stops:
            return text, False
        buffer = self._buffer + text
        hits = [i for i in (buffer.find(s) for s in self._stops) if i >= 0]
        if hits:
            self._buffer = ""
            return buffer[: min(hits)], True
        hold = 0
        for stop in self._stops:
            for size in range(min(len(stop) - 1, len(buffer)), hold, -1):
                if buffer.endswith(stop[:size]):
                    hold = size
                    break
        self._buffer = buffer[len(buffer) - hold :]
        return buffer[: len(buffer) - hold], False

    def flush(self) -> str:
        """The held-back text, at the end of generation."""
        text, self._buffer = self._buffer, ""
        return text
