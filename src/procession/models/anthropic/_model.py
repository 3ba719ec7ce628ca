"""The Claude adapter over any client of the official ``anthropic`` SDK.

:class:`AnthropicModel` streams ``POST /v1/messages`` through the SDK client's ``post``, with
each event left a dict (the body is the one ``messages.create(stream=True)`` sends; see
``docs/decisions/0170-provider-overhead-baselines.md``): the client may be ``AsyncAnthropic``,
``AsyncAnthropicBedrock`` or ``AsyncAnthropicVertex`` (the SDK turns the same Messages request
into each platform's URL, auth and stream framing). The SDK's own
retries and OpenTelemetry spans are off: retrying belongs to procession's model layer, and the
runtime traces calls itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models._chunk_stream import ChunkStream
from procession.models.anthropic._errors import to_api_call_error
from procession.models.anthropic._request import build_request, citation_documents
from procession.models.anthropic._stream import AnthropicStreamMapper
from procession.models.base import ModelCallOptions, StreamResult

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicModel", "import_sdk", "sdk_client_options"]


def import_sdk() -> Any:
    """The ``anthropic`` module, or a :class:`ConfigurationError` saying how to install it."""
    try:
        import anthropic
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "AnthropicModel needs the anthropic SDK: pip install 'procession[anthropic]'"
        ) from exc
    return anthropic


def sdk_client_options(headers: Mapping[str, str]) -> dict[str, Any]:
    """Client options every adapter sets: no SDK retries, no SDK spans, extra headers."""
    return {
        "max_retries": 0,
        "open_telemetry": False,
        "default_headers": dict(headers) or None,
    }


def _auth_error(exc: BaseException, request: object) -> APICallError | None:
    """Credential failures of the Bedrock and Vertex clients (raised while signing)."""
    module = type(exc).__module__
    if module.startswith(("botocore", "google.auth")) or (
        isinstance(exc, RuntimeError) and "credential" in str(exc).lower()
    ):
        retryable = bool(getattr(exc, "retryable", False))
        return APICallError(
            f"could not authenticate the model call: {exc}",
            request_body=request,
            is_retryable=retryable,
        )
    return None


class AnthropicModel:
    """A Claude model behind the Anthropic Messages API.

    Args:
        model_id: The Anthropic model id, such as ``"claude-sonnet-4-5"``.
        api_key: The API key (sent as ``Authorization: Bearer``); required unless ``client``
            is given.
        base_url: Another API root, such as a proxy or a local test server.
        client: A ready ``anthropic.AsyncAnthropic`` (or Bedrock / Vertex client) to use as is.
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
            client = import_sdk().AsyncAnthropic(
                api_key=api_key, base_url=base_url, **sdk_client_options(self._headers)
            )
        self.client: Any = client

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_id!r})"

    async def aclose(self) -> None:
        """Close the HTTP client if this model created it."""
        if self._owns_client:
            await self.client.close()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed Messages call; HTTP errors raise :class:`APICallError` here."""
        request, warnings = build_request(self.model_id, options)
        body, call_options = _post_arguments(request, options)
        signal = options.abort_signal
        try:
            with cancel_on_abort(signal):
                sdk_stream = await self.client.post(
                    "/v1/messages",
                    body=body,
                    cast_to=object,
                    stream=True,
                    stream_cls=_stream_cls(),
                    options=call_options,
                )
        except Exception as exc:
            if isinstance(exc, import_sdk().AnthropicError) or _is_httpx_error(exc):
                raise to_api_call_error(exc, request) from exc
            auth = _auth_error(exc, request)
            if auth is not None:
                raise auth from exc
            raise

        def on_error(exc: BaseException) -> BaseException | None:
            # What the SDK raises while reading (an ``error`` event, a dropped connection, a
            # frame that does not decode) is an APICallError; cancellation passes through.
            return to_api_call_error(exc, request) if isinstance(exc, Exception) else None

        mapper = AnthropicStreamMapper(citation_documents(request))
        stream = ChunkStream(
            sdk_stream.__anext__,
            mapper.map_event,
            mapper.finish,
            sdk_stream.close,
            abort_signal=signal,
            on_error=on_error,
        )
        return StreamResult(
            stream=stream,
            request={"body": request},
            response={"headers": dict(sdk_stream.response.headers)},
            warnings=warnings,
        )


def _is_httpx_error(exc: BaseException) -> bool:
    import httpx2

    return isinstance(exc, httpx2.TransportError | httpx2.StreamError)


_STREAM_CLS: Any = None
"""``anthropic.AsyncStream[object]`` (events left as dicts), made once."""


def _stream_cls() -> Any:
    global _STREAM_CLS
    if _STREAM_CLS is None:
        _STREAM_CLS = import_sdk().AsyncStream[object]
    return _STREAM_CLS


def _post_arguments(
    request: dict[str, Any], options: ModelCallOptions
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The body and request options of ``POST /v1/messages``, streamed: the body that
    ``messages.create(..., stream=True, extra_body=...)`` would send, in its order (the
    required fields, ``stream``, then the rest), and the call's extra headers."""
    required = ("max_tokens", "messages", "model")
    body: dict[str, Any] = {name: request[name] for name in required}
    body["stream"] = True
    body.update((k, v) for k, v in request.items() if k not in required)
    extra_headers = options.settings.get("headers")
    return body, ({"headers": dict(extra_headers)} if extra_headers else {})
