"""The bundled demo (replaced by the agent demo once the loop lands)."""

from __future__ import annotations

from procession.messages import Message, MessageList


def run_demo() -> int:
    """Build a small conversation and print its provider prompt."""
    messages = MessageList()
    messages.add_system("You help customers.")
    messages.add("Hello, who are you?")
    messages.add(Message.assistant("A support assistant."), "response")
    for entry in messages.get.all.prompt():
        print(entry)
    return 0
