"""Build the Anthropic Messages API request body from procession call options.

Settings map to ``temperature``, ``max_tokens`` (default :data:`DEFAULT_MAX_TOKENS`, plus the
thinking budget when thinking is on), ``top_p``, ``top_k`` and ``stop_sequences``.
``provider_options["anthropic"]`` understands ``thinking`` (``{"type": "enabled",
"budgetTokens": n}``), ``cacheControl`` (``True`` or a ``cache_control`` dict: placed on the
last system block, the last tool and the last block of the last message),
``disableParallelToolUse``, and passes every other key through to the request body unchanged.
"""

from __future__ import annotations

from typing import Any

from procession.models.anthropic._prompt import convert_prompt
from procession.models.base import ModelCallOptions

__all__ = ["DEFAULT_MAX_TOKENS", "build_request", "citation_documents"]

DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` when the caller sets no ``max_output_tokens`` (Anthropic requires one)."""

_HANDLED_OPTIONS = frozenset(
    ("thinking", "cacheControl", "cache_control", "disableParallelToolUse", "sendReasoning")
)
_SAMPLING = ("temperature", "top_p", "top_k")


def _tool(tool: dict[str, Any]) -> dict[str, Any]:
    if tool.get("type") == "provider-defined":
        _, _, kind = str(tool["id"]).partition(".")
        return {"type": kind, "name": tool["name"], **(tool.get("args") or {})}
    out: dict[str, Any] = {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "input_schema": tool.get("inputSchema") or {"type": "object", "properties": {}},
    }
    options = (tool.get("providerOptions") or {}).get("anthropic") or {}
    if isinstance(options.get("cacheControl"), dict):
        out["cache_control"] = options["cacheControl"]
    return out


def _tool_choice(choice: dict[str, Any], disable_parallel: bool) -> dict[str, Any] | None:
    kind = choice.get("type", "auto")
    if kind == "none":
        out: dict[str, Any] = {"type": "none"}
    elif kind == "required":
        out = {"type": "any"}
    elif kind == "tool":
        out = {"type": "tool", "name": choice["toolName"]}
    else:
        out = {"type": "auto"}
    if disable_parallel and out["type"] != "none":
        out["disable_parallel_tool_use"] = True
    return out


def _thinking(option: Any) -> tuple[dict[str, Any] | None, int]:
    """The API's ``thinking`` object and the budget to add to ``max_tokens``."""
    if not isinstance(option, dict):
        return None, 0
    kind = option.get("type", "enabled")
    if kind != "enabled":
        return {"type": kind}, 0
    budget = int(option.get("budgetTokens") or option.get("budget_tokens") or 1024)
    return {"type": "enabled", "budget_tokens": budget}, budget


def _apply_cache_control(request: dict[str, Any], control: dict[str, Any]) -> None:
    if request.get("system"):
        request["system"][-1].setdefault("cache_control", control)
    if request.get("tools"):
        request["tools"][-1].setdefault("cache_control", control)
    messages = request.get("messages") or []
    if messages and messages[-1]["content"]:
        messages[-1]["content"][-1].setdefault("cache_control", control)


def _settings(request: dict[str, Any], options: ModelCallOptions, warnings: list[Any]) -> None:
    settings = options.settings
    thinking_on = "thinking" in request and request["thinking"]["type"] == "enabled"
    for name in _SAMPLING:
        if name not in settings:
            continue
        if thinking_on:
            warnings.append({"type": "unsupported-setting", "setting": name})
        else:
            request[name] = settings[name]  # type: ignore[literal-required]
    if settings.get("stop_sequences"):
        request["stop_sequences"] = list(settings["stop_sequences"])
    for name in ("presence_penalty", "frequency_penalty", "seed"):
        if name in settings:
            warnings.append({"type": "unsupported-setting", "setting": name})


def build_request(
    model_id: str, options: ModelCallOptions
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The Messages API request body (without ``stream``) and the call's warnings."""
    prompt = convert_prompt(options.prompt)
    warnings = list(prompt.warnings)
    provider = dict(options.provider_options.get("anthropic") or {})
    thinking, budget = _thinking(provider.get("thinking"))
    max_tokens = options.settings.get("max_output_tokens", DEFAULT_MAX_TOKENS) + budget
    request: dict[str, Any] = {"model": model_id, "max_tokens": max_tokens}
    request["messages"] = prompt.messages
    if prompt.system:
        request["system"] = prompt.system
    if thinking is not None:
        request["thinking"] = thinking
    _settings(request, options, warnings)
    if options.tools and options.tool_choice.get("type") != "none":
        request["tools"] = [_tool(dict(tool)) for tool in options.tools]
        choice = _tool_choice(options.tool_choice, bool(provider.get("disableParallelToolUse")))
        request["tool_choice"] = choice
    control = provider.get("cacheControl", provider.get("cache_control"))
    if control:
        _apply_cache_control(request, {"type": "ephemeral"} if control is True else dict(control))
    if options.response_format is not None:
        warnings.append({"type": "unsupported-setting", "setting": "responseFormat"})
    for key, value in provider.items():
        if key not in _HANDLED_OPTIONS:
            request.setdefault(key, value)
    return request, warnings


def citation_documents(request: dict[str, Any]) -> list[tuple[str, str]]:
    """``(title, media type)`` of every ``document`` block of the request, in order: document
    citations in the response name them by ``document_index``."""
    documents: list[tuple[str, str]] = []
    for message in request.get("messages") or ():
        for block in message.get("content") or ():
            if isinstance(block, dict) and block.get("type") == "document":
                source = block.get("source") or {}
                media_type = source.get("media_type") or (
                    "text/plain" if source.get("type") in ("text", "content") else "application/pdf"
                )
                title = block.get("title") or f"Document {len(documents)}"
                documents.append((str(title), str(media_type)))
    return documents
