"""Router ids for Claude on Bedrock and Vertex: ``anthropic-bedrock/...``, ``anthropic-vertex/...``.

Registered through the public :func:`~procession.models.register_provider` when
:mod:`procession.models` is imported; the SDK loads only when such an id is resolved.
"""

from __future__ import annotations

from procession.models.base import LanguageModel
from procession.models.registry import register_provider

__all__ = ["install"]


def _bedrock(model_id: str) -> LanguageModel:
    from procession.models.anthropic import bedrock_model_from_id

    return bedrock_model_from_id(model_id)


def _vertex(model_id: str) -> LanguageModel:
    from procession.models.anthropic import vertex_model_from_id

    return vertex_model_from_id(model_id)


def install() -> None:
    """Register the ``anthropic-bedrock`` and ``anthropic-vertex`` providers."""
    register_provider("anthropic-bedrock", _bedrock)
    register_provider("anthropic-vertex", _vertex)
