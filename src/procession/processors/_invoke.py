"""Calling hooks: which keyword arguments each hook may declare, resolved once per run (D19).

A hook declares only the keywords it needs (``async def process_output_stream(self, *, part,
**_)``) and receives exactly those; a hook that names none (only ``**kwargs``) receives every
argument of its hook. Each processor's hook is inspected once per function object, so the
per-call cost is building (or reusing) one dict.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from procession.errors import ConfigurationError

__all__ = ["HOOK_ARGS", "declared_arguments"]

_COMMON = frozenset(
    (
        "abort",
        "retry_count",
        "state",
        "tracing_context",
        "request_context",
        "abort_signal",
        "processor_index",
    )
)
_MESSAGES = frozenset(("messages", "message_list"))
_STEP = frozenset(("step_number", "steps", "writer"))

HOOK_ARGS: dict[str, frozenset[str]] = {
    "process_input": _COMMON | _MESSAGES | {"system_messages"},
    "process_input_step": _COMMON
    | _MESSAGES
    | _STEP
    | {
        "system_messages",
        "model",
        "tool_choice",
        "active_tools",
        "tools",
        "provider_options",
        "model_settings",
        "structured_output",
    },
    "process_llm_request": _COMMON | _STEP | {"prompt", "model", "message_list"},
    "process_llm_response": _COMMON
    | _STEP
    | {"chunks", "model", "message_list", "from_cache", "warnings", "request", "raw_response"},
    "process_api_error": _COMMON | _MESSAGES | _STEP | {"error"},
    "process_output_stream": _COMMON | {"part", "stream_parts", "message_list", "writer"},
    "process_output_step": _COMMON
    | _MESSAGES
    | _STEP
    | {
        "finish_reason",
        "provider_metadata",
        "tool_calls",
        "text",
        "usage",
        "system_messages",
    },
    "process_tool_result": _COMMON
    | _MESSAGES
    | _STEP
    | {"tool_name", "tool_call_id", "args", "result", "provider_executed", "system_messages"},
    "process_output_result": _COMMON | _MESSAGES | {"result", "writer"},
}

_signatures: dict[Any, tuple[tuple[str, ...] | None, bool]] = {}


def declared_arguments(
    function: Callable[..., Any], processor_id: str, hook: str
) -> tuple[tuple[str, ...] | None, bool]:
    """The keyword arguments a hook declared (``None``: all of them) and whether it is async.

    Inspected once per function object; a name the hook cannot receive, or a positional-only
    parameter, is a ``ConfigurationError``.
    """
    key = getattr(function, "__func__", function)
    cached = _signatures.get(key)
    if cached is not None:
        return cached
    allowed = HOOK_ARGS[hook]
    wants: list[str] = []
    takes_all = False
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_all = True
        elif parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        elif parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise ConfigurationError(
                f"processor {processor_id!r}: {hook} takes keyword arguments only; "
                f"make {parameter.name!r} keyword-only"
            )
        elif parameter.name not in allowed:
            raise ConfigurationError(
                f"processor {processor_id!r}: {hook} declares {parameter.name!r}, which that hook "
                f"does not receive (it receives: {', '.join(sorted(allowed))})"
            )
        else:
            wants.append(parameter.name)
    is_async = inspect.iscoroutinefunction(function)
    # A hook gets exactly the keywords it names; ``**_`` then absorbs nothing. Only a hook that
    # names none (``**kwargs`` alone) gets them all: passing unused arguments costs a dict per
    # call, and ``stream_parts`` would keep every chunk of the run alive.
    result = (None if takes_all and not wants else tuple(wants), is_async)
    _signatures[key] = result
    return result
