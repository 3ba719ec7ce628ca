"""What every route reads: the served agents, memory, credentials and limits, and the
request's resource."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from starlette.requests import Request

from procession.agent import Agent
from procession.memory.memory import Memory
from procession.server.auth import Auth
from procession.server.config import DEFAULT_RESOURCE, ServerLimits
from procession.server.errors import HTTPError
from procession.server.params import check_json_depth
from procession.server.run_ids import LiveRunIds
from procession.server.scaling import Scaling

__all__ = ["ServerState", "read_json", "state_of"]


@dataclass(frozen=True, slots=True)
class ServerState:
    """The app's configuration, shared by its routes."""

    agents: Mapping[str, Agent]
    memory: Memory | None
    auth: Auth | None
    limits: ServerLimits
    expose_instructions: bool
    scaling: Scaling = field(default_factory=Scaling)
    allow_inspect: bool = False
    traces: Any = None
    """The trace store Studio reads runs from (a ``procession.tracing.TraceStore``), or
    ``None``."""
    run_ids: LiveRunIds = field(default_factory=LiveRunIds)
    """The run ids of the runs live in this process, by resource."""

    def agent(self, agent_id: str) -> Agent:
        """The agent served under ``agent_id``; 404 when there is none."""
        agent = self.agents.get(agent_id)
        if agent is None:
            raise HTTPError(404, f"Agent with id {agent_id} not found")
        return agent

    def credential(self, request: Request) -> str | None:
        """The resource of the request's credential; ``None`` without configured auth."""
        if self.auth is None:
            return None
        headers = request.headers
        return self.auth.resource_of(headers.get("authorization"), headers.get("x-api-key"))

    def resource(self, request: Request, *named: str | None) -> str:
        """The request's resource: its credential's, else the one its body or query names,
        else ``local``. A request naming a resource other than its credential's is 403."""
        credential = self.credential(request)
        names = {n for n in named if n is not None}
        if credential is not None:
            if names - {credential}:
                raise HTTPError(403, "The resource named in the request is not the caller's")
            return credential
        if len(names) > 1:
            raise HTTPError.invalid("resourceId", "the request names two different resources")
        return names.pop() if names else DEFAULT_RESOURCE

    def inspect(self, asked: bool | None) -> bool:
        """Whether a stream asked for processor notes (``inspect``) gets them; 403 when the
        server does not allow them (they show what processors removed, D31's held text
        included)."""
        if not asked:
            return False
        if not self.allow_inspect:
            raise HTTPError(
                403,
                "inspect is not allowed on this server: processor notes show what processors "
                "removed (create_app(allow_inspect=True) or procession serve --allow-inspect "
                "allows them)",
            )
        return True

    def memory_for(self, agent_id: str | None) -> Memory:
        """The memory the memory routes use: the agent's, else the app's (400 when none)."""
        memory: Any = self.memory
        if agent_id is not None:
            memory = self.agent(agent_id).memory or self.memory
        elif memory is None:
            found = {id(a.memory): a.memory for a in self.agents.values() if a.memory is not None}
            memory = next(iter(found.values())) if len(found) == 1 else None
        if memory is None:
            raise HTTPError(
                400, "Memory is not initialized: pass the agentId of an agent with memory"
            )
        if not isinstance(memory, Memory):
            raise HTTPError(400, "This agent's memory does not offer thread routes")
        return memory


def state_of(request: Request) -> ServerState:
    """The app's :class:`ServerState`."""
    state: ServerState = request.app.state.procession
    return state


async def read_json(request: Request) -> Any:
    """The request body as JSON (its size is bounded by the body limit); 422 when it is
    missing or not JSON."""
    body = await request.body()
    if not body.strip():
        raise HTTPError.invalid("body", "a JSON body is required")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise HTTPError.invalid("body", f"is not valid JSON: {exc}") from None
    return check_json_depth(data, "body")
