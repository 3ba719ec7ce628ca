"""Partial echoes: a card the run read in a tool result, repeated by the model with a group
dropped, split by words or over two fields, or in two-digit groups, shows no more than its
first six and last four digits (PCI DSS display rule) on any channel, under any chunking; the
run's state keeps salted fingerprints only (JSON-serialisable, no digit of the card)."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import Agent, PIIDetector, RegexFilter, StreamRedactor, tool
from procession.guardrails._redaction.echo import EchoMemory, EchoPattern
from procession.testing import Reply, ScriptedModel, ToolCallScript

CARDS = ("4539148803436467", "5500005555555559", "371449635398431", "6011000990139424")


def groups(card: str, size: int = 4) -> list[str]:
    return [card[i : i + size] for i in range(0, len(card), size)]


def echoes(card: str) -> list[str]:
    """Ways a model repeats a card it read, none of them a whole card."""
    g = groups(card)
    two = " ".join(groups(card, 2))
    return [
        f"located at {' '.join(g[:-1])} on the file.",  # the last group dropped
        f"card {g[0]} {' '.join(g[2:])} was refunded",  # a middle group dropped
        f"starts with {g[0]} {g[1]}, then {g[2]} and ends {g[-1]}",  # split by words
        json.dumps({"first": f"{g[0]} {g[1]}", "second": " ".join(g[2:])}),  # two fields
        f"digits {two} ok",  # two-digit groups
        f"{card[:8]} and later {card[8:]}",  # halves
    ]


def shows_seven(card: str, text: str) -> bool:
    """Whether ``text``'s digits, joined across everything between them, hold seven
    consecutive digits of ``card`` (more than 6 + 4 cannot show without that)."""
    digits = re.sub(r"[^0-9]", "", text)
    return any(card[i : i + 7] in digits for i in range(len(card) - 6))


def pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(text)}), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


async def echo_run(processor: Any, card: str, answer: str, cuts: list[int]) -> tuple[str, str]:
    @tool
    def lookup(order: str) -> dict[str, str]:
        """Look an order up."""
        return {"order": order, "note": f"refunded to card {card} on Nov 28"}

    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup", {"order": "A-1"}, "c1")]),
            Reply(text=pieces(answer, cuts)),
        ]
    )
    agent = Agent(id="a", model=model, tools=[lookup], output_processors=[processor])
    stream = agent.stream("where is my order A-1?")
    client = "".join([c.payload.get("text", "") async for c in stream if c.type == "text-delta"])
    result = await stream.result()
    return client, result.text


PROCESSORS = (
    lambda: StreamRedactor(["card"]),
    lambda: PIIDetector(detection_types=["credit-card"]),
    lambda: RegexFilter(presets=["pii"], strategy="redact"),
)


@settings(max_examples=60, deadline=None)
@given(
    card=st.sampled_from(CARDS),
    which=st.integers(0, 5),
    make=st.sampled_from(PROCESSORS),
    cuts=st.lists(st.integers(1, 80), max_size=6),
)
def test_a_seen_card_shows_no_more_than_six_and_four(
    card: str, which: int, make: Any, cuts: list[int]
) -> None:
    answer = echoes(card)[which]
    client, text = asyncio.run(echo_run(make(), card, answer, cuts))
    for out in (client, text):
        assert not shows_seven(card, out), (answer, out)


def test_the_display_rule_passes() -> None:
    memory = EchoMemory()
    memory.remember("4539 1488 0343 6467")
    pattern = EchoPattern(memory)
    assert list(pattern.finditer("card 453914 ending 6467")) == []  # first six, last four
    assert list(pattern.finditer("ending in 6467")) == []
    assert [m.group() for m in pattern.finditer("it is 4539 1488 0343")] == ["4539 1488 0343"]


def test_numbers_of_unseen_cards_stay() -> None:
    memory = EchoMemory()
    memory.remember("4539148803436467")
    pattern = EchoPattern(memory)
    assert list(pattern.finditer("order 7777 2222 9999 shipped in 3 boxes")) == []


def test_the_memory_is_json_and_holds_no_digits() -> None:
    memory = EchoMemory()
    memory.remember("4539148803436467")
    state = json.loads(json.dumps(memory.to_state()))
    assert set(state) == {"salt", "fingerprints"}
    stored = json.dumps(state)
    # Eight-digit runs: a random hex salt or fingerprint holds one by chance about once in 10**8,
    # where a four-digit group turned up in about one run in fifty.
    for run in ("45391488", "14880343", "03436467"):
        assert run not in stored
    again = EchoMemory.from_state(state)
    assert again.is_fragment("14880343")
    assert not again.is_fragment("14880344")
    other = EchoMemory()
    other.remember("4539148803436467")
    assert other.to_state()["fingerprints"] != state["fingerprints"]  # salted per run


def test_a_bad_memory_is_named() -> None:
    with pytest.raises(ValueError, match="echo memory"):
        EchoMemory.from_state({"salt": 3})
