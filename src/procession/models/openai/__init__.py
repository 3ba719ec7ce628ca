"""OpenAI adapters: Chat Completions (OpenAI and any compatible server) and Responses.

The ``openai`` package (the ``procession[openai]`` extra) is imported only when a model
first makes its client. Router entries (see :mod:`procession.models.providers`):

* ``"openai/<model>"`` -> :func:`chat_model_from_id` (``OPENAI_API_KEY``, optional
  ``OPENAI_BASE_URL``);
* ``"openai-responses/<model>"`` -> :func:`responses_model_from_id` (the same variables);
* ``"ollama/<model>"`` -> :func:`ollama_model_from_id` (``OLLAMA_BASE_URL``, default
  ``http://localhost:11434/v1``; no key).
"""

from __future__ import annotations

import os

from procession.errors import ConfigurationError
from procession.models.openai.chat import OpenAIChatModel
from procession.models.openai.responses import OpenAIResponsesModel

__all__ = [
    "DEFAULT_OLLAMA_BASE_URL",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "chat_model_from_id",
    "ollama_model_from_id",
    "responses_model_from_id",
]

DEFAULT_OLLAMA_BASE_URL = "http://localhost:11434/v1"


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
    """The router's ``ollama/<model_id>``: Ollama's OpenAI-compatible endpoint."""
    base_url = os.environ.get("OLLAMA_BASE_URL") or DEFAULT_OLLAMA_BASE_URL
    return OpenAIChatModel(model_id, api_key="ollama", base_url=base_url, provider="ollama")
