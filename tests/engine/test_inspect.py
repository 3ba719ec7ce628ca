"""inspect=True: transient notes of what each processor did, for a viewer such as Studio."""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest

from procession import Chunk, StreamRedactor, tool
from procession.testing import Reply, ScriptedModel

from .helpers import agent, collect, tool_call


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


class HoldAll:
    """Holds every text delta back and releases the text unchanged at ``text-end``."""

    id = "hold-all"

    def process_output_stream(self, *, part: Chunk, state: dict[str, Any], **_: Any) -> Any:
        if part.type == "text-delta":
            state["held"] = state.get("held", "") + part.payload["text"]
            return None
        if part.type == "text-end" and state.get("held"):
            held = Chunk("text-delta", {"id": part.payload.get("id"), "text": state.pop("held")})
            return [held, part]
        return part


def _notes(chunks: list[Chunk], hook: str = "process_output_stream") -> list[dict[str, Any]]:
    return [c.data for c in chunks if c.type == "data-procession-hook" and c.data["hook"] == hook]


@pytest.mark.asyncio
@pytest.mark.parametrize("release", ["live", "step"])
async def test_notes_say_what_each_processor_did(release: Literal["live", "step"]) -> None:
    model = ScriptedModel([Reply(text=["a ", "secret", "noise", " b"])])
    bot = agent(model, input_processors=[Upper()], output_processors=[Hide()])
    chunks = await collect(bot.stream("x", inspect=True, release=release))
    notes = [c for c in chunks if c.type == "data-procession-hook"]
    assert all(n.transient for n in notes)
    # One note for the changed region of the text: where, how long, what the client got
    # instead; never the text that was removed.
    (changed,) = _notes(chunks)
    assert {k: changed[k] for k in ("action", "stream", "start", "length", "after")} == {
        "action": "replaced",
        "stream": "text",
        "start": 2,
        "length": len("secretnoise"),
        "after": "***",
    }
    assert "secret" not in json.dumps(changed)
    (input_note,) = _notes(chunks, "process_input")
    assert (input_note["processorId"], input_note["action"]) == ("upper", "kept")
    assert input_note["durationMs"] >= 0
    for note in notes:
        json.dumps(note.to_dict())  # D33
    texts = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert texts == "a *** b"


@pytest.mark.asyncio
async def test_text_held_back_and_released_unchanged_gets_no_note() -> None:
    model = ScriptedModel([Reply(text=["Here is a full ", "sentence ", "for you."])])
    bot = agent(model, output_processors=[HoldAll(), StreamRedactor()])
    chunks = await collect(bot.stream("x", inspect=True))
    assert _notes(chunks) == []
    texts = "".join(c.payload["text"] for c in chunks if c.type == "text-delta")
    assert texts == "Here is a full sentence for you."


@pytest.mark.asyncio
async def test_one_note_per_redaction_with_its_type_and_position_never_the_value() -> None:
    card, mail = "4111 1111 1111 1111", "bob@example.com"
    deltas = ["Write to ", mail[:5], mail[5:], ", card ", card[:7], card[7:12], card[12:], "."]
    bot = agent(ScriptedModel([Reply(text=deltas)]), output_processors=[StreamRedactor()])
    chunks = await collect(bot.stream("x", inspect=True))
    notes = _notes(chunks)
    text = "".join(deltas)
    assert [(n["action"], n["type"], n["start"], n["length"]) for n in notes] == [
        ("redacted", "email", text.index(mail), len(mail)),
        ("redacted", "card", text.index(card), len(card)),
    ]
    wire = json.dumps(notes)
    for value in (card, mail, "4111", "bob@"):
        assert value not in wire


@pytest.mark.asyncio
async def test_without_inspect_there_are_no_notes() -> None:
    model = ScriptedModel([Reply(text=["a ", "secret"])])
    chunks = await collect(agent(model, output_processors=[Hide()]).stream("x"))
    assert not [c for c in chunks if c.type == "data-procession-hook"]


@pytest.mark.asyncio
async def test_fragments_of_a_card_the_run_saw_are_noted_as_card_redactions() -> None:
    card = "4111 1111 1111 1111"

    @tool
    def find_order(order_id: str) -> dict[str, str]:
        """Find an order."""
        return {"card": card, "status": "refunded"}

    text = ["Order found, refunded to card ", "4111 1111 ", "(ending 1111)."]
    model = ScriptedModel([tool_call("find_order", {"order_id": "A-1"}), Reply(text=text)])
    bot = agent(model, tools=[find_order], output_processors=[StreamRedactor()])
    chunks = await collect(bot.stream("x", inspect=True))
    said = "".join(text)
    texts = [n for n in _notes(chunks) if n.get("stream") == "text"]
    assert [(n["action"], n["type"], n["start"], n["length"]) for n in texts] == [
        ("redacted", "card", said.index("4111"), len("4111 1111 ") - 1),
        ("redacted", "card", said.index("1111)"), 4),
    ]
    (result,) = [n for n in _notes(chunks) if n.get("chunkType") == "tool-result"]
    assert result["action"] == "replaced"
    assert "4111" not in json.dumps(_notes(chunks))
