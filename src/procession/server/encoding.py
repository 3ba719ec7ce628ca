"""JSON for the wire: ``orjson`` with a fallback that never kills a stream.

``orjson`` encodes a chunk about five times faster than the standard library (the per-chunk
budget is 15 µs, D22's stream on the server's hot path). A value it cannot encode (an int
wider than 64 bits, a custom object) falls back to :mod:`json` with ``str()`` for unknown
objects, so one odd tool result never ends a stream.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

__all__ = ["dumps"]

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def dumps(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON."""
    try:
        return orjson.dumps(value, default=_default, option=_OPTIONS)
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, default=str, ensure_ascii=False, separators=(",", ":")).encode()


def _default(value: Any) -> Any:
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return str(value)
