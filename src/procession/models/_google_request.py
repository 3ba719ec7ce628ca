"""Procession call options to a Gemini ``generateContent`` REST request body (camelCase).

``contents`` carry ``text``, ``inlineData``, ``fileData``, ``functionCall`` and
``functionResponse`` parts; ``systemInstruction``, ``tools`` (``functionDeclarations`` with the
JSON schema as ``parametersJsonSchema``), ``toolConfig.functionCallingConfig`` and
``generationConfig`` (the sampling settings) complete the body. ``provider_options["google"]``
keys go into ``generationConfig`` (``thinkingConfig``, ``responseModalities``...) except the
top-level ``safetySettings`` and ``cachedContent``.
"""

from __future__ import annotations

import base64
from typing import Any

from procession.models.base import ModelCallOptions

__all__ = ["build_request"]

_SETTINGS = {
    "temperature": "temperature",
    "max_output_tokens": "maxOutputTokens",
    "top_p": "topP",
    "top_k": "topK",
    "stop_sequences": "stopSequences",
    "seed": "seed",
    "presence_penalty": "presencePenalty",
    "frequency_penalty": "frequencyPenalty",
}
_TOP_LEVEL = frozenset(("safetySettings", "cachedContent", "labels"))
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY", "tool": "ANY"}


def _file_part(part: dict[str, Any]) -> dict[str, Any]:
    media_type = str(part.get("mediaType") or "application/octet-stream")
    data = part.get("data")
    if isinstance(data, str) and data.startswith(("http://", "https://", "gs://")):
        return {"fileData": {"fileUri": data, "mimeType": media_type}}
    if isinstance(data, bytes | bytearray):
        data = base64.b64encode(data).decode()
    text = str(data or "")
    if text.startswith("data:"):
        text = text.split(",", 1)[1]
    return {"inlineData": {"mimeType": media_type, "data": text}}


def _response_of(output: dict[str, Any]) -> dict[str, Any]:
    value = output.get("value")
    if output.get("type", "").startswith("error"):
        return {"error": value}
    return value if isinstance(value, dict) else {"result": value}


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    parts: list[dict[str, Any]] = []
    for part in content:
        kind = part.get("type")
        if kind == "text" and part.get("text"):
            parts.append({"text": part["text"]})
        elif kind == "reasoning" and part.get("text"):
            parts.append({"text": part["text"], "thought": True})
        elif kind == "file":
            parts.append(_file_part(part))
        elif kind == "tool-call":
            args = part.get("input", part.get("args")) or {}
            parts.append({"functionCall": {"name": part["toolName"], "args": args}})
        elif kind == "tool-result":
            response = _response_of(part.get("output") or {})
            parts.append({"functionResponse": {"name": part["toolName"], "response": response}})
    return parts


def _contents(options: ModelCallOptions) -> tuple[list[dict[str, Any]], list[str]]:
    contents: list[dict[str, Any]] = []
    system: list[str] = []
    for message in options.prompt:
        role = message.get("role")
        if role == "system":
            system.append(str(message.get("content")))
            continue
        gemini_role = "model" if role == "assistant" else "user"
        parts = _parts(message.get("content") or [])
        if not parts:
            continue
        if contents and contents[-1]["role"] == gemini_role:
            contents[-1]["parts"].extend(parts)
        else:
            contents.append({"role": gemini_role, "parts": parts})
    return contents, system


def _tools(options: ModelCallOptions) -> dict[str, Any]:
    if not options.tools:
        return {}
    declarations = [
        {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parametersJsonSchema": tool.get("inputSchema") or {"type": "object"},
        }
        for tool in options.tools
    ]
    choice = options.tool_choice
    calling: dict[str, Any] = {"mode": _MODES.get(choice.get("type", "auto"), "AUTO")}
    if choice.get("type") == "tool":
        calling["allowedFunctionNames"] = [choice["toolName"]]
    return {
        "tools": [{"functionDeclarations": declarations}],
        "toolConfig": {"functionCallingConfig": calling},
    }


def build_request(options: ModelCallOptions) -> dict[str, Any]:
    """The ``generateContent`` request body."""
    contents, system = _contents(options)
    body: dict[str, Any] = {"contents": contents}
    if system:
        body["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    body.update(_tools(options))
    config: dict[str, Any] = {}
    for name, wire in _SETTINGS.items():
        if name in options.settings:
            config[wire] = options.settings[name]  # type: ignore[literal-required]
    response_format = options.response_format
    if response_format is not None and response_format.get("type") == "json":
        config["responseMimeType"] = "application/json"
        if "schema" in response_format:
            config["responseJsonSchema"] = response_format["schema"]
    for key, value in (options.provider_options.get("google") or {}).items():
        (body if key in _TOP_LEVEL else config)[key] = value
    if config:
        body["generationConfig"] = config
    return body
