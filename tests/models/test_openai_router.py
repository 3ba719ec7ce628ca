"""The router's openai, openai-responses and ollama entries, and the lazy SDK import."""

from __future__ import annotations

import subprocess
import sys

import pytest

from procession.errors import ConfigurationError
from procession.models import resolve_model
from procession.models.openai import OpenAIChatModel, OpenAIResponsesModel


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


def test_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        resolve_model("openai/gpt-5-mini")
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        resolve_model("openai-responses/gpt-5-mini")


@pytest.mark.asyncio
async def test_responses_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    model = resolve_model("openai-responses/gpt-5")
    assert isinstance(model, OpenAIResponsesModel)
    assert model.model_id == "gpt-5"
    await model.aclose()


@pytest.mark.asyncio
async def test_ollama_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    model = resolve_model("ollama/llama3.2")
    assert isinstance(model, OpenAIChatModel)
    assert model.provider == "ollama"
    assert str(model.client.base_url) == "http://localhost:11434/v1/"
    await model.aclose()
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:8080/v1")
    other = resolve_model("ollama/qwen3")
    assert isinstance(other, OpenAIChatModel)
    assert str(other.client.base_url) == "http://127.0.0.1:8080/v1/"
    await other.aclose()


def test_importing_procession_does_not_import_openai() -> None:
    code = (
        "import sys, procession, procession.models, procession.models.openai;"
        "print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
