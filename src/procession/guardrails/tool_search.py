"""``ToolSearch``: many tools, few in the prompt; the model finds and loads what it needs.

An agent with hundreds of tools pays for every definition on every call and chooses worse.
``ToolSearch`` keeps a catalogue out of the prompt and gives the model two meta-tools:

- ``search_tools(query)``: ``{"results": [{"name", "description", "score"}], "message"}``,
  the best matches (BM25 over each tool's name and description,
  :mod:`~procession.guardrails._text.bm25`, with Mastra's name boost);
- ``load_tool(toolName=...)`` or ``load_tool(toolNames=[...])`` (Mastra's arguments; ``name``
  is kept as an alias): makes tools callable from the next step on.

Each step also gets Mastra's guidance system message, so a model prompted the Mastra way
finds and loads its tools. The answers and texts are Mastra's word for word.

Loaded tools are remembered per thread (per run without a thread) in a pluggable
:class:`LoadedToolStore` (default: in this process), so a conversation keeps what it loaded.
``auto_load`` loads the top results of every search at once (and so offers no ``load_tool``).
Put it in the input lane::

    agent = Agent(..., tools=[everyday_tool], input_processors=[ToolSearch(all_the_tools)])
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from procession.context import ContextKey, RequestContext, TracingContext
from procession.guardrails._common.options import (
    check_bool,
    check_int,
    check_number,
    option_error,
)
from procession.guardrails._text.bm25 import BM25Index
from procession.processors.base import Processor
from procession.tools import Tool, ToolContext, tool, toolset

__all__ = [
    "TOOL_SEARCH_KEY",
    "InMemoryLoadedToolStore",
    "LoadedToolStore",
    "ToolSearch",
]

TOOL_SEARCH_KEY: ContextKey[str] = ContextKey("tool_search_key")
"""Request-context key holding where this run's loaded tools are kept (the thread id, or
``run:<run id>``); ``ToolSearch`` sets it."""

SEARCH_TOOL = "search_tools"
LOAD_TOOL = "load_tool"

# The texts the model reads are Mastra's, word for word, so prompts written for Mastra work.
GUIDANCE = (
    "To discover available tools, call search_tools with a keyword query. To add one or more "
    "tools to the conversation, call load_tool with a toolName or toolNames array. Tools must "
    "be loaded before they can be used."
)
AUTO_GUIDANCE = (
    "To discover available tools, call search_tools with a keyword query. Matching tools are "
    "loaded automatically and become available on your next turn — there is no separate load "
    "step. After searching, use the tool directly."
)
CATALOG_LEAD = (
    "The following tools are available to load. Call load_tool with a toolName or toolNames "
    "array to add one or more before using them — no search step is required. search_tools is "
    "also available if you need to rediscover tools by keyword."
)
AUTO_CATALOG_LEAD = (
    "The following tools are available. Call search_tools with a keyword to load one — "
    "matching tools are loaded automatically and become available on your next turn."
)
SEARCH_DOC = (
    "Search for available tools by keyword. Use this when you need a capability you don't "
    "currently have. Returns a list of matching tools with their names and descriptions. After "
    "finding a useful tool, use load_tool to make it available."
)
AUTO_SEARCH_DOC = (
    "Search for available tools by keyword. Use this when you need a capability you don't "
    "currently have. Returns a list of matching tools, which are loaded automatically and "
    "become available on your next turn — no separate load step is required."
)
LOAD_DOC = (
    "Load one or more tools into your context. Call this after finding tools with "
    "search_tools. Once loaded, tools will be available for use. Pass a single toolName or an "
    "array of toolNames to load multiple tools at once."
)
NO_NAME = "You must provide either toolName (string) or toolNames (array) to load."
_QUERY_SPLIT = re.compile(r"""[\s\-_.,;:!?()\[\]{}'"]+""")


@runtime_checkable
class LoadedToolStore(Protocol):
    """Which tools a thread has loaded."""

    async def get(self, key: str) -> frozenset[str]:
        """The names loaded under ``key``."""
        ...

    async def add(self, key: str, names: Iterable[str]) -> None:
        """Add names under ``key``."""
        ...


class InMemoryLoadedToolStore:
    """Loaded tools kept in this process (lost on restart; not shared between processes)."""

    def __init__(self) -> None:
        self._loaded: dict[str, frozenset[str]] = {}

    async def get(self, key: str) -> frozenset[str]:
        """The names loaded under ``key``."""
        return self._loaded.get(key, frozenset())

    async def add(self, key: str, names: Iterable[str]) -> None:
        """Add names under ``key``."""
        self._loaded[key] = self._loaded.get(key, frozenset()) | frozenset(names)


class ToolSearch(Processor):
    """Lets the model search a tool catalogue and load tools on demand (Mastra's
    ``ToolSearchProcessor``).

    Args:
        tools: The searchable catalogue (a list or ``{name: tool}``; plain functions too).
        top_k: Results per search (default 5).
        min_score: Results must score above this (default 0: any matching term).
        auto_load: Load the results of each search at once.
        store: Where loaded tools are kept (default: :class:`InMemoryLoadedToolStore`).
        inject_catalog: Also list every catalogue tool's name in a system message each step.
        filter: ``(tool, request_context) -> bool``: which catalogue tools this call may find.
    """

    id = "tool-search"

    def __init__(
        self,
        tools: Any,
        *,
        top_k: int = 5,
        min_score: float = 0.0,
        auto_load: bool = False,
        store: LoadedToolStore | None = None,
        inject_catalog: bool = False,
        filter: Callable[[Tool, RequestContext], bool] | None = None,
    ) -> None:
        owner = "ToolSearch"
        self.catalog: dict[str, Tool] = toolset(tools)
        if not self.catalog:
            raise option_error(owner, "tools", tools, "at least one tool")
        clash = {SEARCH_TOOL, LOAD_TOOL} & set(self.catalog)
        if clash:
            raise option_error(owner, "tools", sorted(clash), "names other than the meta-tools'")
        self.top_k = check_int(owner, "top_k", top_k, 1)
        self.min_score = check_number(owner, "min_score", min_score, 0.0)
        self.auto_load = check_bool(owner, "auto_load", auto_load)
        if store is not None and not isinstance(store, LoadedToolStore):
            raise option_error(owner, "store", store, "a LoadedToolStore (get and add)")
        self.store: LoadedToolStore = store if store is not None else InMemoryLoadedToolStore()
        self.inject_catalog = check_bool(owner, "inject_catalog", inject_catalog)
        if filter is not None and not callable(filter):
            raise option_error(owner, "filter", filter, "a callable or None")
        self.filter = filter
        self.index = BM25Index(
            {name: f"{name} {item.description}" for name, item in self.catalog.items()}
        )
        self.meta_tools = {SEARCH_TOOL: self._search_tool(), LOAD_TOOL: self._load_tool()}

    async def process_input_step(
        self,
        *,
        tools: dict[str, Any],
        system_messages: list[Any],
        request_context: RequestContext,
        tracing_context: TracingContext,
        **_: Any,
    ) -> dict[str, Any]:
        """Offer the meta-tools and every loaded tool for this step, with Mastra's guidance."""
        key = request_context.get(TOOL_SEARCH_KEY)
        if key is None:
            key = request_context.thread_id or f"run:{tracing_context.run_id}"
            request_context.set(TOOL_SEARCH_KEY, key)
        loaded = await self.store.get(key)
        visible = self._visible(request_context)
        offered = {name: self.catalog[name] for name in sorted(loaded) if name in visible}
        meta = dict(self.meta_tools)
        if self.auto_load:
            meta.pop(LOAD_TOOL)  # results are loaded by the search itself, as Mastra's
        added = [AUTO_GUIDANCE if self.auto_load else GUIDANCE]
        if self.inject_catalog and visible:
            added.append(self._catalog_message(visible))
        return {
            "tools": {**tools, **meta, **offered},
            "system_messages": [*system_messages, *added],
        }

    def _catalog_message(self, visible: set[str]) -> str:
        lines = []
        for name in self.catalog:
            if name in visible:
                description = _short(self.catalog[name].description)
                lines.append(f"- `{name}`: {description}" if description else f"- `{name}`")
        lead = AUTO_CATALOG_LEAD if self.auto_load else CATALOG_LEAD
        return lead + "\n\nAvailable tools:\n" + "\n".join(lines)

    def _visible(self, context: RequestContext) -> set[str]:
        if self.filter is None:
            return set(self.catalog)
        return {name for name, item in self.catalog.items() if self.filter(item, context)}

    def rank(self, query: str, context: RequestContext) -> list[dict[str, Any]]:
        """The best ``top_k`` visible tools for ``query``: ``{"name", "description", "score"}``.

        BM25 plus Mastra's name boost (+5 when a query word is the name, +2 when the name
        contains it); descriptions over 150 characters are cut as Mastra's; scores rounded to
        two decimals.
        """
        visible = self._visible(context)
        scores = self.index.scores(query)
        words = [word for word in _QUERY_SPLIT.split(query.lower()) if len(word) > 1]
        for name in scores:
            lower = name.lower()
            scores[name] += sum(5 if lower == word else 2 for word in words if word in lower)
        hits = sorted(
            ((name, score) for name, score in scores.items() if score > self.min_score),
            key=lambda item: (-item[1], item[0]),
        )
        return [
            {
                "name": name,
                "description": _short(self.catalog[name].description),
                "score": round(score, 2),
            }
            for name, score in hits
            if name in visible
        ][: self.top_k]

    async def search(self, query: str, context: RequestContext) -> dict[str, Any]:
        """``search_tools``' answer, Mastra's shape: ``{"results": [...], "message": str}``
        (loading the results with ``auto_load``)."""
        results = self.rank(query, context)
        if not results:
            return {
                "results": [],
                "message": f'No tools found matching "{query}". Try different keywords.',
            }
        names = [item["name"] for item in results]
        if not self.auto_load:
            return {
                "results": results,
                "message": f"Found {len(results)} tool(s). Use load_tool with an exact toolName "
                "or a toolNames array to make them available.",
            }
        key = _key(context)
        before = await self.store.get(key)
        await self.store.add(key, names)
        message = (
            f"Found and loaded {len(results)} tool(s): {', '.join(names)}. They are available on "
            "your next turn — call them directly."
        )
        if any(name in before for name in names):
            message += " Some were already loaded."
        return {"results": results, "message": message}

    async def load(self, names: str | Sequence[str], context: RequestContext) -> dict[str, Any]:
        """``load_tool``' answer, Mastra's shape; one name or several (unknown or filtered
        names are reported to the model, never raised)."""
        single = isinstance(names, str)
        wanted = [names] if isinstance(names, str) else list(dict.fromkeys(names))
        if not wanted:
            return {"success": False, "message": "toolNames array must not be empty."}
        visible = self._visible(context)
        key = _key(context)
        before = await self.store.get(key)
        not_found = [name for name in wanted if name not in visible]
        already = [name for name in wanted if name in visible and name in before]
        loaded = [name for name in wanted if name in visible and name not in before]
        await self.store.add(key, loaded)
        if single:
            return self._one_answer(wanted[0], loaded, already, visible)
        return _load_summary(loaded, already, not_found)

    def _one_answer(
        self, name: str, loaded: list[str], already: list[str], visible: set[str]
    ) -> dict[str, Any]:
        if already:
            return {
                "success": True,
                "message": f'Tool "{name}" is already loaded and available.',
                "toolName": name,
            }
        if loaded:
            return {
                "success": True,
                "message": f'Tool "{name}" loaded successfully. It will be available on your '
                "next turn.",
                "toolName": name,
            }
        lower = name.lower()
        near = [
            n for n in self.catalog if n in visible and (lower in n.lower() or n.lower() in lower)
        ]
        hint = (
            f" Did you mean: {', '.join(near[:3])}?"
            if near
            else f" Use {SEARCH_TOOL} to find available tools."
        )
        return {"success": False, "message": f'Tool "{name}" not found.{hint}', "toolName": name}

    def _search_tool(self) -> Tool:
        search = self.search

        async def search_tools(query: str, context: ToolContext) -> dict[str, Any]:
            return await search(query, context.request_context)

        search_tools.__doc__ = AUTO_SEARCH_DOC if self.auto_load else SEARCH_DOC
        return tool(search_tools)

    def _load_tool(self) -> Tool:
        load = self.load

        async def load_tool(
            context: ToolContext,
            toolName: str | None = None,  # noqa: N803 - Mastra's argument names
            toolNames: list[str] | None = None,  # noqa: N803
            name: str | None = None,
        ) -> dict[str, Any]:
            single = toolName if toolName is not None else name
            if toolNames is None:
                if single is None:
                    return {"success": False, "message": NO_NAME}
                return await load(single, context.request_context)
            if not toolNames and single is None:
                return {"success": False, "message": "toolNames array must not be empty."}
            return await load([*toolNames, *([single] if single else [])], context.request_context)

        load_tool.__doc__ = LOAD_DOC
        return tool(load_tool)


def _load_summary(loaded: list[str], already: list[str], not_found: list[str]) -> dict[str, Any]:
    """Mastra's ``load_tool`` answer for a ``toolNames`` list."""
    parts = []
    if loaded:
        parts.append(f"Loaded: {', '.join(loaded)} — available on your next turn")
    if already:
        parts.append(f"Already loaded: {', '.join(already)}")
    if not_found:
        parts.append(f"Not found: {', '.join(not_found)}")
    answer: dict[str, Any] = {
        "success": not not_found,
        "message": " | ".join(parts),
        "loadedCount": len(loaded),
    }
    for field, names in (("loaded", loaded), ("notFound", not_found), ("alreadyLoaded", already)):
        if names:
            answer[field] = names
    return answer


def _short(description: str) -> str:
    return description if len(description) <= 150 else description[:147] + "..."


def _key(context: RequestContext) -> str:
    key = context.get(TOOL_SEARCH_KEY)
    return key if key is not None else (context.thread_id or "default")
