"""Google Gemini models over the Gemini REST API and Vertex AI (the ``google`` extra: ``httpx2``).

``GoogleModel("gemini-2.5-flash")`` posts to ``models/<id>:streamGenerateContent?alt=sse`` and
turns each streamed ``GenerateContentResponse`` into procession chunks (see
:mod:`procession.models.google._stream`); :class:`GoogleVertexModel` does the same on Vertex AI
(``projects/<p>/locations/<l>/publishers/google/models/<id>``, OAuth bearer token; the
``google-vertex`` extra adds ``google-auth``). Failures surface as
:class:`~procession.errors.APICallError`, with Gemini's ``RetryInfo.retryDelay`` as
``retry_after``. (The ``google-genai`` SDK was tried first: its nested stream generators do not
close the HTTP response when a caller stops early, so the adapter speaks the wire protocol.)

Router ids: ``"google/<model>"`` reads ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``) and,
optionally, ``GOOGLE_BASE_URL``; ``"google-vertex/<model>"`` is described in
:func:`vertex_model_from_id`.
"""

from __future__ import annotations

import os

from procession.errors import ConfigurationError
from procession.models.google._model import DEFAULT_BASE_URL, GoogleModel
from procession.models.google._stream import finish_reason
from procession.models.google._vertex import GoogleVertexModel, vertex_model_from_id

__all__ = [
    "DEFAULT_BASE_URL",
    "GoogleModel",
    "GoogleVertexModel",
    "finish_reason",
    "model_from_id",
    "vertex_model_from_id",
]


def model_from_id(model_id: str) -> GoogleModel:
    """The router's factory for ``"google/<model>"``: reads ``GOOGLE_API_KEY`` (or
    ``GEMINI_API_KEY``) and the optional ``GOOGLE_BASE_URL``."""
    api_key = os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
    if not api_key:
        raise ConfigurationError(
            f"model 'google/{model_id}' needs the GOOGLE_API_KEY (or GEMINI_API_KEY) "
            "environment variable"
        )
    return GoogleModel(model_id, api_key=api_key, base_url=os.environ.get("GOOGLE_BASE_URL"))
