"""The names procession's spans use: tracer, span kinds, attributes, events and their values.

The ``gen_ai.*`` names are OpenTelemetry's GenAI semantic conventions (the tests compare them
with ``opentelemetry-semantic-conventions``); the ``procession.*`` names are procession's own.
Only the standard library is imported here, so the loop and the trace store can share these
names without the OpenTelemetry SDK installed. ``docs/tracing.md`` has the full table.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AGENT_ID",
    "AGENT_NAME",
    "CONVERSATION_ID",
    "EVENT_RETRY",
    "EVENT_TRIPWIRE",
    "HOOK",
    "HOOK_CALLS",
    "HOOK_DATA_CHUNKS",
    "HOOK_DROPPED",
    "HOOK_DURATION_NS",
    "HOOK_KEPT",
    "HOOK_OUTCOME",
    "HOOK_OUTCOMES",
    "HOOK_REPLACED",
    "MODEL_FROM_CACHE",
    "OPERATION_CHAT",
    "OPERATION_EXECUTE_TOOL",
    "OPERATION_INVOKE_AGENT",
    "OPERATION_NAME",
    "PROCESSOR_DESCRIPTION",
    "PROCESSOR_ID",
    "PROCESSOR_INDEX",
    "PROCESSOR_NAME",
    "PROVIDER_NAME",
    "REQUEST_MODEL",
    "RESOURCE_ID",
    "RESPONSE_FINISH_REASONS",
    "RESPONSE_ID",
    "RESPONSE_MODEL",
    "RUN_ID",
    "RUN_INTERNAL",
    "RUN_OUTCOME",
    "RUN_OUTCOMES",
    "RUN_PARENT_ID",
    "STEP_ATTEMPT",
    "STEP_FINISH_REASON",
    "STEP_NUMBER",
    "STEP_OUTCOME",
    "STEP_OUTCOMES",
    "TOOL_CALL_ID",
    "TOOL_NAME",
    "TOOL_TYPE",
    "TRACER_NAME",
    "USAGE_INPUT_TOKENS",
    "USAGE_OUTPUT_TOKENS",
]

TRACER_NAME: Final = "procession"
"""The instrumentation scope of every span the loop opens."""

# -- GenAI semantic conventions ------------------------------------------------------------

OPERATION_NAME: Final = "gen_ai.operation.name"
"""The GenAI operation: ``invoke_agent``, ``chat`` or ``execute_tool``."""
OPERATION_INVOKE_AGENT: Final = "invoke_agent"
"""``gen_ai.operation.name`` of the run span."""
OPERATION_CHAT: Final = "chat"
"""``gen_ai.operation.name`` of the model call span."""
OPERATION_EXECUTE_TOOL: Final = "execute_tool"
"""``gen_ai.operation.name`` of the tool call span."""
AGENT_ID: Final = "gen_ai.agent.id"
"""The agent's ``id`` (run span)."""
AGENT_NAME: Final = "gen_ai.agent.name"
"""The agent's ``name`` (run span)."""
CONVERSATION_ID: Final = "gen_ai.conversation.id"
"""The memory thread's id, when the run has one (run span)."""
PROVIDER_NAME: Final = "gen_ai.provider.name"
"""The model's provider, such as ``openai`` (model call span)."""
REQUEST_MODEL: Final = "gen_ai.request.model"
"""The model id the call asked for (model call span)."""
RESPONSE_MODEL: Final = "gen_ai.response.model"
"""The model id the provider answered with, when it says (model call span)."""
RESPONSE_ID: Final = "gen_ai.response.id"
"""The provider's response id, when it gives one (model call span)."""
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
"""The finish reasons, a list such as ``["stop"]`` (model call span)."""
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
"""Input tokens the call used (model call span)."""
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
"""Output tokens the call used (model call span)."""
TOOL_NAME: Final = "gen_ai.tool.name"
"""The tool's name (tool call span)."""
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
"""The model's id for the tool call (tool call span)."""
TOOL_TYPE: Final = "gen_ai.tool.type"
"""Always ``function`` (tool call span)."""

# -- the run span: ``invoke_agent {agent_id}`` ---------------------------------------------

RUN_ID: Final = "procession.run.id"
"""procession's run id (run span); the trace store lists runs by it."""
RESOURCE_ID: Final = "procession.resource.id"
"""The resource (user, tenant) the run is for, when it has one (run span)."""
RUN_OUTCOME: Final = "procession.run.outcome"
"""How the run ended, one of :data:`RUN_OUTCOMES` (run span)."""
RUN_OUTCOMES: Final = ("finish", "tripwire", "abort", "error")
"""The values of :data:`RUN_OUTCOME`."""
RUN_INTERNAL: Final = "procession.run.internal"
"""True on a judge's or a structuring run (``procession.guardrails.judge``)."""
RUN_PARENT_ID: Final = "procession.run.parent_id"
"""For an internal run: the run of the processor that started it (run span)."""

# -- the step span: ``step {n}`` -------------------------------------------------------------

STEP_NUMBER: Final = "procession.step.number"
"""The step's number, counting accepted steps from 0 (D6)."""
STEP_ATTEMPT: Final = "procession.step.attempt"
"""0 for the first attempt at a step, then 1, 2, ... for each processor retry of it."""
STEP_FINISH_REASON: Final = "procession.step.finish_reason"
"""The model's finish reason for the attempt (step span)."""
STEP_OUTCOME: Final = "procession.step.outcome"
"""How the attempt ended, one of :data:`STEP_OUTCOMES` (step span)."""
STEP_OUTCOMES: Final = ("accepted", "retry", "tripwire", "abort", "error")
"""The values of :data:`STEP_OUTCOME`."""

# -- the model call span: ``chat {model_id}`` ------------------------------------------------

MODEL_FROM_CACHE: Final = "procession.model.from_cache"
"""True when a processor replayed a cached response instead (D7)."""

# -- the hook span: ``{hook} {processor_id}`` ------------------------------------------------

PROCESSOR_ID: Final = "procession.processor.id"
"""The processor's ``id`` (hook span)."""
PROCESSOR_NAME: Final = "procession.processor.name"
"""The processor's ``name`` (hook span)."""
PROCESSOR_DESCRIPTION: Final = "procession.processor.description"
"""The processor's ``description``, when it has one (hook span)."""
PROCESSOR_INDEX: Final = "procession.processor.index"
"""The processor's position in its lane for this call (D28, hook span)."""
HOOK: Final = "procession.hook"
"""The hook's name, such as ``process_input`` (hook span)."""
HOOK_OUTCOME: Final = "procession.hook.outcome"
"""What the hook did, one of :data:`HOOK_OUTCOMES` (hook span)."""
HOOK_OUTCOMES: Final = ("kept", "replaced", "dropped", "tripwire", "retry", "error")
"""The values of :data:`HOOK_OUTCOME`."""
HOOK_DATA_CHUNKS: Final = "procession.hook.data_chunks"
"""How many ``data-*`` chunks the hook wrote (hook span)."""
HOOK_CALLS: Final = "procession.hook.calls"
"""On the one ``process_output_stream`` span per processor per step: the chunks it was given."""
HOOK_DURATION_NS: Final = "procession.hook.duration_ns"
"""On the ``process_output_stream`` span: nanoseconds spent inside the hook over the step (the
span itself covers the whole step)."""
HOOK_KEPT: Final = "procession.hook.kept"
"""Chunks passed on unchanged (the ``process_output_stream`` span)."""
HOOK_REPLACED: Final = "procession.hook.replaced"
"""Chunks replaced (the ``process_output_stream`` span)."""
HOOK_DROPPED: Final = "procession.hook.dropped"
"""Chunks dropped (the ``process_output_stream`` span)."""

# -- events ----------------------------------------------------------------------------------

EVENT_TRIPWIRE: Final = "procession.tripwire"
"""On the hook span and the run span; attributes ``reason``, ``processor_id``, ``retry``."""
EVENT_RETRY: Final = "procession.retry"
"""On the step span; attributes ``reason``, ``processor_id``."""
