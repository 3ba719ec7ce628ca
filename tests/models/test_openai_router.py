"""The router's OpenAI-family ids: keys and base URLs from the environment, each provider's
request dialect on the wire, Azure's deployment URLs, and the lazy SDK import."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from procession.errors import ConfigurationError
from procession.models import resolve_model
from procession.models.base import ModelCallOptions, ToolDefinition
from procession.models.openai import (
    COMPATIBLE_PROVIDERS,
    MISTRAL,
    OpenAIChatModel,
    OpenAIResponsesModel,
)
from procession.models.openai.chat_stream import short_call_id
from procession.models.providers import BUILTIN_PROVIDERS
from tests.models.helpers import HELLO, drain
from tests.models.openai_server import (
    OpenAIServer,
    RecordedRequest,
    chat_chunk,
    chat_stream,
    fixture_reply,
)

KEYED = sorted(name for name, spec in COMPATIBLE_PROVIDERS.items() if spec.api_key_env)
ECHO: ToolDefinition = {
    "type": "function",
    "name": "echo",
    "description": "Echo.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}
SETTINGS = ModelCallOptions(
    prompt=HELLO,
    tools=[ECHO],
    tool_choice={"type": "required"},
    settings={"seed": 7, "max_output_tokens": 64},
)


@pytest_asyncio.fixture
async def router_env(
    server: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[OpenAIServer]:
    """Every provider's key set and base URL pointed at the loopback server."""
    for spec in COMPATIBLE_PROVIDERS.values():
        monkeypatch.setenv(spec.base_url_env, server.base_url)
        if spec.api_key_env:
            monkeypatch.setenv(spec.api_key_env, f"key-{spec.name}")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "key-azure")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", f"http://127.0.0.1:{server.port}")
    for name in ("AZURE_OPENAI_API_VERSION", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    yield server


async def _one_call(model_id: str, server: OpenAIServer) -> RecordedRequest:
    model = resolve_model(model_id)
    assert isinstance(model, OpenAIChatModel | OpenAIResponsesModel)
    try:
        chunks = await drain(await model.do_stream(SETTINGS))
    finally:
        await model.aclose()
    assert chunks[-1].type == "finish"
    return server.requests[-1]


def test_every_compatible_provider_is_a_router_id() -> None:
    for name in [*COMPATIBLE_PROVIDERS, "azure", "azure-responses", "openai", "openai-responses"]:
        assert name in BUILTIN_PROVIDERS


@pytest.mark.parametrize("name", KEYED)
@pytest.mark.asyncio
async def test_keyed_provider_on_its_base_url(name: str, router_env: OpenAIServer) -> None:
    request = await _one_call(f"{name}/some-model", router_env)
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer key-{name}"
    body = request.body
    assert body["model"] == "some-model"
    assert body["max_tokens"] == 64
    assert "max_completion_tokens" not in body
    if name == "mistral":  # D35-style dialect differences, on the wire
        assert body["random_seed"] == 7
        assert "seed" not in body
        assert body["tool_choice"] == "any"
        assert "stream_options" not in body
    else:
        assert body["seed"] == 7
        assert body["tool_choice"] == "required"
        assert body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("name", KEYED)
def test_missing_key_names_the_variable_once(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    variable = COMPATIBLE_PROVIDERS[name].api_key_env
    assert variable is not None
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ConfigurationError) as caught:
        resolve_model(f"{name}/m")
    assert str(caught.value).count(variable) == 1


@pytest.mark.asyncio
async def test_default_base_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    expected = {
        "openrouter": "https://openrouter.ai/api/v1/",
        "groq": "https://api.groq.com/openai/v1/",
        "mistral": "https://api.mistral.ai/v1/",
        "deepseek": "https://api.deepseek.com/v1/",
        "xai": "https://api.x.ai/v1/",
        "together": "https://api.together.xyz/v1/",
        "fireworks": "https://api.fireworks.ai/inference/v1/",
        "ollama": "http://127.0.0.1:11434/v1/",
    }
    for name, url in expected.items():
        spec = COMPATIBLE_PROVIDERS[name]
        monkeypatch.delenv(spec.base_url_env, raising=False)
        if spec.api_key_env:
            monkeypatch.setenv(spec.api_key_env, "k")
        model = resolve_model(f"{name}/m")
        assert isinstance(model, OpenAIChatModel)
        assert (model.provider, str(model.client.base_url)) == (name, url)
        assert model.client.max_retries == 0
        await model.aclose()


@pytest.mark.asyncio
async def test_ollama_needs_no_key(
    router_env: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    request = await _one_call("ollama/qwen3", router_env)
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "qwen3"


@pytest.mark.asyncio
async def test_fireworks_model_ids_keep_their_slashes(router_env: OpenAIServer) -> None:
    request = await _one_call("fireworks/accounts/fireworks/models/llama-v3p3-70b", router_env)
    assert request.body["model"] == "accounts/fireworks/models/llama-v3p3-70b"


@pytest.mark.asyncio
async def test_mistral_generated_call_ids_are_nine_alphanumerics(router_env: OpenAIServer) -> None:
    router_env.reply(
        chat_stream(
            chat_chunk({"tool_calls": [{"function": {"name": "echo", "arguments": "{}"}}]}),
            chat_chunk({}, "tool_calls"),
        )
    )
    model = resolve_model("mistral/mistral-small-latest")
    assert isinstance(model, OpenAIChatModel)
    assert model.dialect == MISTRAL
    chunks = await drain(await model.do_stream(SETTINGS))
    await model.aclose()
    (call,) = [c.payload for c in chunks if c.type == "tool-call"]
    assert len(call["toolCallId"]) == 9
    assert call["toolCallId"].isalnum()
    assert all(short_call_id().isalnum() and len(short_call_id()) == 9 for _ in range(20))


@pytest.mark.asyncio
async def test_azure_deployment_url_api_version_and_api_key_header(
    router_env: OpenAIServer,
) -> None:
    router_env.reply(fixture_reply("azure-chat-filters.sse"))
    request = await _one_call("azure/my-gpt5", router_env)
    assert request.path == "/openai/deployments/my-gpt5/chat/completions?api-version=2024-10-21"
    assert request.headers["api-key"] == "key-azure"
    assert request.body["max_completion_tokens"] == 64  # Azure speaks OpenAI's dialect


@pytest.mark.asyncio
async def test_azure_api_version_from_the_environment(
    router_env: OpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_VERSION", "2025-01-01-preview")
    request = await _one_call("azure/dep", router_env)
    assert request.path.endswith("?api-version=2025-01-01-preview")


@pytest.mark.asyncio
async def test_azure_responses(router_env: OpenAIServer) -> None:
    request = await _one_call("azure-responses/my-gpt5", router_env)
    assert request.path == "/openai/responses?api-version=2025-04-01-preview"
    assert request.headers["api-key"] == "key-azure"
    assert request.body["model"] == "my-gpt5"


@pytest.mark.parametrize(
    ("unset", "model_id"),
    [("AZURE_OPENAI_API_KEY", "azure/d"), ("AZURE_OPENAI_ENDPOINT", "azure-responses/d")],
)
def test_azure_missing_variables(
    unset: str, model_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.delenv(unset)
    with pytest.raises(ConfigurationError) as caught:
        resolve_model(model_id)
    assert str(caught.value).count(unset) == 1


@pytest.mark.asyncio
async def test_openai_id_reads_key_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    model = resolve_model("openai/gpt-5-mini")
    assert isinstance(model, OpenAIChatModel)
    assert (model.provider, model.model_id) == ("openai", "gpt-5-mini")
    assert model.client.api_key == "sk-env"
    assert str(model.client.base_url) == "http://127.0.0.1:9/v1/"
    assert model.client.max_retries == 0
    await model.aclose()


def test_missing_openai_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for model_id in ("openai/gpt-5-mini", "openai-responses/gpt-5-mini"):
        with pytest.raises(ConfigurationError) as caught:
            resolve_model(model_id)
        assert str(caught.value).count("OPENAI_API_KEY") == 1


@pytest.mark.asyncio
async def test_responses_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = resolve_model("openai-responses/gpt-5")
    assert isinstance(model, OpenAIResponsesModel)
    assert model.model_id == "gpt-5"
    await model.aclose()


@pytest.mark.parametrize("bad", ["", None, 3])
def test_constructor_arguments_are_checked(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="model_id"):
        OpenAIChatModel(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="provider"):
        OpenAIResponsesModel("m", provider=bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="dialect"):
        OpenAIChatModel("m", dialect="mistral")  # type: ignore[arg-type]


def test_client_and_factory_together_are_refused() -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigurationError, match="client_factory"):
        OpenAIChatModel("m", client=client, client_factory=lambda: client)


def test_importing_procession_does_not_import_openai() -> None:
    code = (
        "import sys, procession, procession.models, procession.models.openai;"
        "print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
