"""Gemini on Vertex AI: the Vertex URL shape and Google OAuth, over :class:`GoogleModel`.

Calls go to ``{base}/projects/{project}/locations/{location}/publishers/google/models/{model}
:streamGenerateContent`` with ``Authorization: Bearer <token>``; the base is
``https://{location}-aiplatform.googleapis.com/v1`` (``https://aiplatform.googleapis.com/v1``
for the ``global`` location). The token is a given ``access_token``, or comes from
``google-auth`` credentials (Application Default Credentials unless ``credentials=`` is given),
refreshed in a worker thread when it has expired. With an ``api_key`` (Vertex AI express mode)
calls go to ``{base}/publishers/google/models/{model}`` with ``x-goog-api-key`` instead.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

from procession.errors import APICallError, ConfigurationError
from procession.models.google._model import GoogleModel

__all__ = ["CLOUD_PLATFORM_SCOPE", "GoogleVertexModel", "vertex_model_from_id"]

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
DEFAULT_LOCATION = "global"


def _vertex_base(location: str) -> str:
    if location == "global":
        return "https://aiplatform.googleapis.com/v1"
    return f"https://{location}-aiplatform.googleapis.com/v1"


def _import_google_auth() -> Any:
    try:
        import google.auth
        import google.auth.transport.requests
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "GoogleVertexModel needs google-auth for OAuth (or pass access_token= or "
            "api_key=): pip install 'procession[google-vertex]'"
        ) from exc
    return google.auth


class GoogleVertexModel(GoogleModel):
    """A Gemini model on Google Vertex AI.

    Args:
        model_id: The model id, such as ``"gemini-2.5-flash"`` (or a full
            ``publishers/.../models/...`` path).
        project: The Google Cloud project; default the credentials' project.
        location: The Vertex location; default ``"global"``.
        api_key: A Vertex AI express-mode API key, instead of OAuth.
        access_token: A ready OAuth access token (not refreshed).
        credentials: ``google.auth`` credentials; default Application Default Credentials.
        base_url: Another API root including its version path.
        client: A ready ``httpx2.AsyncClient``.
        headers: Extra headers for every request.
    """

    provider = "google-vertex"
    function_call_ids = False

    def __init__(
        self,
        model_id: str,
        *,
        project: str | None = None,
        location: str | None = None,
        api_key: str | None = None,
        access_token: str | None = None,
        credentials: Any = None,
        base_url: str | None = None,
        client: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.location = location or DEFAULT_LOCATION
        self.project = project
        self.express = bool(api_key)
        self._token = access_token
        self._credentials = credentials
        self._lock = asyncio.Lock()
        base = base_url or _vertex_base(self.location)
        super().__init__(model_id, api_key=api_key, base_url=base, client=client, headers=headers)

    def _needs_key(self) -> bool:
        return False

    def endpoint(self) -> str:
        """The ``streamGenerateContent`` URL on Vertex AI."""
        model = self.model_id
        if not model.startswith(("projects/", "publishers/")):
            model = f"publishers/google/models/{model}"
        if self.express or model.startswith("projects/"):
            return f"{self.base_url}/{model}:streamGenerateContent"
        if not self.project:
            raise ConfigurationError(
                f"GoogleVertexModel({self.model_id!r}): no project: pass project= or set "
                "GOOGLE_VERTEX_PROJECT (or use credentials that name one)"
            )
        where = f"projects/{self.project}/locations/{self.location}"
        return f"{self.base_url}/{where}/{model}:streamGenerateContent"

    async def auth_headers(self) -> dict[str, str]:
        """``Authorization: Bearer`` with a valid token (none in express mode)."""
        if self.express:
            return {}
        if self._token is not None:
            return {"Authorization": f"Bearer {self._token}"}
        async with self._lock:
            token = await asyncio.to_thread(self._refreshed_token)
        return {"Authorization": f"Bearer {token}"}

    def _refreshed_token(self) -> str:
        """Load (once) and refresh (when expired) the credentials; runs in a worker thread."""
        auth = _import_google_auth()
        try:
            if self._credentials is None:
                self._credentials, project = auth.default(scopes=[CLOUD_PLATFORM_SCOPE])
                self.project = self.project or project
            credentials = self._credentials
            if not credentials.valid:
                credentials.refresh(auth.transport.requests.Request())
        except auth.exceptions.DefaultCredentialsError as exc:
            raise ConfigurationError(
                f"GoogleVertexModel: no Google credentials ({exc}); set "
                "GOOGLE_APPLICATION_CREDENTIALS, or pass access_token= or api_key="
            ) from exc
        except auth.exceptions.GoogleAuthError as exc:
            raise APICallError(
                f"Vertex AI: could not refresh the access token: {exc}",
                is_retryable=bool(getattr(exc, "retryable", False)),
            ) from exc
        return str(credentials.token)


def vertex_model_from_id(model_id: str) -> GoogleVertexModel:
    """The router's factory for ``"google-vertex/<model>"``.

    Reads ``GOOGLE_VERTEX_API_KEY`` (express mode) or else ``GOOGLE_VERTEX_PROJECT`` (or
    ``GOOGLE_CLOUD_PROJECT``; default the credentials' project) with Application Default
    Credentials; ``GOOGLE_VERTEX_LOCATION`` (or ``GOOGLE_CLOUD_LOCATION``; default
    ``global``) and, optionally, ``GOOGLE_VERTEX_BASE_URL``.
    """
    env = os.environ.get
    return GoogleVertexModel(
        model_id,
        project=env("GOOGLE_VERTEX_PROJECT") or env("GOOGLE_CLOUD_PROJECT") or None,
        location=env("GOOGLE_VERTEX_LOCATION") or env("GOOGLE_CLOUD_LOCATION") or None,
        api_key=env("GOOGLE_VERTEX_API_KEY") or None,
        base_url=env("GOOGLE_VERTEX_BASE_URL") or None,
    )
