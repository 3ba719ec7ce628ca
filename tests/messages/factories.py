"""Small builders shared by the message tests."""

from __future__ import annotations

import json
from typing import Any

from procession.messages import MessageList, message_to_dict


def core_call(call_id: str, tool: str = "search", args: Any = None) -> dict[str, Any]:
    """A core-form assistant message holding one tool call."""
    return {
        "role": "assistant",
        "content": [
            {
                "type": "tool-call",
                "toolCallId": call_id,
                "toolName": tool,
                "input": {} if args is None else args,
            }
        ],
    }


def core_result(call_id: str, value: Any, tool: str = "search") -> dict[str, Any]:
    """A core-form ``tool`` message answering ``call_id`` with a JSON ``value``."""
    return {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": call_id,
                "toolName": tool,
                "output": {"type": "json", "value": value},
            }
        ],
    }


def snapshot(message_list: MessageList) -> str:
    """A deep, comparable dump of everything a MessageList holds."""
    return json.dumps(
        {
            "messages": [
                [message_to_dict(m), message_list.get_source(m)] for m in message_list.get.all.db()
            ],
            "system": [s.to_dict() for s in message_list.get_system_messages()],
            "all_system": [s.to_dict() for s in message_list.get_all_system_messages()],
        },
        sort_keys=True,
    )
