"""The span attribute names: the GenAI ones are OpenTelemetry's semantic conventions, letter
for letter; procession's own are namespaced and distinct."""

from __future__ import annotations

import pytest

from procession.tracing import attributes as attr

# The tracing extra's floor (SDK 1.25) brings opentelemetry-semantic-conventions 0.46b0, which
# has no GenAI module yet: there, and only there, this comparison cannot run.
gen_ai = pytest.importorskip("opentelemetry.semconv._incubating.attributes.gen_ai_attributes")

GEN_AI = {
    "OPERATION_NAME": gen_ai.GEN_AI_OPERATION_NAME,
    "AGENT_ID": gen_ai.GEN_AI_AGENT_ID,
    "AGENT_NAME": gen_ai.GEN_AI_AGENT_NAME,
    "CONVERSATION_ID": gen_ai.GEN_AI_CONVERSATION_ID,
    "PROVIDER_NAME": gen_ai.GEN_AI_PROVIDER_NAME,
    "REQUEST_MODEL": gen_ai.GEN_AI_REQUEST_MODEL,
    "RESPONSE_MODEL": gen_ai.GEN_AI_RESPONSE_MODEL,
    "RESPONSE_ID": gen_ai.GEN_AI_RESPONSE_ID,
    "RESPONSE_FINISH_REASONS": gen_ai.GEN_AI_RESPONSE_FINISH_REASONS,
    "USAGE_INPUT_TOKENS": gen_ai.GEN_AI_USAGE_INPUT_TOKENS,
    "USAGE_OUTPUT_TOKENS": gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS,
    "TOOL_NAME": gen_ai.GEN_AI_TOOL_NAME,
    "TOOL_CALL_ID": gen_ai.GEN_AI_TOOL_CALL_ID,
    "TOOL_TYPE": gen_ai.GEN_AI_TOOL_TYPE,
}


def test_gen_ai_names_are_the_semantic_conventions() -> None:
    ours = {name: getattr(attr, name) for name in GEN_AI}
    assert ours == GEN_AI
    own_gen_ai = {name for name in attr.__all__ if str(getattr(attr, name)).startswith("gen_ai.")}
    assert own_gen_ai == set(GEN_AI)  # no gen_ai.* name of our own invention


def test_operation_values_are_the_conventions_values() -> None:
    values = gen_ai.GenAiOperationNameValues
    assert values.INVOKE_AGENT.value == attr.OPERATION_INVOKE_AGENT
    assert values.CHAT.value == attr.OPERATION_CHAT
    assert values.EXECUTE_TOOL.value == attr.OPERATION_EXECUTE_TOOL


def test_procession_names_are_namespaced_and_distinct() -> None:
    names = [getattr(attr, name) for name in attr.__all__]
    keys = [n for n in names if isinstance(n, str) and "." in n]
    assert len(keys) == len(set(keys))
    own = [k for k in keys if not k.startswith("gen_ai.")]
    assert all(k.startswith("procession.") for k in own)
    assert attr.TRACER_NAME == "procession"
    assert attr.__all__ == sorted(attr.__all__)
