"""``POST /ag-ui/{agentId}``: an agent's runs as AG-UI event streams (decision 0365).

The body is AG-UI's ``RunAgentInput``; the answer is the event stream
:mod:`procession.server.ag_ui_stream` encodes. The run is the same as on the other stream
routes: the agent's processors apply (held per step, D31), its thread is held for the turn,
the run id is bound to the caller's resource, and a client that leaves cancels the run (D32).

* ``threadId`` is the memory thread when the agent has memory (only the messages after the
  last assistant or tool message are new; memory holds the rest); without memory it only
  names the conversation, and every message is the prompt.
* ``runId`` is the run's id (409 when another resource's live run holds it).
* The resource is always the credential's (``local`` without credentials): the body cannot
  name one, so another resource's thread answers 404, like a missing one.
* ``tools`` (front-end tools) are refused with 400, as client tools are on the other routes;
  so is ``resume`` (procession's runs end with no AG-UI interrupt to answer).
* ``context`` entries become system messages before the input; ``state`` and
  ``forwardedProps`` reach the processors as ``request_context["ag_ui"]``.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from procession.agent import Agent
from procession.errors import ProcessionError
from procession.server.ag_ui_input import RunAgentBody, core_messages
from procession.server.ag_ui_stream import HEADERS, AGUIEncoder
from procession.server.bodies import parse_body
from procession.server.errors import HTTPError, issue, status_of
from procession.server.scaling import thread_turn
from procession.server.state import ServerState, read_json, state_of
from procession.server.streaming import StreamResponse

__all__ = ["AG_UI_CONTEXT_KEY", "run_ag_ui"]

AG_UI_CONTEXT_KEY = "ag_ui"
"""The request-context key holding the request's ``state`` and ``forwardedProps``."""


def _refuse_unsupported(body: RunAgentBody) -> None:
    if body.tools:
        names = ", ".join(str(t.get("name", "?")) for t in body.tools)
        message = (
            f"front-end tools are not supported ({names}): the agent runs its own tools; "
            "send tools: []"
        )
        raise HTTPError(400, f"Invalid request: tools: {message}", issues=[issue("tools", message)])
    if body.resume:
        message = "this server's runs end without interrupts, so there is nothing to resume"
        raise HTTPError(
            400, f"Invalid request: resume: {message}", issues=[issue("resume", message)]
        )


def _new_messages(agent: Agent, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the run takes: every message, or with memory those after the last answer."""
    if not messages:
        raise HTTPError.invalid("messages", "at least one message is required")
    if agent.memory is None:
        return messages
    answered = (i for i, m in enumerate(messages) if m.get("role") in ("assistant", "tool"))
    last = max(answered, default=-1)
    return messages[last + 1 :] or messages[-1:]


def _options(state: ServerState, request: Request, agent: Agent, body: RunAgentBody) -> Any:
    resource = state.resource(request)  # the credential's; the body cannot name one
    options: dict[str, Any] = {
        "resource_id": resource,
        "run_id": body.runId,
        "release": "step",  # AG-UI cannot take text back (D31)
        "request_context": {
            AG_UI_CONTEXT_KEY: {"state": body.state, "forwardedProps": body.forwardedProps}
        },
    }
    if agent.memory is not None:
        options["thread_id"] = body.threadId
    if body.context:
        options["context"] = [
            {"role": "system", "content": f"{c.description}:\n{c.value}"} for c in body.context
        ]
    return options


async def run_ag_ui(request: Request) -> Any:
    """``POST /ag-ui/{agentId}``: run the agent on a ``RunAgentInput`` and answer its AG-UI
    event stream."""
    state = state_of(request)
    state.credential(request)  # 401 before anything else is looked at
    agent = state.agent(request.path_params["agentId"])
    body = parse_body(RunAgentBody, await read_json(request))
    _refuse_unsupported(body)
    messages = core_messages(_new_messages(agent, body.messages))
    if not messages:
        raise HTTPError.invalid("messages", "holds no user, assistant, tool or system message")
    options = _options(state, request, agent, body)
    run_id: str = options["run_id"]
    state.run_ids.claim(run_id, options["resource_id"])
    turn = thread_turn(agent, options, state.scaling.lock_timeout)
    try:
        await turn.__aenter__()
        try:
            run = agent.stream(messages, **options)  # options are checked now (D35)
        except BaseException:
            await turn.__aexit__(None, None, None)
            raise
    except ProcessionError as exc:
        state.run_ids.release(run_id)
        raise status_of(exc) from None
    except BaseException:
        state.run_ids.release(run_id)
        raise

    async def release() -> None:
        state.run_ids.release(run_id)
        await turn.__aexit__(None, None, None)

    encoder = AGUIEncoder(body.threadId, run_id)
    return StreamResponse(run, encoder.encode, encoder.close, HEADERS, release)
