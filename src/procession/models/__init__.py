"""The model interface, the model router and (as optional extras) provider adapters."""

from procession.models.base import (
    LanguageModel,
    ModelCallOptions,
    ModelSettings,
    ResponseFormat,
    StreamResult,
    ToolChoice,
    ToolDefinition,
    normalize_tool_choice,
)
from procession.models.registry import (
    register_model,
    register_provider,
    registered_providers,
    resolve_model,
)

__all__ = [
    "LanguageModel",
    "ModelCallOptions",
    "ModelSettings",
    "ResponseFormat",
    "StreamResult",
    "ToolChoice",
    "ToolDefinition",
    "normalize_tool_choice",
    "register_model",
    "register_provider",
    "registered_providers",
    "resolve_model",
]

from procession.models.providers import install_builtin_providers as _install

_install()
