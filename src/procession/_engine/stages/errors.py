"""The API-error stage: a model call failed after the model layer's own retries (D14).

Its partial output is seen by the error lane and then rolled back; messages an error processor
adds stay. ``process_api_error`` processors are asked in order; the first ``{"retry": True}``
re-runs the step (from ``process_input_step``, since the message list may have changed) when the
budget allows (D4, D5). A processor that raises is logged and the next one asked (D10's
exception); one that aborts ends the run.
"""

from __future__ import annotations

import logging

from procession._engine.outcomes import Retry, Stop
from procession._engine.runner import HookRunner, InvalidEditError
from procession._engine.stages.output import commit_parts
from procession._engine.state import Attempt, RunState
from procession.errors import ProcessorError

__all__ = ["model_failed"]

logger = logging.getLogger("procession")


async def model_failed(
    state: RunState, runner: HookRunner, attempt: Attempt, error: BaseException
) -> Stop:
    """The error lane over a failed model call: a retry, or the error itself (raised)."""
    if state.observer is not None:
        state.observer.model_ended(None, error)
    commit_parts(state, attempt.builder.finish())
    try:
        stop = await _ask(state, runner, attempt, error)
    finally:
        state.message_list.rollback(attempt.model_checkpoint)
    if stop is not None:
        return stop
    raise error


async def _ask(
    state: RunState, runner: HookRunner, attempt: Attempt, error: BaseException
) -> Stop | None:
    for hook in runner.of("process_api_error"):
        values = {
            "error": error,
            "messages": state.message_list.get.all.db(),
            "step_number": attempt.step_number,
            "steps": list(state.steps),
            "retry_count": state.api_retries,  # API-error retries so far, not processor ones (D5)
        }
        try:
            answer = await runner.call(hook, values)
        except InvalidEditError:
            raise  # an invalid edit is never sent to the model (D30)
        except ProcessorError:  # D10's exception: logged, the next processor is asked
            logger.exception("process_api_error of %r raised", hook.processor_id)
            continue
        if isinstance(answer, Stop):  # an abort here ends the run (it is not in the loop)
            return answer
        if isinstance(answer, dict) and answer.get("retry"):
            if runner.can_retry(state.api_retries):
                state.api_retries += 1
                return Retry("api-error", api_error=True)
            return None
    return None
