"""The agents the JavaScript clients talk to: scripted models, real processors, SQLite memory.

Imported by the app modules the tests serve (``app.py``, ``served.py``); the database path
comes from ``PROCESSION_TEST_SERVER_DB``. Nothing here is a test double of the server: the
agents are ordinary procession agents, as a user's module would define them.

``support`` (memory on SQLite) answers ``You said: <the user's text>`` in five-character
deltas, through these processors:

* ``no-passwords`` (input): blocks any input that mentions a password (a tripwire);
* ``stream-redactor`` (output): the built-in :class:`~procession.StreamRedactor`, so a card
  number in the answer is redacted while it streams, even split across deltas;
* ``polite`` (output): rejects an answer containing "rude" and asks for another attempt
  (``abort(..., retry=True)``); the model then apologises;
* ``progress`` (output): writes a stored ``data-progress`` chunk and a transient
  ``data-status`` chunk after every step.

``echo`` has no memory and no processors: a second agent, for listing and routing.
``weather`` (no memory) calls its ``get_weather`` tool, then answers from the result.
``refunds`` (no memory) calls ``refund``, a tool that needs approval: the run waits for the
caller's decision, then answers with what the tool returned or that it was declined.
``slow`` (memory) streams 100 deltas 20 ms apart, so a client can leave in the middle.
"""

from __future__ import annotations

import os
from typing import Any

from procession import Agent, Memory, StreamRedactor, tool
from procession.approvals import LocalApprovals
from procession.memory import SQLiteStorage
from procession.testing import FunctionModel, Reply, ScriptedModel, ToolCallScript
from tests.server_clients.shared import (
    APOLOGY,
    FEEDBACK,
    RUDE,
    SLOW_DELAY,
    SLOW_DELTAS,
    prompt_texts,
)


def deltas(text: str, size: int = 5) -> list[str]:
    """``text`` in ``size``-character deltas, as a model streams it."""
    return [text[i : i + size] for i in range(0, len(text), size)]


def answer(options: Any) -> Reply:
    """``support``'s model: echo the last user message, or the retry script for "rude"."""
    users = prompt_texts(options.prompt, "user")
    said = users[-1] if users else ""
    if "rude" in said:
        retried = any(FEEDBACK in s for s in prompt_texts(options.prompt, "system"))
        return Reply(text=deltas(APOLOGY if retried else RUDE))
    if "lone surrogate" in said:  # D34: a model writing one; the adapters make it U+FFFD
        return Reply(text=["caf\ud800", " ok"])
    return Reply(text=deltas(f"You said: {said}"))


class NoPasswords:
    """Blocks input that mentions a password."""

    id = "no-passwords"

    def process_input(self, *, messages: list[Any], abort: Any) -> None:
        if any("password" in m.text.lower() for m in messages):
            abort("Blocked: the message mentions a password")


class Polite:
    """Rejects a rude answer once, asking the model to try again."""

    id = "polite"

    def process_output_step(self, *, text: str, abort: Any) -> None:
        if "rude" in text:
            abort("Answer politely.", retry=True)


class Progress:
    """Reports progress after every step: one stored data chunk, one transient."""

    id = "progress"

    async def process_output_step(self, *, step_number: int, writer: Any) -> None:
        await writer.custom({"type": "data-progress", "data": {"step": step_number}})
        await writer.custom(
            {"type": "data-status", "data": {"state": "checked"}, "transient": True}
        )


def build_memory() -> Memory:
    """SQLite memory at ``$PROCESSION_TEST_SERVER_DB``."""
    return Memory(SQLiteStorage(os.environ["PROCESSION_TEST_SERVER_DB"]), last_messages=20)


memory = build_memory()

support = Agent(
    id="support",
    name="Support",
    instructions="You help customers.",
    model=FunctionModel(answer),
    memory=memory,
    input_processors=[NoPasswords()],
    output_processors=[StreamRedactor(), Polite(), Progress()],
    max_processor_retries=1,
)

echo = Agent(
    id="echo",
    instructions="You repeat what you are told.",
    model=FunctionModel(answer),
)

slow = Agent(
    id="slow",
    instructions="You take your time.",
    model=ScriptedModel([Reply(text=SLOW_DELTAS, delay=SLOW_DELAY)], repeat_last=True),
    memory=memory,
)


def forecast(options: Any) -> Reply:
    """``weather``'s model: call the tool first, answer once its result is in the prompt."""
    if any(message.get("role") == "tool" for message in options.prompt):
        return Reply(text=["It is ", "21°C in ", "Paris."])
    return Reply(tool_calls=[ToolCallScript("get_weather", {"city": "Paris"}, "call-1")])


@tool
def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return {"city": city, "celsius": 21}


weather = Agent(
    id="weather",
    instructions="You tell the weather.",
    model=FunctionModel(forecast),
    tools=[get_weather],
)


def refund_desk(options: Any) -> Reply:
    """``refunds``' model: ask for the refund, then report the tool's answer (a result, or
    the AI SDK's ``execution-denied`` output of a declined call)."""
    for message in options.prompt:
        if message.get("role") == "tool":
            output = message["content"][0]["output"]
            said = output.get("reason") or "declined" if "denied" in output["type"] else None
            return Reply(text=[f"Outcome: {said or output.get('value')}"])
    return Reply(tool_calls=[ToolCallScript("refund", {"amount": 9}, "refund-1")])


@tool(requires_approval=True)
def refund(amount: int) -> str:
    """Refund an amount to the customer.

    Args:
        amount: The amount, in euros.
    """
    return f"refunded {amount}"


refunds = Agent(
    id="refunds",
    instructions="You refund orders.",
    model=FunctionModel(refund_desk),
    tools=[refund],
    approvals=LocalApprovals(),
)
