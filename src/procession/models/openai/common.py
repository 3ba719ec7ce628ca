"""What the Chat Completions and Responses adapters share: the client, the stream wrapper,
provider options and small conversions."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, cast

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models._chunk_stream import ChunkStream, Fed
from procession.models.base import ModelCallOptions, StreamResult

if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream

__all__ = [
    "ClientFactory",
    "ClientOwner",
    "StreamMapper",
    "check_name",
    "file_url",
    "import_openai",
    "iso_timestamp",
    "parse_args",
    "post_stream",
    "provider_options",
    "stream_result",
    "tool_output_text",
]

ClientFactory = Callable[[], "AsyncOpenAI"]
"""Makes the SDK client of a model on its first request (the model closes it)."""

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


class ClientOwner:
    """Holds the ``AsyncOpenAI`` client of a model: one passed in, or one it makes lazily
    (with ``client_factory`` when given).

    The client is made with ``max_retries=0``, and every request also asks for no SDK retry:
    retries belong to :mod:`procession.models.retry`, which sees every provider the same way.
    """

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        client: AsyncOpenAI | None,
        headers: Mapping[str, str] | None,
        client_factory: ClientFactory | None = None,
    ) -> None:
        if client is not None and client_factory is not None:
            raise ConfigurationError("give either client or client_factory, not both")
        self._api_key = api_key
        self._base_url = base_url
        self._headers = dict(headers or {})
        self._client = client
        self._factory = client_factory
        self._owns_client = client is None

    @property
    def client(self) -> AsyncOpenAI:
        """The SDK client (made on first use)."""
        if self._client is None:
            self._client = self._factory() if self._factory is not None else self._make()
        return self._client

    def _make(self) -> AsyncOpenAI:
        openai = import_openai()
        client: AsyncOpenAI = openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self._base_url,
            default_headers=self._headers or None,
            max_retries=0,
        )
        return client

    async def aclose(self) -> None:
        """Close the HTTP client if this model made it."""
        if self._owns_client and self._client is not None:
            await self._client.close()
            self._client = None


class StreamMapper(Protocol):
    """Turns a stream's events (dicts) into chunks; one instance per call."""

    def map_event(self, data: Any) -> Fed:
        """The chunks of one event: one, a list, or ``None``."""
        ...

    def finish(self) -> list[Chunk]:
        """The closing chunks once the stream has ended."""
        ...


def check_name(argument: str, value: object) -> str:
    """``value`` if it is a non-empty string, else a :class:`ConfigurationError` naming
    ``argument``."""
    if not isinstance(value, str) or not value:
        raise ConfigurationError(f"{argument}: expected a non-empty string, got {value!r}")
    return value


def import_openai() -> Any:
    """The ``openai`` module, or a :class:`ConfigurationError` saying how to install it."""
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "the OpenAI adapters need the 'openai' package: pip install 'procession[openai]'"
        ) from exc
    return openai


_STREAM_CLS: Any = None
"""``openai.AsyncStream[object]``, made once."""


def post_stream(
    client: AsyncOpenAI, path: str, body: dict[str, Any], headers: Mapping[str, str]
) -> Awaitable[Any]:
    """``POST path`` through the SDK client, streamed, each event read as a plain dict.

    The SDK still does everything a request needs (its base URL, auth headers, Azure
    deployment routes, SSE decoding, ``APIStatusError`` for a refused request and
    ``APIError`` for an error event); only the per-event conversion to typed models is left
    out, because the mappers read dicts anyway (and dicts keep every vendor field).
    """
    global _STREAM_CLS
    if _STREAM_CLS is None:
        _STREAM_CLS = import_openai().AsyncStream[object]
    stream_cls: type[AsyncStream[object]] = _STREAM_CLS
    options: dict[str, Any] = {"max_retries": 0}
    if headers:
        options["headers"] = dict(headers)
    return client.post(
        path,
        body=body,
        cast_to=object,
        stream=True,
        stream_cls=stream_cls,
        options=cast(Any, options),
    )


def map_sdk_error(exc: BaseException, request_body: object) -> APICallError | None:
    """Lazy wrapper of :func:`procession.models.openai.errors.to_api_call_error`."""
    from procession.models.openai.errors import to_api_call_error

    return to_api_call_error(exc, request_body=request_body)


async def start_call(
    call: Callable[[], Awaitable[Any]], options: ModelCallOptions, request_body: object
) -> Any:
    """Send the request; SDK errors become :class:`APICallError`, the signal aborts it."""
    try:
        with cancel_on_abort(options.abort_signal):
            return await call()
    except APICallError:
        raise
    except Exception as exc:
        mapped = map_sdk_error(exc, request_body)
        if mapped is None:
            raise
        raise mapped from exc


def provider_options(options: ModelCallOptions, *names: str) -> dict[str, Any]:
    """The merged ``provider_options`` under ``names`` with camelCase keys in snake_case."""
    merged: dict[str, Any] = {}
    for name in names:
        for key, value in (options.provider_options.get(name) or {}).items():
            merged[_CAMEL.sub("_", key).lower()] = value
    return merged


def iso_timestamp(seconds: float | None) -> str | None:
    """A Unix time as an ISO-8601 UTC string."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, tz=UTC).isoformat().replace("+00:00", "Z")


def file_url(data: str, media_type: str) -> str:
    """A file part's ``data`` as a URL: kept if it already is one, else a base64 data URL."""
    if ":" in data[:12]:
        return data
    return f"data:{media_type};base64,{data}"


def tool_output_text(output: Mapping[str, Any]) -> str:
    """A prompt tool result's ``output`` as the string the API takes."""
    value = output.get("value")
    if output.get("type") in ("text", "error-text") and isinstance(value, str):
        return value
    return json.dumps(value)


def parse_args(text: str) -> dict[str, Any] | str:
    """Tool-call arguments: the parsed object, ``{}`` for none, or the raw text if invalid."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, dict) else text


def warn_unsupported(
    warnings: list[dict[str, Any]], settings: Mapping[str, Any], *keys: str
) -> None:
    """Record an ``unsupported-setting`` warning for each of ``keys`` present in settings."""
    for key in keys:
        if key in settings:
            warnings.append({"type": "unsupported-setting", "setting": key})


def stream_result(
    sdk_stream: Any,
    mapper: StreamMapper,
    options: ModelCallOptions,
    body: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> StreamResult:
    """The :class:`StreamResult` of a started SDK stream, read through :class:`ChunkStream`.

    SDK exceptions raised while reading become :class:`APICallError`; the HTTP response is
    closed at the end of the stream, on an error, on ``aclose`` and when the abort signal
    fires (the read in progress is interrupted at once).
    """

    def on_error(exc: BaseException) -> BaseException | None:
        return None if isinstance(exc, APICallError) else map_sdk_error(exc, body)

    stream = ChunkStream(
        sdk_stream.__anext__,
        mapper.map_event,
        mapper.finish,
        sdk_stream.close,
        abort_signal=options.abort_signal,
        on_error=on_error,
    )
    return StreamResult(
        stream=stream,
        request={"body": body},
        response={"headers": dict(sdk_stream.response.headers)},
        warnings=warnings,
    )
