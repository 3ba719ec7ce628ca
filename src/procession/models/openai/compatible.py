"""The OpenAI-compatible providers of the model router: base URLs, keys and dialects.

Each provider in :data:`COMPATIBLE_PROVIDERS` answers ``"<name>/<model>"`` ids with an
:class:`~procession.models.openai.OpenAIChatModel` on its base URL, its API key read from its
environment variable, and the :class:`~procession.models.openai.ChatDialect` it speaks. Every
base URL can be replaced through an environment variable (tests point them at loopback).
Azure OpenAI (``azure/<deployment>``, ``azure-responses/<deployment>``) uses the SDK's own
``AsyncAzureOpenAI``: deployment URLs, ``api-version`` and the ``api-key`` header.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from procession.errors import ConfigurationError
from procession.models.openai.chat import OpenAIChatModel
from procession.models.openai.common import import_openai
from procession.models.openai.dialect import COMPATIBLE, MISTRAL, OLLAMA, OPENAI, ChatDialect
from procession.models.openai.responses import OpenAIResponsesModel

if TYPE_CHECKING:
    from openai import AsyncAzureOpenAI

__all__ = [
    "AZURE_API_VERSION",
    "AZURE_RESPONSES_API_VERSION",
    "COMPATIBLE_PROVIDERS",
    "CompatibleProvider",
    "azure_model_from_id",
    "azure_responses_model_from_id",
    "compatible_model_from_id",
]


@dataclass(frozen=True, slots=True)
class CompatibleProvider:
    """An OpenAI-compatible Chat Completions provider the router knows by name.

    Attributes:
        name: The router prefix and the model's ``provider`` (``"groq"``).
        base_url: The API root used when ``base_url_env`` is unset.
        base_url_env: The environment variable that replaces ``base_url``.
        api_key_env: The environment variable holding the API key; ``None`` for a server
            that needs none (Ollama).
        dialect: How the server differs from OpenAI's API.
        headers: Headers sent with every request.
    """

    name: str
    base_url: str
    base_url_env: str
    api_key_env: str | None
    dialect: ChatDialect = COMPATIBLE
    headers: Mapping[str, str] = field(default_factory=dict)


COMPATIBLE_PROVIDERS: Mapping[str, CompatibleProvider] = {
    provider.name: provider
    for provider in (
        CompatibleProvider(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_BASE_URL",
            "OPENROUTER_API_KEY",
        ),
        CompatibleProvider(
            "groq", "https://api.groq.com/openai/v1", "GROQ_BASE_URL", "GROQ_API_KEY"
        ),
        CompatibleProvider(
            "mistral", "https://api.mistral.ai/v1", "MISTRAL_BASE_URL", "MISTRAL_API_KEY", MISTRAL
        ),
        CompatibleProvider(
            "deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_BASE_URL", "DEEPSEEK_API_KEY"
        ),
        CompatibleProvider("xai", "https://api.x.ai/v1", "XAI_BASE_URL", "XAI_API_KEY"),
        CompatibleProvider(
            "together", "https://api.together.xyz/v1", "TOGETHER_BASE_URL", "TOGETHER_API_KEY"
        ),
        CompatibleProvider(
            "fireworks",
            "https://api.fireworks.ai/inference/v1",
            "FIREWORKS_BASE_URL",
            "FIREWORKS_API_KEY",
        ),
        CompatibleProvider(
            "ollama", "http://127.0.0.1:11434/v1", "OLLAMA_BASE_URL", None, dialect=OLLAMA
        ),
    )
}
"""The OpenAI-compatible providers by router name."""

AZURE_API_VERSION = "2024-10-21"
"""The Azure OpenAI ``api-version`` for chat completions unless ``AZURE_OPENAI_API_VERSION``
(or the SDK's ``OPENAI_API_VERSION``) says otherwise."""

AZURE_RESPONSES_API_VERSION = "2025-04-01-preview"
"""The ``api-version`` for the Responses API on Azure (the GA chat version lacks it)."""


def compatible_model_from_id(provider: str, model_id: str) -> OpenAIChatModel:
    """The router's ``"<provider>/<model_id>"`` for a provider of
    :data:`COMPATIBLE_PROVIDERS`: its key and base URL from the environment."""
    spec = COMPATIBLE_PROVIDERS.get(provider)
    if spec is None:
        known = ", ".join(sorted(COMPATIBLE_PROVIDERS))
        raise ConfigurationError(f"provider: unknown {provider!r} (known: {known})")
    # A server that needs no key still gets one: the SDK refuses to run without.
    api_key = _required_env(spec.api_key_env) if spec.api_key_env else spec.name
    return OpenAIChatModel(
        model_id,
        api_key=api_key,
        base_url=os.environ.get(spec.base_url_env) or spec.base_url,
        provider=spec.name,
        headers=spec.headers,
        dialect=spec.dialect,
    )


def azure_model_from_id(deployment: str) -> OpenAIChatModel:
    """The router's ``azure/<deployment>``: chat completions on an Azure OpenAI deployment
    (``AZURE_OPENAI_API_KEY``, ``AZURE_OPENAI_ENDPOINT``, optional
    ``AZURE_OPENAI_API_VERSION``)."""
    key, endpoint, version = _azure_env(AZURE_API_VERSION)
    return OpenAIChatModel(
        deployment,
        provider="azure",
        dialect=OPENAI,
        client_factory=lambda: _azure_client(key, endpoint, version),
    )


def azure_responses_model_from_id(deployment: str) -> OpenAIResponsesModel:
    """The router's ``azure-responses/<deployment>``: the Responses API on Azure OpenAI."""
    key, endpoint, version = _azure_env(AZURE_RESPONSES_API_VERSION)
    return OpenAIResponsesModel(
        deployment,
        provider="azure",
        client_factory=lambda: _azure_client(key, endpoint, version),
    )


def _azure_env(default_version: str) -> tuple[str, str, str]:
    key = _required_env("AZURE_OPENAI_API_KEY")
    endpoint = _required_env("AZURE_OPENAI_ENDPOINT", "https://<resource>.openai.azure.com")
    version = (
        os.environ.get("AZURE_OPENAI_API_VERSION")
        or os.environ.get("OPENAI_API_VERSION")
        or default_version
    )
    return key, endpoint, version


def _azure_client(key: str, endpoint: str, version: str) -> AsyncAzureOpenAI:
    openai = import_openai()
    client: AsyncAzureOpenAI = openai.AsyncAzureOpenAI(
        api_key=key, azure_endpoint=endpoint, api_version=version, max_retries=0
    )
    return client


def _required_env(name: str, example: str | None = None) -> str:
    value = os.environ.get(name)
    if not value:
        hint = f" (such as {example})" if example else ""
        raise ConfigurationError(f"{name} is not set: export it{hint}, or build the model yourself")
    return value
