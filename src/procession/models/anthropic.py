"""Anthropic Claude models over the official ``anthropic`` SDK (the ``anthropic`` extra).

``AnthropicModel("claude-sonnet-4-5")`` streams through
``AsyncAnthropic().messages.create(stream=True)`` and turns the events into procession chunks.
The SDK's own retries and OpenTelemetry spans are off: retrying belongs to procession's model
layer, and the runtime traces calls itself. Every failure surfaces as
:class:`~procession.errors.APICallError`.

``"anthropic/<model>"`` ids resolve through :func:`model_from_id`, which reads
``ANTHROPIC_API_KEY`` and, optionally, ``ANTHROPIC_BASE_URL``.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models._anthropic_request import build_request
from procession.models._anthropic_stream import AnthropicStreamMapper
from procession.models.base import ModelCallOptions, StreamResult
from procession.signals import AbortSignal

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicModel", "model_from_id"]

_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


def _import_sdk() -> Any:
    try:
        import anthropic
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "AnthropicModel needs the anthropic SDK: pip install 'procession[anthropic]'"
        ) from exc
    return anthropic


def _status_of_body(body: object, fallback: int | None) -> int | None:
    """The HTTP status an Anthropic error body stands for (mid-stream errors arrive in a 200)."""
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("type") in _ERROR_STATUS:
            return _ERROR_STATUS[str(error["type"])]
    return fallback


def _message_of(body: object, fallback: str) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or fallback)
    return fallback


def to_api_call_error(exc: BaseException, request_body: object = None) -> APICallError:
    """Map an ``anthropic`` SDK or ``httpx2`` transport exception to :class:`APICallError`."""
    anthropic = _import_sdk()
    if isinstance(exc, anthropic.APIStatusError):
        response = exc.response
        status = response.status_code
        if status < 400:
            status = _status_of_body(exc.body, status)
        body = exc.body
        return APICallError(
            _message_of(body, str(exc)),
            status_code=status,
            response_body=body if isinstance(body, str) else json.dumps(body),
            response_headers=dict(response.headers),
            url=str(response.request.url),
            request_body=request_body,
            data=body,
        )
    url = None
    request = getattr(exc, "request", None)
    if request is not None:
        url = str(request.url)
    return APICallError(
        f"Anthropic transport error: {exc}", url=url, request_body=request_body, is_retryable=True
    )


def _is_sdk_error(exc: BaseException) -> bool:
    anthropic = _import_sdk()
    import httpx2

    return isinstance(exc, anthropic.AnthropicError | httpx2.TransportError | httpx2.StreamError)


class AnthropicModel:
    """A Claude model behind the Anthropic Messages API.

    Args:
        model_id: The Anthropic model id, such as ``"claude-sonnet-4-5"``.
        api_key: The API key (sent as ``Authorization: Bearer``); required unless ``client``
            is given.
        base_url: Another API root, such as a proxy or a local test server.
        client: A ready ``anthropic.AsyncAnthropic`` to use as is.
        headers: Extra headers for every request.
    """

    provider = "anthropic"
    specification_version = "v2"
    supports_structured_output = False

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncAnthropic | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model_id = model_id
        self._headers = dict(headers or {})
        self._owns_client = client is None
        if client is None:
            if not api_key:
                raise ConfigurationError("AnthropicModel: pass api_key= or client=")
            client = _import_sdk().AsyncAnthropic(
                api_key=api_key,
                base_url=base_url,
                max_retries=0,
                open_telemetry=False,
                default_headers=self._headers or None,
            )
        self.client: AsyncAnthropic = client

    def __repr__(self) -> str:
        return f"AnthropicModel({self.model_id!r})"

    async def aclose(self) -> None:
        """Close the HTTP client if this model created it."""
        if self._owns_client:
            await self.client.close()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed Messages call; HTTP errors raise :class:`APICallError` here."""
        request, warnings = build_request(self.model_id, options)
        call = _sdk_arguments(request, options)
        signal = options.abort_signal
        try:
            with cancel_on_abort(signal):
                sdk_stream = await self.client.messages.create(**call, stream=True)
        except Exception as exc:
            if _is_sdk_error(exc):
                raise to_api_call_error(exc, request) from exc
            raise
        headers = dict(sdk_stream.response.headers)
        return StreamResult(
            stream=_chunks(sdk_stream, signal, request),
            request={"body": request},
            response={"headers": headers},
            warnings=warnings,
        )


def _sdk_arguments(request: dict[str, Any], options: ModelCallOptions) -> dict[str, Any]:
    """``messages.create`` arguments: the required ones by name, the rest as ``extra_body``
    (the SDK does not name every field, such as the sampling settings)."""
    required = ("model", "max_tokens", "messages")
    call: dict[str, Any] = {name: request[name] for name in required}
    call["extra_body"] = {k: v for k, v in request.items() if k not in required}
    extra_headers = options.settings.get("headers")
    if extra_headers:
        call["extra_headers"] = dict(extra_headers)
    return call


async def _chunks(
    sdk_stream: Any, signal: AbortSignal | None, request: object
) -> AsyncIterator[Chunk]:
    """Read the SDK stream; the abort signal interrupts a read; the response always closes."""
    mapper = AnthropicStreamMapper()
    try:
        while True:
            try:
                with cancel_on_abort(signal):
                    event = await sdk_stream.__anext__()
            except StopAsyncIteration:
                break
            except Exception as exc:
                if _is_sdk_error(exc):
                    raise to_api_call_error(exc, request) from exc
                raise
            for chunk in mapper.map(event):
                yield chunk
        if not mapper.finished:
            yield mapper.finish()
    finally:
        await sdk_stream.close()


def model_from_id(model_id: str) -> AnthropicModel:
    """The router's factory for ``"anthropic/<model>"``: reads ``ANTHROPIC_API_KEY`` and the
    optional ``ANTHROPIC_BASE_URL``."""
    api_key = os.environ.get("ANTHROPIC_API_KEY")
    if not api_key:
        raise ConfigurationError(
            f"model 'anthropic/{model_id}' needs the ANTHROPIC_API_KEY environment variable"
        )
    return AnthropicModel(model_id, api_key=api_key, base_url=os.environ.get("ANTHROPIC_BASE_URL"))
