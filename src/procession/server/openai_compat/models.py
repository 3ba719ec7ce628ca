"""``GET /v1/models`` and ``GET /v1/models/{agentId}``: the served agents as models."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from procession.server.encoding import dumps
from procession.server.openai_compat.errors import openai_endpoint
from procession.server.openai_compat.run import agent_of
from procession.server.state import state_of

__all__ = ["get_model", "list_models"]

_STARTED = int(time.time())
"""``created`` of every model: when the server started."""


def _model(agent_id: str) -> dict[str, Any]:
    return {"id": agent_id, "object": "model", "created": _STARTED, "owned_by": "procession"}


def _json(body: Any) -> Response:
    return Response(dumps(body), media_type="application/json")


@openai_endpoint
async def list_models(request: Request) -> Response:
    """``GET /v1/models``: every served agent, as OpenAI lists models."""
    state = state_of(request)
    state.credential(request)
    return _json({"object": "list", "data": [_model(agent_id) for agent_id in state.agents]})


@openai_endpoint
async def get_model(request: Request) -> Response:
    """``GET /v1/models/{agentId}``: one agent; 404 ``model_not_found`` for another id."""
    state = state_of(request)
    state.credential(request)
    agent_id: str = request.path_params["agentId"]
    agent_of(state, agent_id)
    return _json(_model(agent_id))
