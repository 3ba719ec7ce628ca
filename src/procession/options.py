"""``RunOptions``: the options of one ``generate()``/``stream()``/``stream_sync()`` call, typed.

``Agent.generate(messages, **options: Unpack[RunOptions])``: a type checker sees each option's
type and rejects a misspelt one (``max_step=3``) before the code runs; at run time a misspelt
option raises ``TypeError`` and a wrong value a ``ConfigurationError`` (D35).
``structured_output`` is a keyword of its own, so the result's ``object`` is typed by the model
given (``AgentResult[Order]``).

The module has no ``from __future__ import annotations``: the option types are evaluated when
the class is made, where strings would each be compiled as a ``ForwardRef`` (issue 25).
"""

from collections.abc import Callable, Sequence
from typing import Any, Literal, TypedDict

from procession._engine.spec import LaneSpec
from procession.approvals import ApprovalBroker
from procession.context import RequestContext
from procession.journal import Journal
from procession.models.base import LanguageModel
from procession.signals import AbortSignal

__all__ = ["RunOptions"]


class RunOptions(TypedDict, total=False):
    """The call options of ``generate()``, ``generate_sync()``, ``stream()`` and
    ``stream_sync()``, each optional. Call-time lanes replace the agent's (D20).

    Attributes:
        input_processors: The input lane for this call (a list, or a factory of the request
            context).
        output_processors: The output lane for this call.
        error_processors: The error lane for this call.
        max_processor_retries: How many times processors may ask for a retry (D4).
        max_retries: Retries of transient model errors (D14).
        max_steps: The maximum number of steps (model calls).
        model: A model object or a ``"provider/model"`` id, for this call.
        tools: Tools for this call (a list or ``{name: tool}``), replacing the agent's.
        tool_choice: ``"auto"``, ``"none"``, ``"required"`` or a tool name.
        active_tools: The names of the tools the model may call.
        provider_options: Provider-specific options.
        model_settings: Call settings (temperature, max_output_tokens, ...).
        instructions: The system prompt for this call, replacing the agent's.
        system: Extra system messages, tagged ``user-provided``.
        context: Context messages, placed before the input.
        request_context: A ``RequestContext`` or a mapping, seen by every hook.
        abort_signal: Cancels the run when it fires (D32).
        prepare_step: A function run as the last ``process_input_step`` hook.
        thread_id: The memory thread.
        resource_id: The memory resource (the user).
        run_id: The run's id (a durable run's, with ``journal``).
        release: ``"live"`` (default) or ``"step"`` (D31).
        journal: A durable run's checkpoints.
        approvals: Where calls of tools that require approval wait for a decision.
        require_tool_approval: Every tool call waits for approval (Mastra's
            ``requireToolApproval``).
        inspect: Send ``data-procession-hook`` chunks saying what each processor did.
    """

    input_processors: LaneSpec
    output_processors: LaneSpec
    error_processors: LaneSpec
    max_processor_retries: int | None
    max_retries: int | None
    max_steps: int | None
    model: LanguageModel | str | None
    tools: Any
    tool_choice: Any
    active_tools: list[str] | None
    provider_options: dict[str, Any] | None
    model_settings: dict[str, Any] | None
    instructions: str | Sequence[str] | None
    system: str | Sequence[str] | None
    context: Any
    request_context: RequestContext | dict[str, Any] | None
    abort_signal: AbortSignal | None
    prepare_step: Callable[..., Any] | None
    thread_id: str | None
    resource_id: str | None
    run_id: str | None
    release: Literal["live", "step"]
    journal: Journal | None
    approvals: ApprovalBroker | None
    require_tool_approval: bool
    inspect: bool
