"""Anthropic Claude models over the official ``anthropic`` SDK (the ``anthropic`` extra).

``AnthropicModel("claude-sonnet-4-5")`` streams through
``AsyncAnthropic().messages.create(stream=True)`` and turns the events into procession chunks;
:class:`AnthropicBedrockModel` and :class:`AnthropicVertexModel` do the same through the SDK's
Bedrock and Vertex clients (the ``anthropic-bedrock`` and ``anthropic-vertex`` extras). Every
failure surfaces as :class:`~procession.errors.APICallError`.

Router ids and what they read from the environment:

* ``"anthropic/<model>"``: ``ANTHROPIC_API_KEY``, optionally ``ANTHROPIC_BASE_URL``;
* ``"anthropic-bedrock/<model>"``: ``AWS_REGION`` (or ``AWS_DEFAULT_REGION``) and the AWS
  credential chain or ``AWS_BEARER_TOKEN_BEDROCK``; optionally ``ANTHROPIC_BEDROCK_BASE_URL``;
* ``"anthropic-vertex/<model>"``: ``CLOUD_ML_REGION``, ``ANTHROPIC_VERTEX_PROJECT_ID`` (or the
  credentials' project) and Application Default Credentials; optionally
  ``ANTHROPIC_VERTEX_BASE_URL``.
"""

from __future__ import annotations

import os

from procession.errors import ConfigurationError
from procession.models.anthropic._model import AnthropicModel
from procession.models.anthropic._platforms import AnthropicBedrockModel, AnthropicVertexModel

__all__ = [
    "AnthropicBedrockModel",
    "AnthropicModel",
    "AnthropicVertexModel",
    "bedrock_model_from_id",
    "model_from_id",
    "vertex_model_from_id",
]


def model_from_id(model_id: str) -> AnthropicModel:
    """The router's factory for ``"anthropic/<model>"``: reads ``ANTHROPIC_API_KEY`` and the
    optional ``ANTHROPIC_BASE_URL``."""
    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise ConfigurationError(
            f"model 'anthropic/{model_id}' needs the ANTHROPIC_API_KEY environment variable"
        )
    return AnthropicModel(model_id, api_key=api_key, base_url=os.environ.get("ANTHROPIC_BASE_URL"))


def bedrock_model_from_id(model_id: str) -> AnthropicBedrockModel:
    """The router's factory for ``"anthropic-bedrock/<model>"``: the region and credentials
    come from the standard AWS environment (the SDK reads them); a missing region is a
    :class:`ConfigurationError` naming ``AWS_REGION``."""
    return AnthropicBedrockModel(model_id)


def vertex_model_from_id(model_id: str) -> AnthropicVertexModel:
    """The router's factory for ``"anthropic-vertex/<model>"``: ``CLOUD_ML_REGION`` and
    ``ANTHROPIC_VERTEX_PROJECT_ID`` (the SDK reads them) and Application Default Credentials;
    a missing region is a :class:`ConfigurationError` naming ``CLOUD_ML_REGION``."""
    return AnthropicVertexModel(model_id)
