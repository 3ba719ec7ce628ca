"""Claude on Amazon Bedrock and on Google Vertex AI, through the official SDK's clients.

Both are :class:`AnthropicModel` with another client: ``AsyncAnthropicBedrock`` (the
``anthropic[bedrock]`` extra: SigV4-signed ``/model/<id>/invoke-with-response-stream``,
answered in AWS event-stream framing) and ``AsyncAnthropicVertex`` (the ``anthropic[vertex]``
extra: ``.../publishers/anthropic/models/<id>:streamRawPredict`` with a Google OAuth token).
Credentials come from where the SDK and the cloud libraries look for them: AWS's standard
chain (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``, ``AWS_PROFILE``,
instance roles) or a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``); Google's Application
Default Credentials (``GOOGLE_APPLICATION_CREDENTIALS``, ``gcloud`` login, metadata server).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from procession.errors import ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models.anthropic._model import AnthropicModel, import_sdk, sdk_client_options
from procession.models.base import ModelCallOptions, StreamResult

__all__ = ["AnthropicBedrockModel", "AnthropicVertexModel"]


def _client(factory: Any, what: str, **kwargs: Any) -> Any:
    try:
        return factory(**{k: v for k, v in kwargs.items() if v is not None})
    except ValueError as exc:  # a missing region or a conflicting credential
        raise ConfigurationError(f"{what}: {exc}") from exc


class AnthropicBedrockModel(AnthropicModel):
    """A Claude model on Amazon Bedrock (``anthropic[bedrock]``).

    Args:
        model_id: The Bedrock model or inference-profile id, such as
            ``"us.anthropic.claude-sonnet-4-5-20250929-v1:0"``.
        aws_region: The AWS region; default ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` or the
            profile's region.
        aws_access_key: An explicit AWS access key id; default the standard AWS credential
            chain (as for the three below).
        aws_secret_key: The secret key that goes with ``aws_access_key``.
        aws_session_token: A session token for temporary credentials.
        aws_profile: A profile of the shared AWS configuration files.
        api_key: A Bedrock API key (sent as ``Authorization: Bearer``) instead of SigV4;
            default ``AWS_BEARER_TOKEN_BEDROCK``.
        base_url: Another endpoint; default ``ANTHROPIC_BEDROCK_BASE_URL`` or the region's
            ``bedrock-runtime`` endpoint.
        client: A ready ``anthropic.AsyncAnthropicBedrock``.
        headers: Extra headers for every request.
    """

    provider = "anthropic-bedrock"

    def __init__(
        self,
        model_id: str,
        *,
        aws_region: str | None = None,
        aws_access_key: str | None = None,
        aws_secret_key: str | None = None,
        aws_session_token: str | None = None,
        aws_profile: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        client: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        owns = client is None
        if client is None:
            client = _client(
                import_sdk().AsyncAnthropicBedrock,
                "AnthropicBedrockModel (set aws_region= or AWS_REGION)",
                aws_region=aws_region,
                aws_access_key=aws_access_key,
                aws_secret_key=aws_secret_key,
                aws_session_token=aws_session_token,
                aws_profile=aws_profile,
                api_key=api_key,
                base_url=base_url,
                **sdk_client_options(headers or {}),
            )
        super().__init__(model_id, client=client, headers=headers)
        self._owns_client = owns


class AnthropicVertexModel(AnthropicModel):
    """A Claude model on Google Vertex AI (``anthropic[vertex]``).

    Args:
        model_id: The Vertex model id, such as ``"claude-sonnet-4-5@20250929"``.
        region: The Vertex location (``"us-east5"``, ``"global"``...); default
            ``CLOUD_ML_REGION``.
        project_id: The Google Cloud project; default ``ANTHROPIC_VERTEX_PROJECT_ID`` or the
            credentials' project.
        access_token: A ready OAuth access token; default Application Default Credentials.
        credentials: A ``google.auth`` credentials object to use instead of the default ones.
        base_url: Another endpoint; default ``ANTHROPIC_VERTEX_BASE_URL`` or the region's.
        client: A ready ``anthropic.AsyncAnthropicVertex``.
        headers: Extra headers for every request.
    """

    provider = "anthropic-vertex"

    def __init__(
        self,
        model_id: str,
        *,
        region: str | None = None,
        project_id: str | None = None,
        access_token: str | None = None,
        credentials: Any = None,
        base_url: str | None = None,
        client: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        owns = client is None
        if client is None:
            client = _client(
                import_sdk().AsyncAnthropicVertex,
                "AnthropicVertexModel (set region= or CLOUD_ML_REGION)",
                region=region,
                project_id=project_id,
                access_token=access_token,
                credentials=credentials,
                base_url=base_url,
                **sdk_client_options(headers or {}),
            )
        super().__init__(model_id, client=client, headers=headers)
        self._owns_client = owns
        self._lock = asyncio.Lock()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed call, first finding the project in the credentials when no
        project was named (the SDK builds the URL before it loads credentials)."""
        client = self.client
        if client.project_id is None and client.access_token is None:
            with cancel_on_abort(options.abort_signal):
                async with self._lock:
                    if client.project_id is None:
                        await asyncio.to_thread(_load_default_credentials, client)
        if client.project_id is None:
            raise ConfigurationError(
                f"AnthropicVertexModel({self.model_id!r}): no project: pass project_id= or set "
                "ANTHROPIC_VERTEX_PROJECT_ID (or use credentials that name one)"
            )
        return await super().do_stream(options)


def _load_default_credentials(client: Any) -> None:
    """Application Default Credentials and their project, onto a Vertex client."""
    import google.auth

    from procession.models.google._vertex import CLOUD_PLATFORM_SCOPE

    try:
        credentials, project = google.auth.default(scopes=[CLOUD_PLATFORM_SCOPE])
    except google.auth.exceptions.DefaultCredentialsError as exc:
        raise ConfigurationError(
            f"AnthropicVertexModel: no Google credentials ({exc}); set "
            "GOOGLE_APPLICATION_CREDENTIALS or pass access_token="
        ) from exc
    if client.credentials is None:
        client.credentials = credentials
    if project:
        client.project_id = project
