"""How an OpenAI-compatible Chat Completions server differs from OpenAI's own API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from procession.models.openai.chat_stream import openai_call_id, short_call_id

__all__ = ["COMPATIBLE", "MISTRAL", "OLLAMA", "OPENAI", "ChatDialect"]


@dataclass(frozen=True, slots=True)
class ChatDialect:
    """The request and stream differences of one Chat Completions server.

    Attributes:
        max_tokens_key: The body key of ``max_output_tokens``: OpenAI's reasoning models
            refuse ``max_tokens`` and want ``max_completion_tokens``; most compatible servers
            know only ``max_tokens``.
        stream_usage: Send ``stream_options: {"include_usage": true}`` (servers that reject
            unknown fields, such as Mistral's, send usage on the last chunk anyway).
        seed_key: The body key of ``seed`` (Mistral: ``random_seed``).
        required_tool_choice: The ``tool_choice`` value meaning "call some tool" (Mistral:
            ``any``).
        new_call_id: Makes the id of a tool call the server streamed without one (Mistral
            accepts only 9 letters and digits back).
        think_tags: Read ``<think>…</think>`` in the answer text as reasoning (DeepSeek-R1
            distills on vLLM, Ollama, LM Studio stream it so); on for ``ollama/`` models.
    """

    max_tokens_key: str = "max_tokens"
    stream_usage: bool = True
    seed_key: str = "seed"
    required_tool_choice: str = "required"
    new_call_id: Callable[[], str] = openai_call_id
    think_tags: bool = False


OPENAI = ChatDialect(max_tokens_key="max_completion_tokens")
"""OpenAI's API (and Azure OpenAI's)."""

COMPATIBLE = ChatDialect()
"""Any other OpenAI-compatible server."""

MISTRAL = ChatDialect(
    stream_usage=False,
    seed_key="random_seed",
    required_tool_choice="any",
    new_call_id=short_call_id,
)
"""Mistral's API."""

OLLAMA = ChatDialect(think_tags=True)
"""Ollama's OpenAI-compatible endpoint (reasoning models may stream ``<think>`` tags)."""
