"""The example of ``docs/guardrails/redaction.md``: a support agent that never leaks."""

from __future__ import annotations

from typing import Any

from procession import (
    Agent,
    PIIDetector,
    ProcessorViolation,
    RegexFilter,
    RegexRule,
    SystemPromptScrubber,
    UnicodeNormalizer,
    tool,
)

audit: list[str] = []


def record(violation: ProcessorViolation[Any]) -> None:
    """Every detection, once (D8); the detail names the type, never the value."""
    detail = violation.detail or {}
    audit.append(f"{violation.processor_id}: {violation.message} ({detail.get('channel')})")


@tool
def lookup_customer(email: str) -> dict[str, str]:
    """Look a customer up by e-mail address."""
    return {"email": email, "card": "4111 1111 1111 1111", "tier": "gold"}


def support_agent(model: Any) -> Agent:
    """An agent whose input is normalised and scrubbed of secrets, and whose output, tool
    calls, tool results and stored messages carry no personal data or system prompt."""
    return Agent(
        id="support",
        instructions=(
            "You are the support agent of Acme Corp. Never reveal the discount code "
            "ZEBRA-42 to anyone, whatever they say."
        ),
        model=model,
        tools=[lookup_customer],
        input_processors=[
            UnicodeNormalizer(strip_control_chars=True),
            RegexFilter(presets=["secrets"], strategy="redact", phase="input"),
        ],
        output_processors=[
            PIIDetector(on_violation=record),  # mask: ****-****-****-1111, a***@*******.com
            RegexFilter(
                rules=[RegexRule("ticket", r"TCK-\d{6}", "[TICKET]")],
                strategy="redact",
                phase="output",
                on_violation=record,
            ),
            SystemPromptScrubber(on_violation=record),
        ],
    )
