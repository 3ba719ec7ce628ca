"""RegexFilter: presets and custom rules, block/redact/warn, phases, carry-over across chunks."""

from __future__ import annotations

from typing import Any

import pytest

from procession import Agent, ProcessorViolation, RegexFilter, RegexRule
from procession.errors import ConfigurationError
from procession.testing import Reply, ScriptedModel

from .redaction_data import ordinary_sentences


@pytest.mark.asyncio
async def test_block_is_the_default_and_names_the_patterns() -> None:
    model = ScriptedModel([Reply(text=["mail ada@ex", "ample.com now"])])
    result = await Agent(
        id="a", model=model, output_processors=[RegexFilter(presets=["pii"])]
    ).generate("x")
    assert result.tripwire is not None
    assert (
        result.tripwire["reason"] == "Regex filter: blocked streamed text matching patterns: email"
    )
    assert result.tripwire["metadata"]["strategy"] == "block"


@pytest.mark.asyncio
async def test_redact_uses_each_rules_replacement_across_chunks() -> None:
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel(
        [Reply(text=["key sk-abc", "defghijklmnopqrstuvwxyz and INT", "-123456 ok"])]
    )
    regex = RegexFilter(
        presets=["secrets"],
        rules=[RegexRule("internal", r"INT-\d{6}", "[INTERNAL]")],
        strategy="redact",
        on_violation=seen.append,
    )
    result = await Agent(id="a", model=model, output_processors=[regex]).generate("x")
    assert result.text == "key [API_KEY] and [INTERNAL] ok"
    assert [(v.detail or {}).get("type") for v in seen] == ["api-key", "internal"]


@pytest.mark.asyncio
async def test_input_phase_redacts_the_users_message() -> None:
    model = ScriptedModel([Reply(text=["ok"])])
    regex = RegexFilter(presets=["pii"], strategy="redact", phase="input")
    agent = Agent(id="a", model=model, input_processors=[regex])
    result = await agent.generate("my card is 4111 1111 1111 1111")
    sent = model.calls[0].prompt[-1]
    assert "4111" not in str(sent)
    assert result.text == "ok"


@pytest.mark.asyncio
async def test_warn_passes_the_text_and_reports() -> None:
    seen: list[ProcessorViolation[Any]] = []
    model = ScriptedModel([Reply(text=["see https://example.com/x now"])])
    regex = RegexFilter(presets=["links"], strategy="warn", on_violation=seen.append)
    result = await Agent(id="a", model=model, output_processors=[regex]).generate("x")
    assert result.text == "see https://example.com/x now"
    assert len(seen) == 1


def test_no_false_positives_on_ordinary_numbers() -> None:
    regex = RegexFilter(presets=["secrets", "urls"], strategy="redact")
    flagged = [r for r in ordinary_sentences() if regex.engine.scan(r["text"])]
    assert len(flagged) / len(ordinary_sentences()) <= 0.01


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({}, "at least one"),
        ({"presets": ["nope"]}, "presets"),
        ({"presets": ["pii"], "phase": "both"}, "phase"),
        ({"presets": ["pii"], "strategy": "filter"}, "strategy"),
        ({"rules": [("x", "(")]}, "valid regex"),
        ({"rules": ["x"]}, "rules"),
    ],
)
def test_bad_options_are_clear_errors(kwargs: dict[str, Any], needle: str) -> None:  # D35
    with pytest.raises(ConfigurationError, match=needle):
        RegexFilter(**kwargs)
