"""The router id for Gemini on Vertex AI: ``google-vertex/<model>``.

Registered through the public :func:`~procession.models.register_provider` when
:mod:`procession.models` is imported; nothing provider-specific loads until such an id is
resolved.
"""

from __future__ import annotations

from procession.models.base import LanguageModel
from procession.models.registry import register_provider

__all__ = ["install"]


def _vertex(model_id: str) -> LanguageModel:
    from procession.models.google import vertex_model_from_id

    return vertex_model_from_id(model_id)


def install() -> None:
    """Register the ``google-vertex`` provider."""
    register_provider("google-vertex", _vertex)
