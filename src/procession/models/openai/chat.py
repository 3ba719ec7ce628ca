"""``OpenAIChatModel``: the Chat Completions API, for OpenAI and compatible servers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any, cast

from procession.chunks import Chunk
from procession.models.base import ModelCallOptions, StreamResult
from procession.models.openai.chat_request import chat_request_body
from procession.models.openai.chat_stream import ChatStreamMapper
from procession.models.openai.common import ClientOwner, start_call, stream_result

if TYPE_CHECKING:
    from openai import AsyncOpenAI, AsyncStream
    from openai.types.chat import ChatCompletionChunk

__all__ = ["OpenAIChatModel"]

_BODY_PARAMS = ("model", "messages", "stream")


class OpenAIChatModel:
    """A model served by ``POST /chat/completions`` (streamed, with usage).

    Args:
        model_id: The model name the server knows, such as ``"gpt-5-mini"``.
        api_key: The API key (the SDK falls back to ``OPENAI_API_KEY``).
        base_url: The API root, such as ``"http://localhost:11434/v1"`` for a compatible
            server (the SDK falls back to ``OPENAI_BASE_URL``).
        client: An ``openai.AsyncOpenAI`` to use instead of making one; it is not closed
            by :meth:`aclose`. Give it ``max_retries=0`` to leave retries to
            :mod:`procession.models.retry`.
        provider: The provider name reported by the model, also a key of
            ``provider_options`` it reads (besides ``"openai"``).
        headers: Headers sent with every request.

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
    ) -> None:
        self.model_id = model_id
        self.provider = provider
        self._owner = ClientOwner(
            api_key=api_key, base_url=base_url, client=client, headers=headers
        )
        self._option_names = ("openai",) if provider == "openai" else ("openai", provider)
        # OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens);
        # compatible servers mostly know only max_tokens.
        self._max_tokens_key = "max_completion_tokens" if provider == "openai" else "max_tokens"

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
            max_tokens_key=self._max_tokens_key,
            warnings=warnings,
        )
        extra = {key: value for key, value in body.items() if key not in _BODY_PARAMS}
        headers = dict(options.settings.get("headers") or {})
        completions = self.client.chat.completions
        sdk_stream = cast(
            "AsyncStream[ChatCompletionChunk]",
            await start_call(
                lambda: completions.create(
                    model=self.model_id,
                    messages=cast(Any, body["messages"]),
                    stream=True,
                    extra_body=extra,
                    extra_headers=headers or None,
                ),
                options,
                body,
            ),
        )
        chunks = _chunks(sdk_stream, ChatStreamMapper(self.provider))
        return stream_result(sdk_stream, chunks, options, body, warnings)

    def __repr__(self) -> str:
        return f"OpenAIChatModel({self.model_id!r}, provider={self.provider!r})"


async def _chunks(
    sdk_stream: AsyncStream[ChatCompletionChunk], mapper: ChatStreamMapper
) -> AsyncIterator[Chunk]:
    async for event in sdk_stream:
        for chunk in mapper.feed(event):
            yield chunk
    for chunk in mapper.finish():
        yield chunk
