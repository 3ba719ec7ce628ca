"""Google Gemini models over the Gemini REST API (the ``google`` extra brings ``httpx2``).

``GoogleModel("gemini-2.5-flash")`` posts to ``models/<id>:streamGenerateContent?alt=sse`` and
turns each streamed ``GenerateContentResponse`` into procession chunks; function calls get
generated ids when the API sends none. Failures surface as
:class:`~procession.errors.APICallError`. (The ``google-genai`` SDK was tried first: its
nested stream generators do not close the HTTP response when a caller stops early, so the
adapter speaks the wire protocol itself.)

``"google/<model>"`` ids resolve through :func:`model_from_id`, which reads ``GOOGLE_API_KEY``
(or ``GEMINI_API_KEY``) and, optionally, ``GOOGLE_BASE_URL``.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from procession.chunks import Chunk, Usage, finish_chunk
from procession.errors import APICallError, ConfigurationError
from procession.models._abort import cancel_on_abort
from procession.models._google_request import build_request
from procession.models.base import ModelCallOptions, StreamResult
from procession.signals import AbortSignal

__all__ = ["GoogleModel", "model_from_id"]

_FILTERED = frozenset(
    ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY")
)


DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
"""The Gemini API root; ``base_url`` replaces it (include the version path)."""


def _import_httpx() -> Any:
    try:
        import httpx2
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "GoogleModel needs httpx2: pip install 'procession[google]'"
        ) from exc
    return httpx2


def finish_reason(raw: str | None, saw_tool_call: bool) -> str:
    """Procession's finish reason for a Gemini ``finishReason``."""
    if raw is None:
        return "unknown"
    if raw == "STOP":
        return "tool-calls" if saw_tool_call else "stop"
    if raw == "MAX_TOKENS":
        return "length"
    if raw in _FILTERED:
        return "content-filter"
    return "other"


def _error_message(body: object, fallback: str) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("message") or fallback)
    return fallback


async def _status_error(response: Any, request_body: object) -> APICallError:
    text = (await response.aread()).decode("utf-8", "replace")
    try:
        data: object = json.loads(text)
    except ValueError:
        data = None
    return APICallError(
        _error_message(data, f"Gemini API error {response.status_code}"),
        status_code=response.status_code,
        response_body=text,
        response_headers=dict(response.headers),
        url=str(response.url),
        request_body=request_body,
        data=data,
    )


def _transport_error(exc: BaseException, request_body: object) -> APICallError:
    return APICallError(f"Gemini transport error: {exc!r}", request_body=request_body)


class _Mapper:
    """Gemini ``GenerateContentResponse`` dicts to procession chunks for one call."""

    def __init__(self) -> None:
        self.open: dict[str, str] = {}  # "text"/"reasoning" -> id of the open part
        self.counter = 0
        self.saw_tool_call = False
        self.finish_raw: str | None = None
        self.usage = Usage()
        self.metadata_sent = False

    def map(self, response: dict[str, Any]) -> list[Chunk]:
        out: list[Chunk] = []
        if not self.metadata_sent:
            self.metadata_sent = True
            meta = {"id": response.get("responseId"), "modelId": response.get("modelVersion")}
            out.append(Chunk("response-metadata", meta))
        if "usageMetadata" in response:
            self.usage = _usage(response["usageMetadata"])
        for candidate in response.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                out.extend(self._part(part))
            self.finish_raw = candidate.get("finishReason", self.finish_raw)
        return out

    def _part(self, part: dict[str, Any]) -> list[Chunk]:
        if "functionCall" in part:
            return self._close_all() + self._tool_call(part["functionCall"])
        text = part.get("text")
        if not text:
            return []
        kind = "reasoning" if part.get("thought") else "text"
        out = self._close("text" if kind == "reasoning" else "reasoning")
        if kind not in self.open:
            self.counter += 1
            self.open[kind] = str(self.counter)
            out.append(Chunk(f"{kind}-start", {"id": self.open[kind]}))
        out.append(Chunk(f"{kind}-delta", {"id": self.open[kind], "text": text}))
        return out

    def _tool_call(self, call: dict[str, Any]) -> list[Chunk]:
        self.saw_tool_call = True
        call_id = call.get("id") or f"call_{uuid.uuid4().hex[:24]}"
        ids = {"toolCallId": call_id, "toolName": call["name"]}
        args = dict(call.get("args") or {})
        return [
            Chunk("tool-call-input-streaming-start", dict(ids)),
            Chunk("tool-call-delta", {**ids, "argsTextDelta": json.dumps(args)}),
            Chunk("tool-call-input-streaming-end", dict(ids)),
            Chunk("tool-call", {**ids, "args": args}),
        ]

    def _close(self, kind: str) -> list[Chunk]:
        part_id = self.open.pop(kind, None)
        return [] if part_id is None else [Chunk(f"{kind}-end", {"id": part_id})]

    def _close_all(self) -> list[Chunk]:
        return self._close("reasoning") + self._close("text")

    def finish(self) -> list[Chunk]:
        meta = {"google": {"finishReason": self.finish_raw}}
        reason = finish_reason(self.finish_raw, self.saw_tool_call)
        done = finish_chunk(reason, self.usage, provider_metadata=meta, raw_reason=self.finish_raw)
        return [*self._close_all(), done]


def _usage(meta: dict[str, Any]) -> Usage:
    candidates = meta.get("candidatesTokenCount")
    thoughts = meta.get("thoughtsTokenCount")
    output = None if candidates is None else candidates + (thoughts or 0)
    return Usage(
        input_tokens=meta.get("promptTokenCount"),
        output_tokens=output,
        total_tokens=meta.get("totalTokenCount"),
        reasoning_tokens=thoughts,
        cached_input_tokens=meta.get("cachedContentTokenCount"),
    )


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
        elif client is None:
            raise ConfigurationError("GoogleModel: pass api_key= or client=")
        self._owns_client = client is None
        if client is None:
            client = _import_httpx().AsyncClient(timeout=_import_httpx().Timeout(600, connect=10))
        self.client: Any = client

    def __repr__(self) -> str:
        return f"GoogleModel({self.model_id!r})"

    async def aclose(self) -> None:
        """Close the HTTP client if this model created it."""
        if self._owns_client:
            await self.client.aclose()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start one streamed call; HTTP errors raise :class:`APICallError` here."""
        body = build_request(options)
        url = f"{self.base_url}/models/{self.model_id}:streamGenerateContent"
        headers = {**self._headers, **(options.settings.get("headers") or {})}
        request = self.client.build_request(
            "POST", url, params={"alt": "sse"}, json=body, headers=headers
        )
        signal = options.abort_signal
        try:
            with cancel_on_abort(signal):
                response = await self.client.send(request, stream=True)
        except _import_httpx().HTTPError as exc:
            raise _transport_error(exc, body) from exc
        if response.status_code >= 400:
            try:
                raise await _status_error(response, body)
            finally:
                await response.aclose()
        return StreamResult(
            stream=_chunks(response, signal, body),
            request={"body": body},
            response={"headers": dict(response.headers)},
        )


async def _events(response: Any) -> AsyncGenerator[dict[str, Any], None]:
    """The JSON objects of an SSE body (``data:`` lines; events end at blank lines)."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line.strip() and data:
            yield json.loads("\n".join(data))
            data = []
    if data:
        yield json.loads("\n".join(data))


async def _chunks(
    response: Any, signal: AbortSignal | None, request: object
) -> AsyncIterator[Chunk]:
    mapper = _Mapper()
    events = _events(response)
    httpx2 = _import_httpx()
    try:
        while True:
            try:
                with cancel_on_abort(signal):
                    event = await events.__anext__()
            except StopAsyncIteration:
                break
            except httpx2.HTTPError as exc:
                raise _transport_error(exc, request) from exc
            if "error" in event:
                raise _stream_error(event, response, request)
            for chunk in mapper.map(event):
                yield chunk
        for chunk in mapper.finish():
            yield chunk
    finally:
        await events.aclose()
        await response.aclose()


def _stream_error(event: dict[str, Any], response: Any, request: object) -> APICallError:
    error = event["error"] if isinstance(event["error"], dict) else {}
    code = error.get("code")
    return APICallError(
        str(error.get("message") or "Gemini stream error"),
        status_code=code if isinstance(code, int) else None,
        response_body=json.dumps(event),
        response_headers=dict(response.headers),
        request_body=request,
        data=event,
    )


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
