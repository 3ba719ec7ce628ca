"""Claude on Vertex AI: the SDK's ``AsyncAnthropicVertex`` against a loopback Vertex endpoint.

Requests go to ``/v1/projects/<p>/locations/<l>/publishers/anthropic/models/<id>:streamRawPredict``
with a Google OAuth bearer token: a given token, or one that Application Default Credentials
(a service-account file whose token endpoint is the loopback server) obtain for real.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from procession.errors import APICallError, ConfigurationError
from procession.models import ModelCallOptions, resolve_model
from procession.models.anthropic import AnthropicVertexModel
from tests.models.google_auth_server import ServiceAccount, token_reply, verify_assertion
from tests.models.scripted_server import ScriptedServer
from tests.models.wire_fixtures import fixture_reply, fixture_text

pytest.importorskip("anthropic")
pytest.importorskip("google.auth")

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
MODEL = "claude-test-1@20260101"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "CLOUD_ML_REGION",
        "ANTHROPIC_VERTEX_PROJECT_ID",
        "ANTHROPIC_VERTEX_BASE_URL",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_GCE_CHECK", "True")  # never probe the metadata server


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


async def collect(model: AnthropicVertexModel) -> list[Any]:
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    chunks = [chunk async for chunk in result.stream]
    await model.aclose()
    return chunks


@pytest.mark.asyncio
async def test_url_shape_and_bearer_token(server: ScriptedServer) -> None:
    server.script(fixture_reply("anthropic/refusal-stop-details.sse"))
    claude = AnthropicVertexModel(
        MODEL,
        region="us-east5",
        project_id="proj-1",
        access_token="ya29.given",
        base_url=f"{server.url}/v1",
    )
    chunks = await collect(claude)
    finish = chunks[-1].payload
    assert finish["stepResult"]["reason"] == "content-filter"
    assert finish["providerMetadata"]["anthropic"]["stopDetails"]["category"] == "cyber"
    sent = server.requests[0]
    expected = f"/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/{MODEL}"
    assert sent.path == f"{expected}:streamRawPredict"
    assert sent.headers["authorization"] == "Bearer ya29.given"
    assert sent.body["anthropic_version"]
    assert "model" not in sent.body
    assert sent.body["stream"] is True


@pytest.mark.asyncio
async def test_application_default_credentials(
    server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = ServiceAccount(tmp_path, f"{server.url}/token")
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(account.path))
    server.script(token_reply("ya29.from-adc"), fixture_reply("anthropic/tool-use.sse"))
    claude = AnthropicVertexModel(MODEL, region="global", base_url=f"{server.url}/v1")
    chunks = await collect(claude)
    assert [c.payload["args"] for c in chunks if c.type == "tool-call"] == [{"city": "Lisbon"}]
    token_request, call = server.requests
    assert token_request.path == "/token"
    verify_assertion(token_request, account)
    assert call.headers["authorization"] == "Bearer ya29.from-adc"
    assert call.path.startswith("/v1/projects/proj-from-adc/locations/global/")


@pytest.mark.asyncio
async def test_quota_error_carries_the_retry_delay(server: ScriptedServer) -> None:
    server.script(fixture_reply("google/429-retry-info.json", status=429))
    claude = AnthropicVertexModel(
        MODEL, region="us-east5", project_id="p", access_token="t", base_url=f"{server.url}/v1"
    )
    with pytest.raises(APICallError) as caught:
        await collect(claude)
    await claude.aclose()
    error = caught.value
    assert (error.status_code, error.is_retryable) == (429, True)
    assert error.retry_after == 21.7
    assert error.message.startswith("You exceeded your current quota")
    assert error.response_body is not None
    assert "RetryInfo" in error.response_body
    assert fixture_text("google/429-retry-info.json")


def test_router_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUD_ML_REGION", "europe-west1")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj-env")
    monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", "http://127.0.0.1:9/v1")
    model = resolve_model(f"anthropic-vertex/{MODEL}")
    assert isinstance(model, AnthropicVertexModel)
    assert (model.provider, model.model_id) == ("anthropic-vertex", MODEL)
    assert (model.client.region, model.client.project_id) == ("europe-west1", "proj-env")
    assert str(model.client.base_url).startswith("http://127.0.0.1:9/v1")


def test_router_names_missing_region() -> None:
    with pytest.raises(ConfigurationError, match="CLOUD_ML_REGION"):
        resolve_model(f"anthropic-vertex/{MODEL}")
