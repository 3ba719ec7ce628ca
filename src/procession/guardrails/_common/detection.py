"""Pieces the built-in detectors share: reporting, callbacks, and reading or rewriting text.

* :func:`report` sends one detection to the processor's ``on_violation`` (D8), for the
  non-blocking strategies (a blocking one reports through its ``abort()``).
* :func:`use_on_violation` installs a constructor's ``on_violation=`` callback.
* :func:`call_back` calls an optional user callback, sync or async, logging what it raises.
* :func:`set_text` replaces a message's text in place (D24): one text part, and the legacy
  ``content.content`` mirror, other parts (tool calls, files) kept.
* :func:`strings_of` and :func:`map_strings` read and rewrite every string inside a tool
  result (nested dicts and lists), so a detector can scan structured output.
* :func:`sentences` splits text into sentences in any script (``.``, ``!``, ``?`` and their
  CJK forms).
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import Callable, Iterator
from typing import Any

from procession.guardrails._common.options import check_callable
from procession.messages.message import Message
from procession.messages.parts import Part, TextPart
from procession.processors.base import ProcessorViolation, notify_violation

__all__ = [
    "call_back",
    "map_strings",
    "report",
    "sentences",
    "set_text",
    "strings_of",
    "use_on_violation",
]

logger = logging.getLogger("procession.processors")

_SENTENCE = re.compile(r"[^.!?\n\u3002\uff01\uff1f]*(?:[.!?\u3002\uff01\uff1f]+|\n+|$)")


async def report(processor: Any, message: str, detail: Any = None) -> None:
    """One detection, to ``processor.on_violation`` (D8); what the callback raises is logged."""
    violation = ProcessorViolation(processor_id=processor.id, message=message, detail=detail)
    await notify_violation(processor, violation)


def use_on_violation(processor: object, owner: str, callback: object) -> None:
    """Install ``callback`` (checked: callable or ``None``) as ``processor.on_violation``."""
    if check_callable(owner, "on_violation", callback) is not None:
        vars(processor)["on_violation"] = callback


async def call_back(callback: Callable[[Any], Any] | None, value: Any, name: str) -> None:
    """``callback(value)`` (sync or async) if given; an exception is logged, not raised."""
    if callback is None:
        return
    try:
        result = callback(value)
        if inspect.isawaitable(result):
            await result
    except Exception:
        logger.exception("%s raised", name)


def set_text(message: Message, text: str) -> None:
    """Replace the text of ``message`` in place: its text parts become one part holding
    ``text`` (where the first one was), other parts stay; ``content.content`` follows."""
    parts = message.content.parts
    first = next((i for i, part in enumerate(parts) if isinstance(part, TextPart)), len(parts))
    kept: list[Part] = [part for part in parts if not isinstance(part, TextPart)]
    kept.insert(min(first, len(kept)), TextPart(text=text))
    message.content.parts = kept
    if message.content.content is not None or not any(isinstance(p, TextPart) for p in parts):
        message.content.content = text


def strings_of(value: Any) -> Iterator[str]:
    """Every string inside ``value`` (a string, or dicts and lists of them), keys excluded."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)


def map_strings(value: Any, function: Callable[[str], str]) -> Any:
    """A copy of ``value`` with ``function`` applied to every string inside it."""
    if isinstance(value, str):
        return function(value)
    if isinstance(value, dict):
        return {key: map_strings(item, function) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [map_strings(item, function) for item in value]
    return value


def sentences(text: str) -> list[str]:
    """``text`` cut after each sentence end (``.!?`` and their CJK forms) or line break; the
    pieces joined give ``text`` back."""
    return [piece for piece in _SENTENCE.findall(text) if piece]
