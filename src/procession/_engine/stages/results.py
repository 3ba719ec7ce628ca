"""Applying what message hooks return (D16, D26): one set of rules for every stage."""

from __future__ import annotations

from typing import Any

from procession._engine.runner import Hook
from procession._engine.state import RunState
from procession.errors import MessageError, ProcessorError
from procession.messages.message import Message
from procession.messages.message_list import MessageList

__all__ = ["apply_messages", "replace_messages"]


def apply_messages(
    state: RunState,
    hook: Hook,
    result: Any,
    scope: list[Message],
    source: str,
    *,
    input_stage: bool,
) -> None:
    """Apply a message hook's return value (D16).

    ``None`` or the same ``message_list``: no change (in-place edits count). A list replaces
    ``scope``: from the input stages even when empty; after the model ran, ``[]`` means no
    change. ``process_input`` may also return ``{"messages", "system_messages"}``.
    """
    message_list = state.message_list
    if result is None or result is message_list:
        return
    if isinstance(result, MessageList):
        raise ProcessorError(
            hook.processor_id,
            hook.name,
            "returned a MessageList other than the one it was given; "
            "edit the message_list argument instead",
        )
    if isinstance(result, list):
        if result or input_stage:
            replace_messages(state, hook, scope, result, source)
        return
    if hook.name == "process_input" and isinstance(result, dict):
        _apply_input_dict(state, hook, result, scope)
        return
    raise ProcessorError(
        hook.processor_id,
        hook.name,
        f"returned {type(result).__name__}; expected None, a list of messages or the "
        "message_list it was given",
    )


def _apply_input_dict(
    state: RunState, hook: Hook, result: dict[str, Any], scope: list[Message]
) -> None:
    unknown = set(result) - {"messages", "system_messages"}
    if unknown:
        raise ProcessorError(
            hook.processor_id, hook.name, f"returned unknown keys {sorted(unknown)}"
        )
    if "system_messages" in result:
        try:
            state.message_list.replace_all_system_messages(result["system_messages"])
        except MessageError as error:
            raise ProcessorError(hook.processor_id, hook.name, str(error)) from None
    if "messages" in result:
        replace_messages(state, hook, scope, result["messages"], "input")


def replace_messages(
    state: RunState, hook: Hook, scope: list[Message], value: Any, source: str
) -> None:
    """Replace ``scope`` with ``value`` (a replace set, D16); a bad set names the hook."""
    try:
        state.message_list.apply_replace_set(scope, value, source)  # type: ignore[arg-type]
    except MessageError as error:
        raise ProcessorError(hook.processor_id, hook.name, str(error)) from None
