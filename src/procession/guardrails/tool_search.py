"""``ToolSearch``: many tools, few in the prompt; the model finds and loads what it needs.

An agent with hundreds of tools pays for every definition on every call and chooses worse.
``ToolSearch`` keeps a catalogue out of the prompt and gives the model two meta-tools:

- ``search_tools(query)``: the best matches (BM25 over each tool's name and description,
  :mod:`~procession.guardrails._text.bm25`), with their descriptions;
- ``load_tool(name)``: makes a tool callable from the next step on.

Loaded tools are remembered per thread (per run without a thread) in a pluggable
:class:`LoadedToolStore` (default: in this process), so a conversation keeps what it loaded.
``auto_load`` loads the top results of every search at once. Put it in the input lane::

    agent = Agent(..., tools=[everyday_tool], input_processors=[ToolSearch(all_the_tools)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
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
        """Offer the meta-tools and every loaded tool for this step."""
        key = request_context.get(TOOL_SEARCH_KEY)
        if key is None:
            key = request_context.thread_id or f"run:{tracing_context.run_id}"
            request_context.set(TOOL_SEARCH_KEY, key)
        loaded = await self.store.get(key)
        visible = self._visible(request_context)
        offered = {name: self.catalog[name] for name in sorted(loaded) if name in visible}
        result: dict[str, Any] = {"tools": {**tools, **self.meta_tools, **offered}}
        if self.inject_catalog:
            listing = ", ".join(sorted(visible))
            result["system_messages"] = [
                *system_messages,
                f"More tools can be loaded with {LOAD_TOOL} (find them with {SEARCH_TOOL}): "
                f"{listing}.",
            ]
        return result

    def _visible(self, context: RequestContext) -> set[str]:
        if self.filter is None:
            return set(self.catalog)
        return {name for name, item in self.catalog.items() if self.filter(item, context)}

    async def search(self, query: str, context: RequestContext) -> list[dict[str, Any]]:
        """The catalogue tools matching ``query`` (loading them with ``auto_load``)."""
        visible = self._visible(context)
        hits = [
            (name, score)
            for name, score in self.index.search(
                query, top_k=len(self.index), min_score=self.min_score
            )
            if name in visible
        ][: self.top_k]
        if self.auto_load and hits:
            await self.store.add(_key(context), [name for name, _ in hits])
        return [
            {"name": name, "description": self.catalog[name].description, "score": round(score, 3)}
            for name, score in hits
        ]

    async def load(self, name: str, context: RequestContext) -> dict[str, Any]:
        """Load ``name`` for the thread; unknown names get an answer naming the mistake."""
        if name not in self._visible(context):
            return {
                "loaded": False,
                "error": f"no tool named {name!r}; call {SEARCH_TOOL} to find tool names",
            }
        await self.store.add(_key(context), [name])
        return {"loaded": True, "name": name, "note": "the tool can be called from now on"}

    def _search_tool(self) -> Tool:
        search = self.search

        async def search_tools(query: str, context: ToolContext) -> list[dict[str, Any]]:
            return await search(query, context.request_context)

        search_tools.__doc__ = (
            "Search the available tools by what you need to do. Returns matching tool names "
            f"and descriptions; load one with {LOAD_TOOL} before calling it."
        )
        return tool(search_tools)

    def _load_tool(self) -> Tool:
        load = self.load

        async def load_tool(name: str, context: ToolContext) -> dict[str, Any]:
            return await load(name, context.request_context)

        load_tool.__doc__ = (
            f"Load a tool found with {SEARCH_TOOL} by its exact name, so you can call it in "
            "your next step."
        )
        return tool(load_tool)


def _key(context: RequestContext) -> str:
    key = context.get(TOOL_SEARCH_KEY)
    return key if key is not None else (context.thread_id or "default")
