"""The Gemini adapter: one streamed ``streamGenerateContent`` call per step, over ``httpx2``.

:class:`GoogleModel` builds the request (:mod:`procession.models.google._request`), reads the
body (:mod:`procession.models.google._wire`) and maps each response
(:mod:`procession.models.google._stream`). Subclasses change only where the call goes and how
it is authenticated (:meth:`GoogleModel.endpoint`, :meth:`GoogleModel.auth_headers`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from procession.chunks import Chunk
from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models._chunk_stream import ChunksThenError, ChunkStream, Fed
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.google._request import build_request
from procession.models.google._stream import GeminiStreamMapper
from procession.models.google._wire import EventReader, error_from_body
from procession.signals import AbortSignal

__all__ = ["DEFAULT_BASE_URL", "GoogleModel", "import_httpx"]

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
"""The Gemini API root; ``base_url`` replaces it (include the version path)."""


def import_httpx() -> Any:
    """The ``httpx2`` module, or a :class:`ConfigurationError` saying how to install it."""
    try:
        import httpx2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "GoogleModel needs httpx2: pip install 'procession[google]'"
        ) from exc
    return httpx2


async def _status_error(response: Any, request_body: object) -> APICallError:
    text = (await response.aread()).decode("utf-8", "replace")
    try:
        data: object = json.loads(text)
    except ValueError:
        data = None
    return error_from_body(
        data,
        status=response.status_code,
        text=text,
        headers=dict(response.headers),
        url=str(response.url),
        request_body=request_body,
    )


def _transport_error(exc: BaseException, request_body: object) -> APICallError:
    return APICallError(f"Gemini transport error: {exc!r}", request_body=request_body)


class GoogleModel:
    """A Gemini model behind the Gemini API.

    Args:
        model_id: The Gemini model id, such as ``"gemini-2.5-flash"``.
        api_key: The API key (sent as ``x-goog-api-key``); required unless ``client`` is given.
        base_url: Another API root including its version path, such as
            ``"http://127.0.0.1:8080/v1beta"``.
        client: A ready ``httpx2.AsyncClient`` to send requests with (its own headers apply).
        headers: Extra headers for every request.
    """

    provider = "google"
    specification_version = "v2"
    supports_structured_output = True
    function_call_ids = True
    """Whether requests carry tool-call ids on function calls and responses."""

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model_id = model_id
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self._headers = dict(headers or {})
        if api_key:
            self._headers["x-goog-api-key"] = api_key
        elif client is None and self._needs_key():
            raise ConfigurationError("GoogleModel: pass api_key= or client=")
        self._owns_client = client is None
        if client is None:
            httpx2 = import_httpx()
            client = httpx2.AsyncClient(timeout=httpx2.Timeout(600, connect=10))
        self.client: Any = client

    def _needs_key(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_id!r})"

    async def aclose(self) -> None:
        """Close the HTTP client if this model created it."""
        if self._owns_client:
            await self.client.aclose()

    def endpoint(self) -> str:
        """The ``streamGenerateContent`` URL of this model."""
        path = self.model_id if "/" in self.model_id else f"models/{self.model_id}"
        return f"{self.base_url}/{path}:streamGenerateContent"

    async def auth_headers(self) -> dict[str, str]:
        """Headers that authenticate a call (the API key is already a default header)."""
        return {}

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed call; HTTP errors raise :class:`APICallError` here."""
        body, warnings = build_request(
            self.model_id, options, function_call_ids=self.function_call_ids
        )
        signal = options.abort_signal
        with cancel_on_abort(signal):
            auth = await self.auth_headers()
        headers = {**self._headers, **auth, **(options.settings.get("headers") or {})}
        request = self.client.build_request(
            "POST", self.endpoint(), params={"alt": "sse"}, json=body, headers=headers
        )
        try:
            with cancel_on_abort(signal):
                response = await self.client.send(request, stream=True)
        except import_httpx().HTTPError as exc:
            raise _transport_error(exc, body) from exc
        if response.status_code >= 400:
            try:
                raise await _status_error(response, body)
            finally:
                await response.aclose()
        return StreamResult(
            stream=_chunk_stream(response, signal, body),
            request={"body": body},
            response={"headers": dict(response.headers)},
            warnings=warnings,
        )


def _chunk_stream(response: Any, signal: AbortSignal | None, request: object) -> ChunkStream:
    """The chunks of a started call: the body read line by line (:class:`EventReader`), each
    response mapped (:class:`GeminiStreamMapper`), the response closed at the end, on an error
    and on ``aclose``. Transport errors, bodies that are not JSON and error objects in the
    stream raise :class:`APICallError`."""
    mapper = GeminiStreamMapper()
    reader = EventReader()
    httpx2 = import_httpx()

    def annotated(error: APICallError) -> APICallError:
        error.request_body = request
        error.response_headers = dict(response.headers)
        return error

    def objects_chunks(objects: list[dict[str, Any]]) -> Fed:
        if len(objects) == 1 and "error" not in objects[0]:  # the usual: one per event
            return mapper.map_event(objects[0])
        chunks: list[Chunk] = []
        for event in objects:
            if "error" in event:
                raise ChunksThenError(chunks, _stream_error(event, response, request))
            chunks += mapper.map(event)
        return chunks

    def map_line(line: str) -> Fed:
        try:
            objects = reader.feed(line)
        except APICallError as error:
            raise annotated(error) from error.__cause__
        return None if objects is None else objects_chunks(objects)

    def finish() -> list[Chunk]:
        try:
            objects, dangling = reader.finish()
        except APICallError as error:
            raise annotated(error) from error.__cause__
        fed = objects_chunks(objects)
        chunks = [fed] if isinstance(fed, Chunk) else fed or []
        if dangling is not None:
            raise ChunksThenError(chunks, annotated(dangling))
        return chunks + mapper.finish()

    def on_error(exc: BaseException) -> BaseException | None:
        return _transport_error(exc, request) if isinstance(exc, httpx2.HTTPError) else None

    return ChunkStream(
        response.aiter_lines().__anext__,
        map_line,
        finish,
        response.aclose,
        abort_signal=signal,
        on_error=on_error,
    )


def _stream_error(event: dict[str, Any], response: Any, request: object) -> APICallError:
    return error_from_body(
        event,
        status=None,
        text=json.dumps(event),
        headers=dict(response.headers),
        url=str(response.url),
        request_body=request,
    )
