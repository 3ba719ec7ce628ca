"""The OpenAPI document lists the OpenAI-compatible routes under their own tag, with OpenAI's
error shape and the event stream of ``stream: true`` (issue 26)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2 as httpx

from procession.server import Auth, create_app
from procession.server.openai_compat import OPENAI_ROUTES
from tests.server.conftest import scripted_agent


def _document(**options: Any) -> dict[str, Any]:
    """The served document of an app (fetched in-process)."""
    app = create_app(scripted_agent("support"), **options)

    async def fetch() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            document: dict[str, Any] = (await c.get("/api/openapi.json")).json()
            return document

    return asyncio.run(fetch())


def test_every_openai_route_is_in_the_document_under_its_tag() -> None:
    document = _document(auth=Auth(api_keys={"sk-0123456789abcdef": "ada"}))
    for route in OPENAI_ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        assert operation["tags"] == ["OpenAI"]
        assert "401" in operation["responses"]
        assert "422" not in operation["responses"]  # a malformed body is OpenAI's 400
        for status, answer in operation["responses"].items():
            if status != "200":
                schema = answer["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/OpenAIError"}, status
    chat = document["paths"]["/v1/chat/completions"]["post"]["responses"]["200"]["content"]
    assert set(chat) == {"application/json", "text/event-stream"}
    error = document["components"]["schemas"]["OpenAIError"]["properties"]["error"]
    assert error["required"] == ["message", "type", "param", "code"]
    models = document["paths"]["/v1/models/{agentId}"]["get"]["parameters"]
    assert models[0]["schema"]["enum"] == ["support"]


def test_mastra_s_routes_keep_their_error_shape() -> None:
    document = _document()
    answer = document["paths"]["/api/agents/{agentId}"]["get"]["responses"]["404"]
    assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
