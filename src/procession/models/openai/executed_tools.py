"""Groq's ``executed_tools`` (compound models' server-side tools) as provider-executed chunks.

A compound model (``groq/compound``, ``compound-mini``) runs its own tools (web search, page
visits, code execution, browser automation, Wolfram Alpha) and reports each in
``delta.executed_tools``: an entry with ``index``, ``type`` and ``arguments`` when the tool
starts, the same ``index`` again with ``output`` (and ``search_results``, ``code_results`` or
``browser_results``) when it is done. Each tool becomes a ``tool-call`` chunk with
``providerExecuted: True`` when first seen and a ``tool-result`` chunk when its output
arrives, as Mastra and the AI SDK report tools a provider ran. The pages a search or a browser
visited become ``source`` chunks. Nothing of it goes back on the next turn: the Chat
Completions API has no input form for it, and the answer's text carries what the model drew
from it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from procession.chunks import Chunk
from procession.models.openai.common import parse_args

__all__ = ["ExecutedTools"]

_RESULT_KEYS = ("output", "search_results", "code_results", "browser_results")

Data = dict[str, Any]
AddSource = Callable[[Any, Any, list[Chunk]], None]


class ExecutedTools:
    """Tracks one call's executed tools by ``index``; :meth:`feed` turns entries into chunks.

    Args:
        provider: The provider name, the key of the chunks' provider metadata.
        add_source: Adds a ``source`` chunk for a URL and title (once per URL in a call).
    """

    __slots__ = ("_add_source", "_done", "_ids", "_provider")

    def __init__(self, provider: str, add_source: AddSource) -> None:
        self._provider = provider
        self._add_source = add_source
        self._ids: dict[object, str] = {}  # entry index -> its tool call id
        self._done: set[object] = set()

    def feed(self, entries: Any, response_id: str | None, out: list[Chunk]) -> None:
        """Add the chunks of one delta's ``executed_tools`` list to ``out``."""
        if not isinstance(entries, list):
            return
        for position, entry in enumerate(entries):
            if isinstance(entry, dict):
                self._entry(entry, position, response_id, out)

    def _entry(self, entry: Data, position: int, response_id: str | None, out: list[Chunk]) -> None:
        index = entry.get("index", position)
        name = str(entry.get("type") or "tool")
        call_id = self._ids.get(index)
        if call_id is None:
            call_id = f"{response_id or 'groq'}-executed-{index}"
            self._ids[index] = call_id
            payload: Data = {
                "toolCallId": call_id,
                "toolName": name,
                "args": parse_args(entry.get("arguments") or ""),
                "providerExecuted": True,
                "providerMetadata": {self._provider: {"executedToolType": name}},
            }
            out.append(Chunk("tool-call", payload))
        if index in self._done or not any(entry.get(key) is not None for key in _RESULT_KEYS):
            return
        self._done.add(index)
        result = {key: entry[key] for key in _RESULT_KEYS if entry.get(key) is not None}
        out.append(
            Chunk(
                "tool-result",
                {
                    "toolCallId": call_id,
                    "toolName": name,
                    "result": result,
                    "providerExecuted": True,
                },
            )
        )
        self._sources(entry, out)

    def _sources(self, entry: Data, out: list[Chunk]) -> None:
        found = entry.get("search_results")
        results = found.get("results") if isinstance(found, dict) else None
        pages = [*(results if isinstance(results, list) else ())]
        browsed = entry.get("browser_results")
        pages += browsed if isinstance(browsed, list) else ()
        for page in pages:
            if isinstance(page, dict):
                self._add_source(page.get("url"), page.get("title"), out)
