"""What a run produces: step results and the final result."""

from __future__ import annotations

import typing
from dataclasses import field
from typing import TYPE_CHECKING, Any, Generic

from procession._records import record
from procession.chunks import Usage
from procession.messages.message import Message

__all__ = ["AgentResult", "ObjectT", "StepResult", "ToolCallInfo", "ToolResultInfo"]

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    ObjectT = TypeVar("ObjectT", default=Any)
    """The type of a result's structured output (``AgentResult[Order]``); a bare ``AgentResult``
    is ``AgentResult[Any]``."""
else:  # the default is for type checkers: no typing_extensions at run time (0381)
    ObjectT = typing.TypeVar("ObjectT")


@record(slots=True)
class ToolCallInfo:
    """One tool call the model made in a step."""

    tool_call_id: str
    tool_name: str
    args: Any
    provider_executed: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        """The wire form (``toolCallId``, ``toolName``, ``args``)."""
        out: dict[str, Any] = {
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "args": self.args,
        }
        if self.provider_executed is not None:
            out["providerExecuted"] = self.provider_executed
        return out


@record(slots=True)
class ToolResultInfo:
    """One tool's outcome: its (processed) result, or its error."""

    tool_call_id: str
    tool_name: str
    args: Any
    result: Any = None
    error: str | None = None
    provider_executed: bool | None = None

    @property
    def is_error(self) -> bool:
        """Whether the tool failed."""
        return self.error is not None


@record(slots=True)
class StepResult:
    """One accepted step of the agentic loop (rejected attempts are not steps, D6)."""

    step_number: int
    text: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCallInfo] = field(default_factory=list)
    tool_results: list[ToolResultInfo] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "unknown"
    usage: Usage = field(default_factory=Usage)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    request: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    """Response metadata: ``id``, ``modelId``, ``timestamp``, ``headers``."""
    provider_metadata: dict[str, Any] | None = None
    model_id: str | None = None


@record(slots=True)
class AgentResult(Generic[ObjectT]):
    """The result of ``generate()``, and the final result of ``stream()``.

    Generic in its structured output: ``agent.generate(..., structured_output=Order)`` is an
    ``AgentResult[Order]``, whose ``object`` a type checker knows as an ``Order``.

    Attributes:
        text: The text of every accepted step, joined (D23); ``""`` for a blocked run (D12).
        finish_reason: The last step's finish reason; ``"other"`` after a tripwire, ``"error"``
            after an error, ``"abort"`` when the caller's abort signal fired.
        tripwire: The tripwire payload (``reason``, ``retry``, ``metadata``, ``processorId``)
            when a processor blocked the run.
        steps: The accepted steps.
        usage: Token usage summed over every model call, retried attempts included.
        object: The validated structured output, when ``structured_output`` was requested
            (typed by the model given); ``None`` when the run ended without a structured
            answer (a tripwire or the abort signal: check ``tripwire``/``finish_reason``).
        messages: The response messages of the run, as stored.
        error: The error that ended the run, if any (``generate()`` raises it instead).
    """

    run_id: str
    text: str = ""
    finish_reason: str = "unknown"
    tripwire: dict[str, Any] | None = None
    steps: list[StepResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    object: ObjectT = None  # type: ignore[assignment]  # None until a structured answer
    messages: list[Message] = field(default_factory=list)
    error: BaseException | None = None
    response_message_id: str | None = None

    @property
    def tool_calls(self) -> list[ToolCallInfo]:
        """Every tool call of every accepted step."""
        return [call for step in self.steps for call in step.tool_calls]

    @property
    def tool_results(self) -> list[ToolResultInfo]:
        """Every tool result of every accepted step."""
        return [result for step in self.steps for result in step.tool_results]

    @property
    def reasoning(self) -> str:
        """The reasoning text of every accepted step, joined."""
        return "".join(step.reasoning for step in self.steps)
