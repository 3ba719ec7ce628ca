"""What the Chat Completions and Responses adapters share: the client, the stream wrapper,
provider options and small conversions."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models.base import ModelCallOptions, StreamResult
from procession.signals import AbortSignal

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = [
    "ChunkStream",
    "ClientOwner",
    "file_url",
    "iso_timestamp",
    "parse_args",
    "provider_options",
    "stream_result",
    "tool_output_text",
]

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


class ClientOwner:
    """Holds the ``AsyncOpenAI`` client of a model: one passed in, or one it makes lazily.

    The client is made with ``max_retries=0``: retries belong to
    :mod:`procession.models.retry`, which sees every provider the same way.
    """

    def __init__(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        client: AsyncOpenAI | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._headers = dict(headers or {})
        self._client = client
        self._owns_client = client is None

    @property
    def client(self) -> AsyncOpenAI:
        """The SDK client (made on first use)."""
        if self._client is None:
            try:
                import openai
            except ImportError as exc:  # pragma: no cover - depends on the environment
                raise ConfigurationError(
                    "the OpenAI adapters need the 'openai' package: "
                    "pip install 'procession[openai]'"
                ) from exc
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                default_headers=self._headers or None,
                max_retries=0,
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client if this model made it."""
        if self._owns_client and self._client is not None:
            await self._client.close()
            self._client = None


class ChunkStream:
    """The ``StreamResult.stream`` of the adapters: an async iterator of chunks that

    * maps SDK exceptions raised while reading to :class:`APICallError`;
    * closes the HTTP response on :meth:`aclose`, on the end of the stream, on an error and
      when ``abort_signal`` fires (the read in progress is interrupted at once).
    """

    def __init__(
        self,
        chunks: AsyncIterator[Chunk],
        close: Callable[[], Awaitable[None]],
        *,
        abort_signal: AbortSignal | None,
        request_body: object,
    ) -> None:
        self._chunks = chunks
        self._close = close
        self._signal = abort_signal
        self._request_body = request_body
        self._closed = False

    def __aiter__(self) -> ChunkStream:
        return self

    async def __anext__(self) -> Chunk:
        if self._closed:
            raise StopAsyncIteration
        try:
            with cancel_on_abort(self._signal):
                return await self._chunks.__anext__()
        except StopAsyncIteration:
            await self.aclose()
            raise
        except APICallError:
            await self.aclose()
            raise
        except BaseException as exc:
            await self.aclose()
            mapped = map_sdk_error(exc, self._request_body)
            if mapped is None:
                raise
            raise mapped from exc

    async def aclose(self) -> None:
        """Stop the stream and close the HTTP response (idempotent)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self._close()
        finally:
            aclose = getattr(self._chunks, "aclose", None)
            if aclose is not None:
                await aclose()


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
    chunks: AsyncIterator[Chunk],
    options: ModelCallOptions,
    body: dict[str, Any],
    warnings: list[dict[str, Any]],
) -> StreamResult:
    """The :class:`StreamResult` of a started SDK stream, read through :class:`ChunkStream`."""
    stream = ChunkStream(
        chunks, sdk_stream.close, abort_signal=options.abort_signal, request_body=body
    )
    return StreamResult(
        stream=stream,
        request={"body": body},
        response={"headers": dict(sdk_stream.response.headers)},
        warnings=warnings,
    )
