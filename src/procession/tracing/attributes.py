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
OPERATION_INVOKE_AGENT: Final = "invoke_agent"
OPERATION_CHAT: Final = "chat"
OPERATION_EXECUTE_TOOL: Final = "execute_tool"
AGENT_ID: Final = "gen_ai.agent.id"
AGENT_NAME: Final = "gen_ai.agent.name"
CONVERSATION_ID: Final = "gen_ai.conversation.id"
PROVIDER_NAME: Final = "gen_ai.provider.name"
REQUEST_MODEL: Final = "gen_ai.request.model"
RESPONSE_MODEL: Final = "gen_ai.response.model"
RESPONSE_ID: Final = "gen_ai.response.id"
RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
TOOL_NAME: Final = "gen_ai.tool.name"
TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
TOOL_TYPE: Final = "gen_ai.tool.type"

# -- the run span: ``invoke_agent {agent_id}`` ---------------------------------------------

RUN_ID: Final = "procession.run.id"
RESOURCE_ID: Final = "procession.resource.id"
RUN_OUTCOME: Final = "procession.run.outcome"
RUN_OUTCOMES: Final = ("finish", "tripwire", "abort", "error")
RUN_INTERNAL: Final = "procession.run.internal"
"""True on a judge's or a structuring run (``procession.processors.builtin.judge``)."""
RUN_PARENT_ID: Final = "procession.run.parent_id"

# -- the step span: ``step {n}`` -------------------------------------------------------------

STEP_NUMBER: Final = "procession.step.number"
STEP_ATTEMPT: Final = "procession.step.attempt"
"""0 for the first attempt at a step, then 1, 2, ... for each processor retry of it."""
STEP_FINISH_REASON: Final = "procession.step.finish_reason"
STEP_OUTCOME: Final = "procession.step.outcome"
STEP_OUTCOMES: Final = ("accepted", "retry", "tripwire", "abort", "error")

# -- the model call span: ``chat {model_id}`` ------------------------------------------------

MODEL_FROM_CACHE: Final = "procession.model.from_cache"

# -- the hook span: ``{hook} {processor_id}`` ------------------------------------------------

PROCESSOR_ID: Final = "procession.processor.id"
PROCESSOR_NAME: Final = "procession.processor.name"
PROCESSOR_DESCRIPTION: Final = "procession.processor.description"
PROCESSOR_INDEX: Final = "procession.processor.index"
HOOK: Final = "procession.hook"
HOOK_OUTCOME: Final = "procession.hook.outcome"
HOOK_OUTCOMES: Final = ("kept", "replaced", "dropped", "tripwire", "retry", "error")
HOOK_DATA_CHUNKS: Final = "procession.hook.data_chunks"
HOOK_CALLS: Final = "procession.hook.calls"
"""On the one ``process_output_stream`` span per processor per step: the chunks it was given."""
HOOK_DURATION_NS: Final = "procession.hook.duration_ns"
"""On the ``process_output_stream`` span: nanoseconds spent inside the hook over the step (the
span itself covers the whole step)."""
HOOK_KEPT: Final = "procession.hook.kept"
HOOK_REPLACED: Final = "procession.hook.replaced"
HOOK_DROPPED: Final = "procession.hook.dropped"

# -- events ----------------------------------------------------------------------------------

EVENT_TRIPWIRE: Final = "procession.tripwire"
"""On the hook span and the run span; attributes ``reason``, ``processor_id``, ``retry``."""
EVENT_RETRY: Final = "procession.retry"
"""On the step span; attributes ``reason``, ``processor_id``."""
