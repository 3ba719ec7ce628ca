"""``OpenAIResponsesModel``: OpenAI's Responses API (``POST /responses``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from procession.models.base import ModelCallOptions, StreamResult
from procession.models.openai.common import (
    ClientFactory,
    ClientOwner,
    check_name,
    post_stream,
    start_call,
    stream_result,
)
from procession.models.openai.responses_request import responses_request_body
from procession.models.openai.responses_stream import ResponsesStreamMapper

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIResponsesModel"]


class OpenAIResponsesModel:
    """A model served by OpenAI's Responses API, streamed.

    Takes the same arguments as :class:`~procession.models.openai.OpenAIChatModel` (but no
    ``dialect``). Built-in tools go in
    ``provider_options={"openai": {"tools": [{"type": "web_search"}]}}``; their calls come
    back as ``tool-call``/``tool-result`` chunks with ``providerExecuted: True`` and the
    provider's output item as ``result``. Reasoning items round-trip: their id and encrypted
    content ride on the reasoning parts' provider metadata and go back in the next request
    (with ``store: false``, ``reasoning.encrypted_content`` is asked for automatically for
    reasoning models).
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
        client_factory: ClientFactory | None = None,
    ) -> None:
        self.model_id = check_name("model_id", model_id)
        self.provider = check_name("provider", provider)
        self._owner = ClientOwner(
            api_key=api_key,
            base_url=base_url,
            client=client,
            headers=headers,
            client_factory=client_factory,
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
        headers = options.settings.get("headers") or {}
        client = self.client
        sdk_stream = await start_call(
            lambda: post_stream(client, "/responses", body, headers), options, body
        )
        mapper = ResponsesStreamMapper(self.provider)
        return stream_result(sdk_stream, mapper, options, body, warnings)

    def __repr__(self) -> str:
        return f"OpenAIResponsesModel({self.model_id!r}, provider={self.provider!r})"
