"""Model output is valid Unicode: lone surrogates become U+FFFD where text enters (D34).

A provider's JSON may carry an escaped lone surrogate (``"\\ud800"``); decoded, it is a Python
string no UTF-8 encoder accepts, so it would end the server's stream, fail ``generate`` and
be refused by storage. The adapters (the OpenAI, Anthropic and Gemini ``ChunkStream``, and the
testing models that stand in for them) pass every chunk through :func:`valid_chunk` before
any hook sees it: a lone surrogate becomes U+FFFD and the run goes on. A surrogate *pair*
becomes the character it encodes. The local model decodes UTF-8 with ``errors="replace"`` and
so never makes one. User input with a lone surrogate is still refused (D34, decision 0226).

The per-chunk cost is one dictionary look-up and ``str.isascii()`` for a text delta; only
non-ASCII text is encoded to check it.
"""

from __future__ import annotations

from typing import Any

from procession.chunks import Chunk

__all__ = ["valid_chunk", "valid_text", "valid_value"]

_DELTA_FIELDS = {
    "text-delta": "text",
    "reasoning-delta": "text",
    "tool-call-delta": "argsTextDelta",
}
_PLAIN = frozenset({"text-start", "text-end", "reasoning-start", "reasoning-end"})


def _is_valid(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def valid_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (``text`` itself when valid)."""
    if _is_valid(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def valid_value(value: Any) -> Any:
    """``value`` (JSON-like) with every string valid; the same object when nothing changed."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        fixed = {
            valid_text(k) if isinstance(k, str) else k: valid_value(v) for k, v in value.items()
        }
        same = all(a is b for a, b in zip(fixed.values(), value.values(), strict=True))
        return value if same and list(fixed) == list(value) else fixed
    if isinstance(value, list | tuple):
        items = [valid_value(v) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


def valid_chunk(chunk: Chunk) -> Chunk:
    """``chunk`` with every lone surrogate in its payload replaced by U+FFFD (in place)."""
    payload = chunk.payload
    field = _DELTA_FIELDS.get(chunk.type)
    if field is not None:  # the hot path: one string
        text = payload.get(field)
        if type(text) is str and not text.isascii() and not _is_valid(text):
            payload[field] = valid_text(text)
        return chunk
    if chunk.type not in _PLAIN and payload:
        fixed = valid_value(payload)
        if fixed is not payload:
            chunk.payload = fixed
    return chunk
