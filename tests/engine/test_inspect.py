"""inspect=True: transient notes of what each processor did, for a viewer such as Studio."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

from procession import Chunk
from procession.testing import Reply, ScriptedModel

from .helpers import agent, collect


class Hide:
    id = "hide"

    def process_output_stream(self, *, part: Chunk, **_: Any) -> Chunk | None:
        if part.type == "text-delta" and part.payload["text"] == "secret":
            return part.copy(payload={**part.payload, "text": "***"})
        if part.type == "text-delta" and part.payload["text"] == "noise":
            return None
        return part


class Upper:
    id = "upper"

    def process_input(self, *, messages: list[Any], **_: Any) -> None:
        return None


@pytest.mark.asyncio
@pytest.mark.parametrize("release", ["live", "step"])
async def test_notes_say_what_each_processor_did(release: Literal["live", "step"]) -> None:
    model = ScriptedModel([Reply(text=["a ", "secret", "noise", " b"])])
    bot = agent(model, input_processors=[Upper()], output_processors=[Hide()])
    chunks = await collect(bot.stream("x", inspect=True, release=release))
    notes = [c for c in chunks if c.type == "data-procession-hook"]
    assert all(n.transient for n in notes)
    stream_notes = [n.data for n in notes if n.data["hook"] == "process_output_stream"]
    assert [(n["action"], n["before"], n["after"]) for n in stream_notes] == [
        ("replaced", "secret", "***"),
        ("dropped", "noise", None),
    ]
    (input_note,) = [n.data for n in notes if n.data["hook"] == "process_input"]
    assert (input_note["processorId"], input_note["action"]) == ("upper", "kept")
    assert input_note["durationMs"] >= 0
    for note in notes:
        json.dumps(note.to_dict())  # D33
    texts = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert texts == "a *** b"


@pytest.mark.asyncio
async def test_without_inspect_there_are_no_notes() -> None:
    model = ScriptedModel([Reply(text=["a ", "secret"])])
    chunks = await collect(agent(model, output_processors=[Hide()]).stream("x"))
    assert not [c for c in chunks if c.type == "data-procession-hook"]
