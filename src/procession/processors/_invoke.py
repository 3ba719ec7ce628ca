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

__all__ = ["HOOK_ARGS", "BoundHook", "bind_hook"]

_COMMON = frozenset(
    ("abort", "retry_count", "state", "tracing_context", "request_context", "abort_signal")
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


def _inspect(
    function: Callable[..., Any], processor_id: str, hook: str
) -> tuple[tuple[str, ...] | None, bool]:
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


class BoundHook:
    """One processor's implementation of one hook, ready to call for this run."""

    __slots__ = ("function", "hook", "is_async", "processor", "processor_id", "wants")

    def __init__(self, processor: Any, hook: str) -> None:
        self.processor = processor
        self.processor_id: str = processor.id
        self.hook = hook
        self.function: Callable[..., Any] = getattr(processor, hook)
        self.wants, self.is_async = _inspect(self.function, self.processor_id, hook)

    def select(self, available: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments this hook declared, taken from ``available``."""
        wants = self.wants
        if wants is None:
            allowed = HOOK_ARGS[self.hook]
            return {name: value for name, value in available.items() if name in allowed}
        return {name: available[name] for name in wants}

    async def __call__(self, available: dict[str, Any]) -> Any:
        """Call the hook with the arguments it declared, awaiting it if needed."""
        result = self.function(**self.select(available))
        if self.is_async or inspect.isawaitable(result):
            return await result
        return result


def bind_hook(processor: Any, hook: str) -> BoundHook | None:
    """A :class:`BoundHook` when ``processor`` implements ``hook``, else ``None``."""
    if not callable(getattr(processor, hook, None)):
        return None
    return BoundHook(processor, hook)
