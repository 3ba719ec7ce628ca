"""Procession call options to a Gemini ``generateContent`` REST request body (camelCase).

``contents`` carry ``text``, ``inlineData``, ``fileData``, ``functionCall`` and
``functionResponse`` parts; ``systemInstruction``, ``tools`` (``functionDeclarations`` with the
JSON schema as ``parametersJsonSchema``), ``toolConfig.functionCallingConfig`` and
``generationConfig`` (the sampling settings) complete the body. ``provider_options["google"]``
keys go into ``generationConfig`` (``thinkingConfig``, ``responseModalities``...) except the
top-level ``safetySettings``, ``cachedContent`` and ``labels``.

Tools Gemini ran itself (code execution, Gemini 3's server-side tools) go back in the model
turn as the parts they came as (``executableCode`` / ``codeExecutionResult``, ``toolCall`` /
``toolResponse``); those of other providers are left out.

Thought signatures go back where they came from: a prompt part whose ``providerOptions`` (or
``providerMetadata``) holds ``google.thoughtSignature`` sends it as the part's
``thoughtSignature``. Gemini 3 rejects a replayed function call without one; for such a call
(the first unsigned call of a model turn) the builder sends the placeholder Google documents
for replays, :data:`SKIP_SIGNATURE`, and warns.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from procession.models.base import ModelCallOptions
from procession.models.google._server_tools import server_tool_parts

__all__ = ["SKIP_SIGNATURE", "build_request", "is_gemini_3", "signature_of"]

SKIP_SIGNATURE = "skip_thought_signature_validator"
"""The ``thoughtSignature`` Google documents for replayed calls whose signature is lost."""

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
_METADATA_KEYS = ("google", "vertex", "googleVertex")
_GEMINI = re.compile(r"(^|/)gemini-", re.IGNORECASE)
_OLDER_GEMINI = re.compile(r"(^|/)gemini-(1|2)([.-]|$)|(^|/)gemini-pro(-vision)?$", re.IGNORECASE)


def is_gemini_3(model_id: str) -> bool:
    """Whether a model id is Gemini 3 or later (unknown Gemini ids and aliases count)."""
    return bool(_GEMINI.search(model_id)) and not _OLDER_GEMINI.search(model_id)


def signature_of(part: dict[str, Any]) -> str | None:
    """The ``thoughtSignature`` a prompt part carries in its provider options or metadata."""
    for field in ("providerOptions", "providerMetadata"):
        owners = part.get(field)
        if not isinstance(owners, dict):
            continue
        for key in _METADATA_KEYS:
            value = (owners.get(key) or {}).get("thoughtSignature")
            if value:
                return str(value)
    return None


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


def _google_meta(part: dict[str, Any]) -> dict[str, Any]:
    for field in ("providerOptions", "providerMetadata"):
        owners = part.get(field)
        if isinstance(owners, dict):
            for key in _METADATA_KEYS:
                if isinstance(owners.get(key), dict):
                    return dict(owners[key])
    return {}


class _Converter:
    """Prompt messages to ``contents``, tracking signatures and the calls that lack one."""

    def __init__(self, model_id: str, function_call_ids: bool) -> None:
        self.gemini_3 = is_gemini_3(model_id)
        self.ids = function_call_ids
        self.unsigned: list[str] = []
        self.server_calls: dict[str, dict[str, Any]] = {}  # provider-executed calls by id

    def parts(self, content: Any, *, model_turn: bool) -> list[dict[str, Any]]:
        if isinstance(content, str):
            return [{"text": content}]
        parts: list[dict[str, Any]] = []
        signed_call = False
        for part in content:
            converted = self._part(part, model_turn=model_turn, signed_call=signed_call)
            if converted is None:
                continue
            if "functionCall" in converted and "thoughtSignature" in converted:
                signed_call = True
            parts.append(converted)
        return parts

    def _part(
        self, part: dict[str, Any], *, model_turn: bool, signed_call: bool
    ) -> dict[str, Any] | None:
        kind = part.get("type")
        out: dict[str, Any] | None = None
        if model_turn and (
            (kind == "tool-call" and part.get("providerExecuted")) or kind == "tool-result"
        ):
            return server_tool_parts(part, _google_meta(part), self.server_calls)
        if kind == "text" and part.get("text"):
            out = {"text": part["text"]}
        elif kind == "reasoning" and part.get("text"):
            out = {"text": part["text"], "thought": True}
        elif kind == "file":
            out = _file_part(part)
        elif kind == "tool-call":
            out = self._call(part, model_turn=model_turn, signed_call=signed_call)
        elif kind == "tool-result":
            response: dict[str, Any] = {"name": part["toolName"]}
            if self.ids and part.get("toolCallId"):
                response["id"] = part["toolCallId"]
            response["response"] = _response_of(part.get("output") or {})
            out = {"functionResponse": response}
        if out is not None and model_turn and "thoughtSignature" not in out:
            signature = signature_of(part)
            if signature is not None:
                out["thoughtSignature"] = signature
        return out

    def _call(self, part: dict[str, Any], *, model_turn: bool, signed_call: bool) -> dict[str, Any]:
        call: dict[str, Any] = {"name": part["toolName"]}
        if self.ids and part.get("toolCallId"):
            call["id"] = part["toolCallId"]
        call["args"] = part.get("input", part.get("args")) or {}
        out: dict[str, Any] = {"functionCall": call}
        signature = signature_of(part)
        if signature is not None:
            out["thoughtSignature"] = signature
        elif model_turn and self.gemini_3 and not signed_call:
            # Gemini 3 signs only the first call of a parallel batch; a later unsigned one is fine.
            out["thoughtSignature"] = SKIP_SIGNATURE
            self.unsigned.append(str(part["toolName"]))
        return out

    def warnings(self) -> list[dict[str, Any]]:
        if not self.unsigned:
            return []
        names = ", ".join(sorted(set(self.unsigned)))
        message = (
            f"{len(self.unsigned)} replayed function call(s) ({names}) had no thoughtSignature; "
            f"sent Google's placeholder {SKIP_SIGNATURE!r} so Gemini 3 accepts the request. "
            "Keep providerMetadata.google.thoughtSignature on stored tool-call parts."
        )
        return [{"type": "other", "message": message}]


def _contents(
    options: ModelCallOptions, converter: _Converter
) -> tuple[list[dict[str, Any]], list[str]]:
    contents: list[dict[str, Any]] = []
    system: list[str] = []
    for message in options.prompt:
        role = message.get("role")
        if role == "system":
            system.append(str(message.get("content")))
            continue
        gemini_role = "model" if role == "assistant" else "user"
        parts = converter.parts(message.get("content") or [], model_turn=gemini_role == "model")
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


def build_request(
    model_id: str, options: ModelCallOptions, *, function_call_ids: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The ``generateContent`` request body and the call's warnings.

    ``function_call_ids`` sends tool-call ids on ``functionCall`` / ``functionResponse``
    parts (the Gemini API takes them; Vertex AI does not).
    """
    converter = _Converter(model_id, function_call_ids)
    contents, system = _contents(options, converter)
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
    return body, converter.warnings()
