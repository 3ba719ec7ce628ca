"""Claude on Bedrock: the SDK's ``AsyncAnthropicBedrock`` against a loopback Bedrock endpoint.

The server speaks Bedrock's real wire protocol: ``/model/<id>/invoke-with-response-stream``,
SigV4-checked requests, and the AWS event-stream binary framing (decoded by botocore in the
SDK). Credentials come from the standard AWS environment variables.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from procession.errors import APICallError, ConfigurationError
from procession.models import ModelCallOptions, resolve_model
from procession.models.anthropic import AnthropicBedrockModel
from procession.testing import check_model
from tests.models.anthropic_server import text_reply, tool_reply
from tests.models.bedrock_server import bedrock_reply, exception_frame, verify_sigv4
from tests.models.scripted_server import Reply, ScriptedServer
from tests.models.wire_fixtures import anthropic_events

pytest.importorskip("anthropic")
pytest.importorskip("botocore")

USER = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}
MODEL = "anthropic.claude-test-v1:0"
ACCESS, SECRET, TOKEN = "AKIDLOOPBACKTEST0001", "loopback/secret/key/for/tests", "session-tok"


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """The same AWS credentials in every test (the SDK caches boto3 sessions), and nothing
    that could make boto3 look anywhere but the environment."""
    for name in ("AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK", "ANTHROPIC_BEDROCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_SESSION_TOKEN", TOKEN)
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))


@pytest_asyncio.fixture
async def server() -> AsyncIterator[ScriptedServer]:
    async with ScriptedServer() as scripted:
        yield scripted


@pytest_asyncio.fixture
async def model(server: ScriptedServer) -> AsyncIterator[AnthropicBedrockModel]:
    claude = AnthropicBedrockModel(MODEL, base_url=server.url)
    yield claude
    await claude.aclose()


async def collect(model: AnthropicBedrockModel) -> list[Any]:
    result = await model.do_stream(ModelCallOptions(prompt=[USER], settings={"temperature": 0}))
    return [chunk async for chunk in result.stream]


def payloads(chunks: list[Any], kind: str) -> list[dict[str, Any]]:
    return [c.payload for c in chunks if c.type == kind]


@pytest.mark.asyncio
async def test_signed_request_and_framed_stream(
    server: ScriptedServer, model: AnthropicBedrockModel
) -> None:
    # frames cut into 7-byte reads, so every frame straddles reads
    server.script(bedrock_reply(anthropic_events("anthropic/tool-use.sse"), split=7))
    chunks = await collect(model)
    assert payloads(chunks, "tool-call") == [
        {
            "toolCallId": "toolu_01WeatherLookup0000001",
            "toolName": "weather",
            "args": {"city": "Lisbon"},
        }
    ]
    assert "".join(p["text"] for p in payloads(chunks, "text-delta")) == "Let me look that up."
    assert chunks[-1].payload["stepResult"]["reason"] == "tool-calls"
    sent = server.requests[0]
    assert sent.path == f"/model/{MODEL}/invoke-with-response-stream"
    scope = verify_sigv4(sent, access_key=ACCESS, secret_key=SECRET, region="eu-west-3")
    assert scope.endswith("/eu-west-3/bedrock/aws4_request")
    assert sent.headers["x-amz-security-token"] == TOKEN
    assert "model" not in sent.body  # in the URL
    assert "stream" not in sent.body  # the endpoint streams
    assert sent.body["anthropic_version"]
    assert sent.body["temperature"] == 0


@pytest.mark.asyncio
async def test_truncated_tool_input_on_bedrock(
    server: ScriptedServer, model: AnthropicBedrockModel
) -> None:
    server.script(bedrock_reply(anthropic_events("anthropic/tool-use-max-tokens-block-stop.sse")))
    chunks = await collect(model)
    assert payloads(chunks, "tool-call") == []
    assert chunks[-1].payload["stepResult"]["reason"] == "length"


@pytest.mark.asyncio
async def test_exception_frame_mid_stream(
    server: ScriptedServer, model: AnthropicBedrockModel
) -> None:
    events = anthropic_events("anthropic/tool-use.sse")[:4]
    throttled = exception_frame("throttlingException", "Too many tokens, please wait.")
    server.script(bedrock_reply(events, extra_frames=[throttled]))
    result = await model.do_stream(ModelCallOptions(prompt=[USER]))
    seen: list[str] = []

    async def drain() -> None:
        async for chunk in result.stream:
            seen.append(chunk.type)

    with pytest.raises(APICallError) as caught:
        await drain()
    assert seen == ["response-metadata", "text-start", "text-delta"]
    error = caught.value
    assert (error.status_code, error.is_retryable) == (429, True)
    assert error.message == "Too many tokens, please wait."


@pytest.mark.asyncio
async def test_http_error_body(server: ScriptedServer, model: AnthropicBedrockModel) -> None:
    headers = {"x-amzn-errortype": "ValidationException:http://internal.amazon.com/coral/"}
    server.script(Reply(400, body={"message": "max_tokens: exceeds the limit"}, headers=headers))
    with pytest.raises(APICallError) as caught:
        await collect(model)
    error = caught.value
    assert (error.status_code, error.is_retryable) == (400, False)
    assert error.message == "max_tokens: exceeds the limit"
    assert str(error.url).endswith("/invoke-with-response-stream")
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_bedrock_api_key_is_a_bearer_token(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-1")
    server.script(bedrock_reply(anthropic_events("anthropic/tool-use.sse")))
    claude = AnthropicBedrockModel(MODEL, base_url=server.url)
    await collect(claude)
    await claude.aclose()
    assert server.requests[0].headers["authorization"] == "Bearer bedrock-api-key-1"


@pytest.mark.asyncio
async def test_passes_model_contract(server: ScriptedServer, model: AnthropicBedrockModel) -> None:
    def framed(reply: Reply, **kwargs: Any) -> Reply:
        return bedrock_reply([event.data for event in reply.events], **kwargs)

    server.script(
        framed(text_reply("Hello", "!")),
        framed(tool_reply("echo", ['{"text"', ': "hi"}'])),
        framed(text_reply(*["slow"] * 20), delay=0.05),
    )
    report = await check_model(model)
    assert report.text("text") == "Hello!"
    await asyncio.wait_for(server.disconnected.wait(), timeout=2)


def test_router_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", "http://127.0.0.1:9")
    model = resolve_model(f"anthropic-bedrock/{MODEL}")
    assert isinstance(model, AnthropicBedrockModel)
    assert (model.provider, model.model_id) == ("anthropic-bedrock", MODEL)
    assert str(model.client.base_url).startswith("http://127.0.0.1:9")
    assert model.client.aws_region == "eu-west-3"


def test_router_names_missing_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    with pytest.raises(ConfigurationError, match="AWS_REGION"):
        resolve_model(f"anthropic-bedrock/{MODEL}")
