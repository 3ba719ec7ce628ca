"""The A2A agent card of a served agent: who it is, where to call it, how to authenticate.

The card never holds the agent's instructions (its system prompt). Its URL is the app's own,
computed from the request (scheme, ``Host`` — checked against the allowed hosts — and the
mount path), so a card is right wherever the app is mounted. A request with
``A2A-Version: 1.0`` (``a2a-sdk``'s client, ``@mastra/client-js``'s ``getA2AV1``) gets the
1.0 card; any other gets the 0.3 card Mastra serves, which lists the same interfaces, so a
1.0 client handed the 0.3 card still picks the 1.0 interface.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request

from procession._version import __version__
from procession.agent import Agent
from procession.server.auth import Auth

__all__ = ["agent_card", "rpc_url"]

_MODES = ["text/plain", "application/json"]


def rpc_url(request: Request, agent_id: str) -> str:
    """The JSON-RPC endpoint of ``agent_id`` under the app's mount path."""
    return str(request.base_url).rstrip("/") + "/api/a2a/" + quote(agent_id, safe="")


def _skills(agent: Agent) -> list[dict[str, Any]]:
    """A skill per tool, or one skill, the agent itself, when it has none."""
    if agent.tools:
        return [
            {
                "id": name,
                "name": name,
                "description": tool.description or f"Tool {name}",
                "tags": ["tool"],
            }
            for name, tool in agent.tools.items()
        ]
    name = agent.name or agent.id
    return [
        {
            "id": agent.id,
            "name": name,
            "description": agent.description or f"Talk to {name}",
            "tags": ["chat"],
        }
    ]


def _schemes(auth: Auth, legacy: bool) -> tuple[dict[str, Any], list[str]]:
    """The security schemes of the app's credentials (0.3's or 1.0's shape) and their names."""
    bearer: dict[str, Any] = {"scheme": "bearer", "description": "An API key or a JWT"}
    if auth.jwt is not None:
        bearer["bearerFormat"] = "JWT"
    api_key = {"location": "header", "name": "X-API-Key", "description": "An API key"}
    if legacy:
        schemes: dict[str, Any] = {"bearer": {"type": "http", **bearer}}
        schemes["apiKey"] = {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    else:
        schemes = {
            "bearer": {"httpAuthSecurityScheme": bearer},
            "apiKey": {"apiKeySecurityScheme": api_key},
        }
    return schemes, list(schemes)


def agent_card(
    request: Request, agent_id: str, agent: Agent, auth: Auth | None, version: str
) -> Any:
    """The card of ``agent`` served as ``agent_id``, in ``version``'s shape (``1.0`` or
    ``0.3``)."""
    url = rpc_url(request, agent_id)
    legacy = version != "1.0"
    card: dict[str, Any] = {
        "name": agent.name or agent_id,
        "description": agent.description or f"The {agent.name or agent_id} agent",
        "version": __version__,
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "capabilities": {"streaming": True, "pushNotifications": False},
        "defaultInputModes": _MODES,
        "defaultOutputModes": ["text/plain"],
        "skills": _skills(agent),
    }
    if legacy:
        card |= {"url": url, "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0"}
        card["supportsAuthenticatedExtendedCard"] = False
    if auth is not None:
        schemes, names = _schemes(auth, legacy)
        card["securitySchemes"] = schemes
        if legacy:
            card["security"] = [{name: []} for name in names]
        else:
            card["securityRequirements"] = [{"schemes": {name: {"list": []}}} for name in names]
    return card
