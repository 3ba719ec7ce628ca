"""Gemini on Vertex AI: GoogleVertexModel against a loopback Vertex endpoint.

Checks the Vertex URL shape (project, location, publisher path), the OAuth bearer header
(a given token, or Application Default Credentials refreshed for real against a loopback
token endpoint), express mode with an API key, and the router id.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession.errors import APICallError, ConfigurationError
from procession.models import ModelCallOptions, resolve_model
from procession.models.google import GoogleVertexModel
from tests.models.gemini_server import text_reply
from tests.models.google_auth_server import ServiceAccount, token_reply, verify_assertion
from tests.models.scripted_server import Reply, ScriptedServer
from tests.models.wire_fixtures import fixture_reply

pytest.importorskip("httpx2")

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
PUBLISHER = "publishers/google/models/gemini-2.5-flash:streamGenerateContent"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "GOOGLE_VERTEX_PROJECT",
        "GOOGLE_CLOUD_PROJECT",
        "GOOGLE_VERTEX_LOCATION",
        "GOOGLE_CLOUD_LOCATION",
        "GOOGLE_VERTEX_API_KEY",
        "GOOGLE_VERTEX_BASE_URL",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # never probe the metadata server


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


async def collect(model: GoogleVertexModel, **options: Any) -> list[Any]:
    options.setdefault("prompt", [USER])
    try:
        result = await model.do_stream(ModelCallOptions(**options))
        return [chunk async for chunk in result.stream]
    finally:
        await model.aclose()


@pytest.mark.asyncio
async def test_url_shape_and_bearer_token(server: ScriptedServer) -> None:
    server.script(text_reply("Hel", "lo"))
    model = GoogleVertexModel(
        "gemini-2.5-flash",
        project="proj-1",
        location="europe-west4",
        access_token="ya29.given",
        base_url=f"{server.url}/v1",
    )
    chunks = await collect(model)
    assert "".join(c.payload["text"] for c in chunks if c.type == "text-delta") == "Hello"
    sent = server.requests[0]
    assert sent.path == f"/v1/projects/proj-1/locations/europe-west4/{PUBLISHER}"
    assert sent.query == {"alt": ["sse"]}
    assert sent.headers["authorization"] == "Bearer ya29.given"
    assert "x-goog-api-key" not in sent.headers


@pytest.mark.asyncio
async def test_tool_call_ids_stay_off_the_vertex_wire(server: ScriptedServer) -> None:
    server.script(text_reply("ok"))
    prompt = [
        USER,
        {
            "role": "assistant",
            "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {}}],
        },
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": "c1",
                    "toolName": "f",
                    "output": {"type": "json", "value": {"x": 1}},
                }
            ],
        },
    ]
    model = GoogleVertexModel(
        "gemini-2.5-flash", project="p", access_token="t", base_url=f"{server.url}/v1"
    )
    await collect(model, prompt=prompt)
    contents = server.requests[0].body["contents"]
    assert contents[1]["parts"] == [{"functionCall": {"name": "f", "args": {}}}]
    assert contents[2]["parts"] == [{"functionResponse": {"name": "f", "response": {"x": 1}}}]


@pytest.mark.asyncio
async def test_application_default_credentials(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = ServiceAccount(tmp_path, f"{server.url}/token", project="proj-adc")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(account.path))
    server.script(token_reply("ya29.adc"), text_reply("one"), text_reply("two"))
    model = GoogleVertexModel("gemini-2.5-flash", base_url=f"{server.url}/v1")
    for _ in range(2):  # the token is fetched once and reused while valid
        result = await model.do_stream(ModelCallOptions(prompt=[USER]))
        [_ async for _ in result.stream]
    await model.aclose()
    token_request, first, second = server.requests
    verify_assertion(token_request, account)
    assert first.path == f"/v1/projects/proj-adc/locations/global/{PUBLISHER}"
    assert first.headers["authorization"] == second.headers["authorization"] == "Bearer ya29.adc"


@pytest.mark.asyncio
async def test_token_endpoint_failure_is_an_api_call_error(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = ServiceAccount(tmp_path, f"{server.url}/token")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(account.path))
    server.script(Reply(400, body={"error": "invalid_grant", "error_description": "bad key"}))
    model = GoogleVertexModel("gemini-2.5-flash", project="p", base_url=f"{server.url}/v1")
    with pytest.raises(APICallError, match="could not refresh the access token"):
        await collect(model)
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_missing_credentials_name_the_variable(tmp_path: Path) -> None:
    model = GoogleVertexModel("gemini-2.5-flash", project="p", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigurationError, match="GOOGLE_APPLICATION_CREDENTIALS"):
        await collect(model)


@pytest.mark.asyncio
async def test_express_mode_api_key(server: ScriptedServer) -> None:
    server.script(fixture_reply("google/prompt-blocked.sse"))
    model = GoogleVertexModel("gemini-2.5-flash", api_key="vx-key", base_url=f"{server.url}/v1")
    chunks = await collect(model)
    assert chunks[-1].payload["stepResult"]["reason"] == "content-filter"
    sent = server.requests[0]
    assert sent.path == f"/v1/{PUBLISHER}"
    assert sent.headers["x-goog-api-key"] == "vx-key"
    assert "authorization" not in sent.headers


def test_default_endpoints() -> None:
    regional = GoogleVertexModel("gemini-2.5-flash", project="p", location="us-central1")
    assert regional.endpoint() == (
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/"
        + PUBLISHER
    )
    assert (
        GoogleVertexModel("gemini-2.5-flash", project="p")
        .endpoint()
        .startswith("https://aiplatform.googleapis.com/v1/projects/p/locations/global/")
    )


def test_router_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj-env")
    monkeypatch.setenv("GOOGLE_VERTEX_LOCATION", "asia-northeast1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", "http://127.0.0.1:9/v1")
    model = resolve_model("google-vertex/gemini-2.5-flash")
    assert isinstance(model, GoogleVertexModel)
    assert (model.provider, model.model_id) == ("google-vertex", "gemini-2.5-flash")
    assert model.endpoint() == (
        f"http://127.0.0.1:9/v1/projects/proj-env/locations/asia-northeast1/{PUBLISHER}"
    )


def test_router_express_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_VERTEX_API_KEY", "vx")
    model = resolve_model("google-vertex/gemini-2.5-flash")
    assert isinstance(model, GoogleVertexModel)
    assert model.endpoint() == f"https://aiplatform.googleapis.com/v1/{PUBLISHER}"
