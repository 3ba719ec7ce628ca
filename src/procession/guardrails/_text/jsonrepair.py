"""Read the JSON value out of a model's answer, repairing what small models break.

A judge asks for JSON, but small models wrap it in prose or code fences, quote with ``'``,
write Python's ``True``/``None``, leave keys unquoted, add trailing commas, or stop mid-object
when they run out of tokens. :func:`extract_json` finds the first object or array in the text
and repairs those faults in one pass; what it cannot read is a ``ValueError`` saying why.
"""

from __future__ import annotations

import json
from typing import Any

from procession.structured import is_value, parse_partial_json

__all__ = ["extract_json"]

_LITERALS = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
    "NaN": "null",
    "Infinity": "null",
    "undefined": "null",
}
_CLOSERS = {"{": "}", "[": "]"}
_AFTER_STRING = frozenset((",", "}", "]", ":", ""))
"""What may follow a closing quote; a quote followed by anything else is part of the text
(``"he said "hi" twice"``)."""


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``, repaired if need be.

    Raises:
        ValueError: The text is empty, holds no ``{`` or ``[``, or does not parse even after
            repair; the message says which.
    """
    stripped = text.strip().lstrip("\ufeff")
    if not stripped:
        raise ValueError("the answer is empty")
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    starts = [i for i in (stripped.find("{"), stripped.find("[")) if i >= 0]
    if not starts:
        raise ValueError(f"the answer holds no JSON object: {_excerpt(stripped)}")
    segment = _segment(stripped, min(starts))
    try:
        return json.loads(segment)
    except json.JSONDecodeError:
        pass
    repaired = _normalise(segment)
    try:
        return json.loads(repaired)
    except json.JSONDecodeError as error:
        value = parse_partial_json(repaired)
        if is_value(value) and isinstance(value, dict | list):
            return value
        raise ValueError(
            f"the answer is not valid JSON even after repair ({error.msg} at position "
            f"{error.pos}): {_excerpt(stripped)}"
        ) from None


def _segment(text: str, start: int) -> str:
    """From ``start`` to the bracket that closes it (string-aware), or to the end."""
    depth = 0
    quote = ""
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start:]


def _normalise(text: str) -> str:
    """Rewrite JSON-like text as JSON: quotes, literals, bare keys, trailing commas, comments,
    and brackets left open by a truncated answer."""
    out: list[str] = []
    stack: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char in "\"'":
            index = _string(text, index, out)
        elif char.isalpha() or char in "_$":
            end = index + 1
            while end < length and (text[end].isalnum() or text[end] in "_$-"):
                end += 1
            word = text[index:end]
            out.append(_LITERALS.get(word) or json.dumps(word))
            index = end
        elif char == "," and _next_significant(text, index + 1) in ("}", "]", ""):
            index += 1
        elif char == "." and text[index + 1 : index + 2].isdigit() and not _after_digit(out):
            out.append("0.")  # .5 -> 0.5
            index += 1
        elif char == "/" and text.startswith("//", index):
            newline = text.find("\n", index)
            index = length if newline < 0 else newline
        elif char == "/" and text.startswith("/*", index):
            close = text.find("*/", index + 2)
            index = length if close < 0 else close + 2
        else:
            if char in _CLOSERS:
                stack.append(_CLOSERS[char])
            elif char in "}]" and stack:
                stack.pop()
            out.append(char)
            index += 1
    return _close("".join(out), stack)


def _string(text: str, start: int, out: list[str]) -> int:
    """Copy the string literal at ``start`` as a double-quoted JSON string; return the index
    after it (an unterminated string runs to the end and is closed)."""
    quote = text[start]
    out.append('"')
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            out.append("'" if following == "'" else char + following)
            index += 2
            continue
        if char == quote and _next_significant(text, index + 1) in _AFTER_STRING:
            out.append('"')
            return index + 1
        if char == '"':
            out.append('\\"')
        elif char == "\n":
            out.append("\\n")
        else:
            out.append(char)
        index += 1
    out.append('"')
    return index


def _after_digit(out: list[str]) -> bool:
    return bool(out) and out[-1][-1:].isdigit()


def _next_significant(text: str, index: int) -> str:
    while index < len(text) and text[index].isspace():
        index += 1
    return text[index] if index < len(text) else ""


def _close(text: str, stack: list[str]) -> str:
    """Close the brackets a truncated answer left open, dropping a dangling key or comma."""
    if not stack:
        return text
    body = text.rstrip()
    if body.endswith(":"):  # a key with no value: drop the key
        body = body[:-1].rstrip()
        if body.endswith('"'):
            body = body[: body.rfind('"', 0, len(body) - 1)].rstrip()
    body = body.rstrip(",").rstrip()
    return body + "".join(reversed(stack))


def _excerpt(text: str) -> str:
    return repr(text if len(text) <= 120 else text[:117] + "...")
