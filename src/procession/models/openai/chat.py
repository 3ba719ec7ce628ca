"""``OpenAIChatModel``: the Chat Completions API, for OpenAI and compatible servers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from procession.errors import ConfigurationError
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.openai.chat_request import chat_request_body
from procession.models.openai.chat_stream import ChatStreamMapper
from procession.models.openai.common import (
    ClientFactory,
    ClientOwner,
    check_name,
    post_stream,
    start_call,
    stream_result,
)
from procession.models.openai.dialect import COMPATIBLE, OPENAI, ChatDialect
from procession.models.openai.json_answer import json_or_stream

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatModel"]


class OpenAIChatModel:
    """A model served by ``POST /chat/completions`` (streamed, with usage).

    Args:
        model_id: The model name the server knows, such as ``"gpt-5-mini"`` (for Azure
            OpenAI, the deployment name).
        api_key: The API key (the SDK falls back to ``OPENAI_API_KEY``).
        base_url: The API root, such as ``"http://127.0.0.1:11434/v1"`` for a compatible
            server (the SDK falls back to ``OPENAI_BASE_URL``).
        client: An ``openai.AsyncOpenAI`` to use instead of making one; it is not closed
            by :meth:`aclose`. The model asks it for no retries of its own on each request:
            retries belong to :mod:`procession.models.retry`.
        provider: The provider name reported by the model, also a key of
            ``provider_options`` it reads (besides ``"openai"``).
        headers: Headers sent with every request.
        dialect: How the server differs from OpenAI's API (:class:`ChatDialect`); by
            default OpenAI's own for ``provider="openai"``, else a plain compatible server.
        client_factory: Makes the client on the first request instead (such as an
            ``openai.AsyncAzureOpenAI``); :meth:`aclose` closes it.

    ``provider_options["openai"]`` keys (camelCase or snake_case, such as
    ``reasoningEffort``) are copied into the request body as they are.
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
        dialect: ChatDialect | None = None,
        client_factory: ClientFactory | None = None,
    ) -> None:
        self.model_id = check_name("model_id", model_id)
        self.provider = check_name("provider", provider)
        if dialect is not None and not isinstance(dialect, ChatDialect):
            raise ConfigurationError(f"dialect: expected a ChatDialect, got {dialect!r}")
        self._owner = ClientOwner(
            api_key=api_key,
            base_url=base_url,
            client=client,
            headers=headers,
            client_factory=client_factory,
        )
        self._option_names = ("openai",) if provider == "openai" else ("openai", provider)
        self.dialect = dialect or (OPENAI if provider == "openai" else COMPATIBLE)

    @property
    def client(self) -> AsyncOpenAI:
        """The ``openai.AsyncOpenAI`` client this model calls."""
        return self._owner.client

    async def aclose(self) -> None:
        """Close the HTTP client, if this model made it."""
        await self._owner.aclose()

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        """Start a streamed chat completion; raises :class:`APICallError` if it is refused."""
        warnings: list[dict[str, Any]] = []
        body = chat_request_body(
            self.model_id,
            options,
            option_names=self._option_names,
            dialect=self.dialect,
            warnings=warnings,
        )
        headers = options.settings.get("headers") or {}
        client = self.client

        async def call() -> Any:  # a server that ignores "stream": true answers JSON
            return await json_or_stream(
                await post_stream(client, "/chat/completions", body, headers)
            )

        sdk_stream = await start_call(call, options, body)
        mapper = ChatStreamMapper(
            self.provider, self.dialect.new_call_id, think_tags=self.dialect.think_tags
        )
        return stream_result(sdk_stream, mapper, options, body, warnings)

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model_id!r}, provider={self.provider!r})"
