"""OpenAI adapters: Chat Completions (OpenAI and any compatible server) and Responses.

The ``openai`` package (the ``procession[openai]`` extra) is imported only when a model
first makes its client. Router entries (see :mod:`procession.models.providers` and
``docs/providers.md``):

* ``"openai/<model>"`` -> :func:`chat_model_from_id` (``OPENAI_API_KEY``, optional
  ``OPENAI_BASE_URL``);
* ``"openai-responses/<model>"`` -> :func:`responses_model_from_id` (the same variables);
* ``"openrouter/…"``, ``"groq/…"``, ``"mistral/…"``, ``"deepseek/…"``, ``"xai/…"``,
  ``"together/…"``, ``"fireworks/…"`` and ``"ollama/…"`` -> :func:`compatible_model_from_id`
  (:data:`COMPATIBLE_PROVIDERS`: each provider's key and base-URL variables);
* ``"azure/<deployment>"`` and ``"azure-responses/<deployment>"`` -> Azure OpenAI.
"""

from __future__ import annotations

import os

from procession.errors import ConfigurationError
from procession.models.openai.chat import OpenAIChatModel
from procession.models.openai.compatible import (
    AZURE_API_VERSION,
    AZURE_RESPONSES_API_VERSION,
    COMPATIBLE_PROVIDERS,
    CompatibleProvider,
    azure_model_from_id,
    azure_responses_model_from_id,
    compatible_model_from_id,
)
from procession.models.openai.dialect import COMPATIBLE, MISTRAL, OLLAMA, OPENAI, ChatDialect
from procession.models.openai.responses import OpenAIResponsesModel

__all__ = [
    "AZURE_API_VERSION",
    "AZURE_RESPONSES_API_VERSION",
    "COMPATIBLE",
    "COMPATIBLE_PROVIDERS",
    "DEFAULT_OLLAMA_BASE_URL",
    "MISTRAL",
    "OLLAMA",
    "OPENAI",
    "ChatDialect",
    "CompatibleProvider",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "azure_model_from_id",
    "azure_responses_model_from_id",
    "chat_model_from_id",
    "compatible_model_from_id",
    "ollama_model_from_id",
    "responses_model_from_id",
]

DEFAULT_OLLAMA_BASE_URL = COMPATIBLE_PROVIDERS["ollama"].base_url
"""Where ``ollama/...`` models are served unless ``OLLAMA_BASE_URL`` says otherwise."""


def _openai_env() -> tuple[str, str | None]:
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        raise ConfigurationError(
            "OPENAI_API_KEY is not set: export it, or build the model yourself with "
            "OpenAIChatModel(model_id, api_key=...)"
        )
    return key, os.environ.get("OPENAI_BASE_URL") or None


def chat_model_from_id(model_id: str) -> OpenAIChatModel:
    """The router's ``openai/<model_id>``: Chat Completions with keys from the environment."""
    key, base_url = _openai_env()
    return OpenAIChatModel(model_id, api_key=key, base_url=base_url)


def responses_model_from_id(model_id: str) -> OpenAIResponsesModel:
    """The router's ``openai-responses/<model_id>``: the Responses API."""
    key, base_url = _openai_env()
    return OpenAIResponsesModel(model_id, api_key=key, base_url=base_url)


def ollama_model_from_id(model_id: str) -> OpenAIChatModel:
    """The router's ``ollama/<model_id>``: Ollama's OpenAI-compatible endpoint (no key;
    ``OLLAMA_BASE_URL``, default ``http://127.0.0.1:11434/v1``)."""
    return compatible_model_from_id("ollama", model_id)
