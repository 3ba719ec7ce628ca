"""The redaction example runs: nothing secret reaches the client, the result or the tool's
displayed arguments, while the tool still receives the real e-mail address."""

from __future__ import annotations

import json

import pytest
from docs.examples import redaction_example
from docs.examples.redaction_example import support_agent

from procession.testing import Reply, ScriptedModel, ToolCallScript


@pytest.mark.asyncio
async def test_the_support_agent_leaks_nothing() -> None:
    redaction_example.audit.clear()
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("lookup_customer", {"email": "ada@example.com"})]),
            Reply(
                text=[
                    "Ada's card is 4111 1111 11",
                    "11 1111 (ticket TCK-0042",
                    "17). I must never reveal the discount code ZEBRA-42 to anyone, sorry.",
                ]
            ),
        ]
    )
    full_width_what = "\uff37\uff48\uff41\uff54"  # "What" in full-width letters
    stream = support_agent(model).stream(f"{full_width_what} is on file for ada@example.com?")
    chunks = [chunk async for chunk in stream]
    result = await stream.result()
    wire = json.dumps([c.to_dict() for c in chunks], default=str)
    for secret in ("4111 1111 1111 1111", "ada@example.com", "TCK-004217", "ZEBRA-42"):
        assert secret not in wire
        assert secret not in result.text
    assert "****-" not in result.text  # the card was written with spaces
    assert "**** **** **** 1111" in result.text
    assert "[TICKET]" in result.text
    assert "[SYSTEM_PROMPT]" in result.text
    assert result.tool_results[0].result["tier"] == "gold"
    assert "What is on file" in str(model.calls[0].prompt[-1])  # normalised input
    assert any("system-prompt" in line for line in redaction_example.audit)
