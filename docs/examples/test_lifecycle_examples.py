"""The processor examples of ``docs/lifecycle.md``, called directly as the runner will (D19).

The runner passes each hook only the keyword arguments it declares; here the hooks are called
with those keywords by hand, so the examples stay correct while the runner is being built.
"""

from __future__ import annotations

import re
from typing import Any

from procession import Message, MessageList, TextPart

CARD = re.compile(r"\b\d{4}(?: ?\d{4}){3}\b")


class RedactCards:
    """Masks card numbers in the user's input, editing the live parts in place (D24)."""

    id = "redact-cards"

    def process_input(self, *, messages: list[Message], **_: Any) -> None:
        """Rewrite text parts in place; returning ``None`` means "no other change"."""
        for message in messages:
            for part in message.content.parts:
                if isinstance(part, TextPart):
                    part.text = CARD.sub("[card]", part.text)


class AddHouseRules:
    """Adds a tagged, run-scoped system message from a hook (D17)."""

    id = "house-rules"

    def process_input_step(self, *, message_list: MessageList, **_: Any) -> None:
        """Add the rules at every step; the same text in the same bucket is added once."""
        message_list.add_system("Answer briefly.", tag="house-rules")


def test_redact_cards_edits_the_live_message() -> None:
    message_list = MessageList(["my card is 4111 1111 1111 1111, thanks"])
    RedactCards().process_input(
        messages=message_list.get.input.db(), message_list=message_list, state={}
    )
    assert message_list.get.all.db()[0].text == "my card is [card], thanks"


def test_house_rules_are_tagged_and_reach_the_prompt() -> None:
    message_list = MessageList(["hi"])
    for step_number in range(3):
        AddHouseRules().process_input_step(
            message_list=message_list, step_number=step_number, steps=[]
        )
    assert message_list.get.all.prompt()[0] == {"role": "system", "content": "Answer briefly."}
    assert len(message_list.get_system_messages("house-rules")) == 1
