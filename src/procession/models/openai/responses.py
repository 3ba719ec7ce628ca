"""``OpenAIResponsesModel``: OpenAI's Responses API (``POST /responses``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from procession.chunks import Chunk
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.openai.common import ClientOwner, start_call, stream_result
from procession.models.openai.responses_request import responses_request_body
from procession.models.openai.responses_stream import ResponsesStreamMapper

if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.responses import ResponseStreamEvent

__all__ = ["OpenAIResponsesModel"]


class OpenAIResponsesModel:
    """A model served by OpenAI's Responses API, streamed.

    Takes the same arguments as :class:`~procession.models.openai.OpenAIChatModel`.
    Built-in tools go in ``provider_options={"openai": {"tools": [{"type": "web_search"}]}}``;
    their calls come back as ``tool-call``/``tool-result`` chunks with
    ``providerExecuted: True`` and the provider's output item as ``result``.
    """

    specification_version = "v2"
    supports_structured_output = True

    def __init__(
        self,
        model_id: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: AsyncOpenAI | None = None,
        provider: str = "openai",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.model_id = model_id
        self.provider = provider
        self._owner = ClientOwner(
            api_key=api_key, base_url=base_url, client=client, headers=headers
        )

    @property
    def client(self) -> AsyncOpenAI:
        """The ``openai.AsyncOpenAI`` client this model calls."""
        return self._owner.client

    async def aclose(self) -> None:
        """Close the HTTP client, if this model made it."""
        await self._owner.aclose()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start a streamed response; raises :class:`APICallError` if it is refused."""
        warnings: list[dict[str, Any]] = []
        body = responses_request_body(self.model_id, options, warnings=warnings)
        extra = {key: value for key, value in body.items() if key not in ("model", "stream")}
        headers = dict(options.settings.get("headers") or {})
        responses = self.client.responses
        sdk_stream = cast(
            "AsyncStream[ResponseStreamEvent]",
            await start_call(
                lambda: responses.create(
                    model=self.model_id,
                    stream=True,
                    extra_body=extra,
                    extra_headers=headers or None,
                ),
                options,
                body,
            ),
        )
        chunks = _chunks(sdk_stream, ResponsesStreamMapper(self.provider))
        return stream_result(sdk_stream, chunks, options, body, warnings)

    def __repr__(self) -> str:
        return f"OpenAIResponsesModel({self.model_id!r}, provider={self.provider!r})"


async def _chunks(
    sdk_stream: AsyncStream[ResponseStreamEvent], mapper: ResponsesStreamMapper
) -> AsyncIterator[Chunk]:
    async for event in sdk_stream:
        for chunk in mapper.feed(event.to_dict(mode="json")):
            yield chunk
    for chunk in mapper.finish():
        yield chunk
