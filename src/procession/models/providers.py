"""The built-in providers of the model router, imported lazily.

Each entry maps a provider name to ``"module:function"``; the function takes the model part of
a ``"provider/model"`` id and returns a model, reading keys and base URLs from the environment
(a missing one is a :class:`~procession.errors.ConfigurationError` naming the variable).
``"module:function:argument"`` calls ``function(argument, model)`` instead, so one function
serves the OpenAI-compatible providers. Provider SDKs load only when an id of theirs is
resolved.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from procession.models.base import LanguageModel
from procession.models.registry import register_provider

__all__ = ["BUILTIN_PROVIDERS", "install_builtin_providers"]

BUILTIN_PROVIDERS: dict[str, str] = {
    "openai": "procession.models.openai:chat_model_from_id",
    "openai-responses": "procession.models.openai:responses_model_from_id",
    "azure": "procession.models.openai:azure_model_from_id",
    "azure-responses": "procession.models.openai:azure_responses_model_from_id",
    **{
        name: f"procession.models.openai:compatible_model_from_id:{name}"
        for name in (
            "openrouter",
            "groq",
            "mistral",
            "deepseek",
            "xai",
            "together",
            "fireworks",
            "ollama",
        )
    },
    "anthropic": "procession.models.anthropic:model_from_id",
    "anthropic-bedrock": "procession.models.anthropic:bedrock_model_from_id",
    "anthropic-vertex": "procession.models.anthropic:vertex_model_from_id",
    "google": "procession.models.google:model_from_id",
    "google-vertex": "procession.models.google:vertex_model_from_id",
    "local": "procession.models.local:model_from_id",
}
"""Provider name to ``"module:function"`` (or ``"module:function:argument"``): the factory
the router calls with the model part of an id, imported on first use."""


def _lazy(target: str) -> Callable[[str], LanguageModel]:
    module_name, function_name, *bound = target.split(":")

    def factory(model_id: str) -> LanguageModel:
        module = importlib.import_module(module_name)
        function: Callable[..., LanguageModel] = getattr(module, function_name)
        return function(*bound, model_id)

    return factory


def install_builtin_providers() -> None:
    """Register every built-in provider with the router (done on import of procession)."""
    for name, target in BUILTIN_PROVIDERS.items():
        register_provider(name, _lazy(target))
