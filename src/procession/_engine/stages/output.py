"""The output stages around the model's stream: the step's result and ``process_output_step``
(D6, D16, D23), the step's end (``step-finish``, D2's retry marker, D31's release), and the run's
end: ``process_output_result`` and the final chunk (D12, D21, D32, D33)."""

from __future__ import annotations

from typing import Any

from procession._engine.outcomes import Aborted, Blocked, Failed, Outcome, Retry, Stop
from procession._engine.runner import HookRunner
from procession._engine.stages.input import system_messages
from procession._engine.stages.results import apply_messages
from procession._engine.state import Attempt, RunState
from procession.chunks import Chunk, Usage
from procession.errors import APICallError, ProcessorError, StructuredOutputError
from procession.messages.message import Message
from procession.messages.parts import ReasoningPart, StepStartPart, TextPart
from procession.results import StepResult

__all__ = [
    "RETRY_FEEDBACK",
    "RETRY_FEEDBACK_TAG",
    "accept_text",
    "commit_parts",
    "commit_step",
    "continues",
    "ending_chunk",
    "error_payload",
    "process_output_result",
    "process_output_step",
    "release_step",
    "response_text",
    "retry_marker",
    "step_finish",
]

RETRY_FEEDBACK_TAG = "processor-retry-feedback"
RETRY_FEEDBACK = (
    "[Processor Feedback] Your previous response was not accepted: {reason}. "
    "Please try again with the feedback in mind."
)


def commit_step(state: RunState, attempt: Attempt) -> StepResult:
    """The model's stream ended: its parts join the response message, its result the steps
    (D6: hooks from here on see the current step)."""
    builder = attempt.builder
    parts = builder.finish()
    payload = attempt.finish.payload if attempt.finish is not None else {}
    result = StepResult(
        step_number=attempt.step_number,
        text="".join(builder.text_parts),
        reasoning="".join(builder.reasoning_text),
        tool_calls=builder.tool_calls,
        sources=builder.sources,
        files=builder.files,
        finish_reason=payload.get("stepResult", {}).get("reason", "unknown"),
        usage=Usage.from_dict(payload.get("output", {}).get("usage")),
        warnings=attempt.warnings,
        request=attempt.request,
        response=builder.response,
        provider_metadata=payload.get("providerMetadata"),
        model_id=attempt.step.model.model_id,
    )
    commit_parts(state, parts)
    state.steps.append(result)
    attempt.result = result
    return result


def commit_parts(state: RunState, parts: list[Any]) -> None:
    """Append a step's parts to the run's response message."""
    if parts:
        state.response_message().content.parts.extend(parts)


async def process_output_step(state: RunState, runner: HookRunner, attempt: Attempt) -> Stop | None:
    """``process_output_step`` after the model's step, then the structured answer's check."""
    result = attempt.result
    assert result is not None
    message_list = state.message_list
    for hook in runner.of("process_output_step"):
        messages = message_list.get.all.db()
        values = {
            "messages": messages,
            "step_number": result.step_number,
            "finish_reason": result.finish_reason,
            "provider_metadata": result.provider_metadata,
            "tool_calls": list(result.tool_calls),
            "text": result.text,
            "usage": result.usage,
            "system_messages": system_messages(state, attempt.step),
            "steps": list(state.steps),
        }
        outcome = await runner.call(hook, values)
        if isinstance(outcome, Stop):
            return outcome
        apply_messages(state, hook, outcome, messages, "response", input_stage=False)
    if attempt.structured is not None and not result.tool_calls:
        return _structured_answer(state, runner, attempt)
    return None


def _structured_answer(state: RunState, runner: HookRunner, attempt: Attempt) -> Stop | None:
    """Validate the final answer; retry with feedback when the budget allows (D4)."""
    assert attempt.structured is not None
    try:
        state.result.object = attempt.structured.validate(_texts(_last_segment(state))[0])
    except StructuredOutputError as error:
        if runner.can_retry(state.processor_retries):
            return Retry(str(error), "structured-output")
        raise
    return None


def _last_segment(state: RunState) -> list[Any]:
    """The parts of the current step: the response's parts after its last step boundary."""
    parts = [p for m in state.message_list.get.response.db() for p in m.content.parts]
    for index in range(len(parts) - 1, -1, -1):
        if isinstance(parts[index], StepStartPart):
            return parts[index + 1 :]
    return parts


def _texts(parts: list[Any]) -> tuple[str, str]:
    text = "".join(p.text for p in parts if isinstance(p, TextPart))
    reasoning = "".join(p.reasoning for p in parts if isinstance(p, ReasoningPart))
    return text, reasoning


def continues(step: StepResult, max_steps: int) -> bool:
    """Whether the loop goes on after ``step``: steps remain, and the model called tools.

    A step whose tools the loop ran goes on whatever finish reason the server gave: some
    OpenAI-compatible servers say ``stop`` beside tool calls, and stopping there would run the
    tools and never show the model their results. A step of provider-executed tools only goes
    on when the model said ``tool-calls``, as in Mastra.
    """
    if step.step_number + 1 >= max_steps or not step.tool_calls:
        return False
    return step.finish_reason == "tool-calls" or any(
        not call.provider_executed for call in step.tool_calls
    )


def accept_text(state: RunState, step: StepResult) -> None:
    """The step's text and reasoning as its message stands after every hook (D23)."""
    step.text, step.reasoning = _texts(_last_segment(state))


def step_finish(state: RunState, step: StepResult, *, continued: bool) -> Chunk:
    """The ``step-finish`` chunk of an accepted step."""
    return state.chunk(
        "step-finish",
        {
            "messageId": state.response_id,
            "stepResult": {"reason": step.finish_reason, "isContinued": continued},
            "output": {
                "text": step.text,
                "toolCalls": [c.to_dict() for c in step.tool_calls],
                "usage": step.usage.to_dict(),
            },
            "metadata": {"modelId": step.model_id},
            "processorRetryCount": state.processor_retries,
        },
    )


def release_step(state: RunState, attempt: Attempt) -> None:
    """``release="step"``: the accepted step's held chunks go out (D31).

    When a hook edited the step's text, each text block's deltas are replaced by one delta of
    the block's text as it stands in the message.
    """
    emitter = state.emitter
    held = emitter.held
    edited = [p.text for p in _last_segment(state) if isinstance(p, TextPart)]
    blocks = _text_blocks(held)
    if [text for _, text in blocks] == edited or len(blocks) != len(edited):
        if len(blocks) != len(edited) and blocks:
            held = _replace_all_text(held, "".join(edited))
        emitter.release(held)
        return
    emitter.release(_replace_blocks(held, blocks, edited))


def _text_blocks(chunks: list[Chunk]) -> list[tuple[list[int], str]]:
    """The text-delta runs of ``chunks``: their indexes and their joined text."""
    blocks: list[tuple[list[int], str]] = []
    current: list[int] | None = None
    text: list[str] = []
    for index, chunk in enumerate(chunks):
        if chunk.type == "text-delta":
            if current is None:
                current, text = [], []
            current.append(index)
            text.append(chunk.payload.get("text", ""))
        elif current is not None and chunk.type != "object":
            blocks.append((current, "".join(text)))
            current = None
    if current is not None:
        blocks.append((current, "".join(text)))
    return blocks


def _replace_blocks(
    held: list[Chunk], blocks: list[tuple[list[int], str]], edited: list[str]
) -> list[Chunk]:
    drop: set[int] = set()
    replace: dict[int, Chunk] = {}
    for (indexes, text), new_text in zip(blocks, edited, strict=True):
        if text == new_text:
            continue
        first = held[indexes[0]]
        replace[indexes[0]] = first.copy(payload={**first.payload, "text": new_text})
        drop.update(indexes[1:])
    return [replace.get(i, c) for i, c in enumerate(held) if i not in drop]


def _replace_all_text(held: list[Chunk], text: str) -> list[Chunk]:
    """The message's text no longer maps onto the streamed blocks: one delta carries it."""
    out: list[Chunk] = []
    placed = False
    for chunk in held:
        if chunk.type != "text-delta":
            out.append(chunk)
        elif not placed:
            placed = True
            if text:
                out.append(chunk.copy(payload={**chunk.payload, "text": text}))
    return out


def retry_marker(state: RunState, attempt: Attempt, retry: Retry) -> Chunk:
    """D2: a ``step-finish`` with reason ``retry``; clients discard the step's chunks."""
    step_result: dict[str, Any] = {
        "reason": "retry",
        "isContinued": True,
        "retryReason": retry.reason,
        "retryProcessorId": retry.processor_id,
    }
    if retry.metadata is not None:
        step_result["retryMetadata"] = retry.metadata
    finish = attempt.finish
    usage = finish.payload.get("output", {}).get("usage") if finish is not None else None
    return state.chunk(
        "step-finish",
        {
            "messageId": state.response_id,
            "stepResult": step_result,
            "output": {
                "text": attempt.builder.text,
                "toolCalls": [],
                "usage": usage or Usage().to_dict(),
            },
            "metadata": {},
            "processorRetryCount": state.processor_retries,
        },
    )


async def process_output_result(state: RunState, runner: HookRunner) -> Stop | None:
    """``process_output_result`` over the response messages, once; then the result's text is
    what the messages hold (D23). No step to retry: an abort ends the run (D1)."""
    result = state.result
    message_list = state.message_list
    hooks = runner.of("process_output_result")
    _settle_result(state, from_messages=False)  # each step's text already stands (D23)
    for hook in hooks:
        messages = message_list.get.response.db()
        outcome = await runner.call(hook, {"messages": messages, "result": result})
        if isinstance(outcome, Retry):  # D1: no step to retry after the loop
            return outcome.blocked()
        if isinstance(outcome, Stop):
            return outcome
        apply_messages(state, hook, outcome, messages, "response", input_stage=False)
    if hooks:
        _settle_result(state, from_messages=True)
    return None


def _settle_result(state: RunState, *, from_messages: bool) -> None:
    """The result as the messages stand: text (D23), steps, usage, finish reason. Without
    hooks that could edit messages, the steps' texts are exactly what the messages hold."""
    result = state.result
    if from_messages:
        response = state.message_list.get.response.db()
        result.text = response_text(response)
        _step_texts(state.steps, response)
    else:
        result.text = "".join(step.text for step in state.steps)
    result.finish_reason = state.steps[-1].finish_reason if state.steps else "unknown"
    result.steps = state.steps
    result.usage = state.usage


def response_text(messages: list[Message]) -> str:
    """The text of the response messages, joined in order (D23)."""
    return "".join(p.text for m in messages for p in m.content.parts if isinstance(p, TextPart))


def _step_texts(steps: list[StepResult], response: list[Message]) -> None:
    """Each step's text and reasoning as its segment of the messages stands (D23)."""
    segments: list[list[Any]] = [[]]
    for part in (p for m in response for p in m.content.parts):
        if isinstance(part, StepStartPart):
            segments.append([])
        else:
            segments[-1].append(part)
    segments = [s for s in segments if s] or [[]]
    if len(segments) != len(steps):
        return  # hooks reshaped the messages; step results keep their texts
    for step, segment in zip(steps, segments, strict=True):
        step.text, step.reasoning = _texts(segment)


def ending_chunk(state: RunState, outcome: Outcome) -> Chunk:
    """The run's last chunk, and the result it leaves (D12, D21, D32)."""
    result = state.result
    if isinstance(outcome, Blocked):
        result.tripwire = outcome.payload
        result.finish_reason, result.text = "other", ""
        return state.chunk("tripwire", outcome.payload)
    if isinstance(outcome, Aborted):
        result.finish_reason, result.text = "abort", ""
        return state.chunk("abort", {})
    if isinstance(outcome, Failed):
        result.error = outcome.error
        result.finish_reason, result.text = "error", ""
        return state.chunk("error", error_payload(outcome.error))
    return _finish_chunk(state)


def _finish_chunk(state: RunState) -> Chunk:
    result = state.result
    last = state.steps[-1] if state.steps else None
    return state.chunk(
        "finish",
        {
            "stepResult": {"reason": result.finish_reason, "isContinued": False},
            "output": {
                "text": result.text,
                "toolCalls": [c.to_dict() for c in last.tool_calls] if last else [],
                "usage": state.usage.to_dict(),
            },
            "metadata": {},
            "messageId": state.response_id,
            "processorRetryCount": state.processor_retries,
        },
    )


def error_payload(error: BaseException) -> dict[str, Any]:
    """An error as chunk data (D33): ``{name, message}`` and what is known, never the object."""
    detail: dict[str, Any] = {"name": type(error).__name__, "message": str(error)}
    if isinstance(error, ProcessorError):
        detail["processorId"] = error.processor_id
        detail["hook"] = error.hook
    if isinstance(error, APICallError):
        detail["statusCode"] = error.status_code
        detail["isRetryable"] = error.is_retryable
    return {"error": detail, "message": str(error)}
