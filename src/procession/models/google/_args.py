"""Function-call arguments that Gemini streams piece by piece (``partialArgs``).

With streamed function-call arguments a call arrives over several responses: a part with the
``name`` and ``willContinue: true``, parts whose ``functionCall.partialArgs`` each set one
value at a JSON path (``{"jsonPath": "$.recipe.steps[0]", "stringValue": "Preheat",
"willContinue": true}``; a string goes on growing while later pieces name the same path), and
an empty ``functionCall`` that ends it. :class:`PartialArgs` rebuilds the arguments object.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

__all__ = ["PartialArgs", "parse_json_path"]

_SEGMENT = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\['([^']*)'\]|\[\"([^\"]*)\"\]")
_MISSING = object()


def parse_json_path(path: str) -> list[str | int]:
    """``"$.a.b[0]['c d']"`` to ``["a", "b", 0, "c d"]`` (an unreadable path gives ``[]``)."""
    rest = path[1:] if path.startswith("$") else path
    if rest and not rest.startswith((".", "[")):
        rest = "." + rest
    segments: list[str | int] = []
    position = 0
    while position < len(rest):
        match = _SEGMENT.match(rest, position)
        if match is None:
            return []
        name, index, quoted, double = match.groups()
        if index is not None:
            segments.append(int(index))
        else:
            segments.append(next(s for s in (name, quoted, double) if s is not None))
        position = match.end()
    return segments


def _value_of(arg: dict[str, Any]) -> Any:
    for key in ("stringValue", "numberValue", "boolValue"):
        value = arg.get(key)
        if value is not None:
            return value
    if "nullValue" in arg:
        return None
    for key in ("structValue", "listValue"):
        if key in arg:
            return arg[key]
    return _MISSING


def _container(parent: Any, key: str | int, next_key: str | int) -> Any:
    """The child container at ``key``, created (a list for an index, else a dict) if absent."""
    fresh: Any = [] if isinstance(next_key, int) else {}
    if isinstance(parent, dict):
        child = parent.get(key)
        if not isinstance(child, dict | list):
            parent[key] = child = fresh
        return child
    assert isinstance(key, int)
    while len(parent) <= key:
        parent.append(None)
    if not isinstance(parent[key], dict | list):
        parent[key] = fresh
    return parent[key]


class PartialArgs:
    """The arguments of one streamed function call, as they arrive."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: dict[str, Any] = {}

    def add(self, partial_args: list[Any]) -> None:
        """Apply one response's ``partialArgs`` pieces."""
        for arg in partial_args:
            if isinstance(arg, dict):
                self._set(parse_json_path(str(arg.get("jsonPath", ""))), arg)

    def _set(self, path: list[str | int], arg: dict[str, Any]) -> None:
        value = _value_of(arg)
        if not path or value is _MISSING:
            return
        node: Any = self.value
        for key, next_key in pairwise(path):
            if isinstance(node, dict) == isinstance(key, int):
                return  # the path disagrees with what earlier pieces built
            node = _container(node, key, next_key)
        leaf = path[-1]
        if isinstance(node, dict) == isinstance(leaf, int):
            return
        if isinstance(node, list) and isinstance(leaf, int):
            while len(node) <= leaf:
                node.append(None)
            current = node[leaf]
        else:
            current = node.get(leaf)
        if isinstance(value, str) and isinstance(current, str):
            value = current + value
        node[leaf] = value
