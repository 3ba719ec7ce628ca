"""``ResponseCache``: answer a model call from a cache of earlier identical calls (D7).

In ``process_llm_request`` it derives a key for the call and, on a hit, returns
``{"response": {"chunks": [...], ...}}``: the loop replays those chunks instead of calling the
model, and they go through every output processor again, so today's guardrails apply to
yesterday's answer. In ``process_llm_response`` it stores what the model produced (the raw
chunks, before any output processor) unless the call was itself a replay, failed, or was
blocked. Put it in the input lane::

    agent = Agent(..., input_processors=[ResponseCache(SQLiteCache("cache.db"), ttl=3600)])

**The key** is, unless you give one, a SHA-256 over the agent id, the step number, the scope,
the model (``provider:model_id:specification``) and the prompt (system messages included),
written ``procession:agent-response:<agent>[:<scope hash>]:<hash>``. The tools offered and the
settings are not part of it (the hook does not see them): pass ``key=`` a function when they
vary between calls with the same prompt.

**Scope** keeps users apart: by default the caller's ``resource_id`` goes into the key (no
resource id, no scoping); ``scope=None`` shares entries between everyone; a string or a
function of the request context gives your own. **Per call**, put
``{"key": ..., "scope": ..., "bust": True}`` under :data:`RESPONSE_CACHE` in the request
context: ``bust`` skips the read but stores the fresh answer.

A cache that fails (a backend error, a key function that raises) never fails the run: the
call goes to the model and the problem is logged.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from procession.chunks import Chunk
from procession.context import ContextKey, RequestContext, TracingContext
from procession.guardrails._common.options import (
    check_bool,
    check_number,
    check_str,
    option_error,
)
from procession.guardrails.cache_backends import CacheBackend
from procession.processors.base import Processor

__all__ = ["RESPONSE_CACHE", "CacheKeyFunction", "ResponseCache"]

logger = logging.getLogger("procession.processors.response_cache")

RESPONSE_CACHE: ContextKey[Mapping[str, Any]] = ContextKey("response_cache")
"""Request-context key for per-call overrides: ``{"key", "scope", "bust"}``."""

CacheKeyFunction = Callable[[dict[str, Any]], str]
"""``key(args) -> str``; ``args`` holds ``prompt``, ``model``, ``step_number``, ``agent_id``,
``scope`` and ``request_context``."""

_RESOURCE: Any = "resource"
_NOT_CACHED = frozenset(("error", "tripwire", "abort"))
_KEY = "key"


class ResponseCache(Processor):
    """Replays cached model responses for identical calls (Mastra's ``ResponseCache``).

    Args:
        cache: The backend: :class:`~procession.InMemoryCache`, :class:`~procession.SQLiteCache`
            or any :class:`~procession.CacheBackend`.
        key: A fixed key, or a function of the call (see :data:`CacheKeyFunction`); default:
            derived from agent, step, scope, model and prompt.
        ttl: Seconds an entry lives (default 300); ``None`` for no expiry.
        scope: ``"resource"`` (default: the caller's resource id), ``None`` (shared), a string,
            or a function of the request context returning one.
        bust: Skip every read (still writing fresh answers).
        agent_id: The agent id in derived keys (default: the running agent's).
    """

    id = "response-cache"

    def __init__(
        self,
        cache: CacheBackend,
        *,
        key: str | CacheKeyFunction | None = None,
        ttl: float | None = 300,
        scope: str | Callable[[RequestContext], str | None] | None = _RESOURCE,
        bust: bool = False,
        agent_id: str | None = None,
    ) -> None:
        owner = "ResponseCache"
        if not all(callable(getattr(cache, m, None)) for m in ("get", "set")):
            raise option_error(owner, "cache", cache, "a cache backend with get() and set()")
        self.cache = cache
        if key is not None and not callable(key):
            check_str(owner, "key", key)
        self.key = key
        self.ttl = None if ttl is None else check_number(owner, "ttl", ttl, 0.001)
        if scope is not None and not callable(scope):
            check_str(owner, "scope", scope)
        self.scope = scope
        self.bust = check_bool(owner, "bust", bust)
        self.agent_id = None if agent_id is None else check_str(owner, "agent_id", agent_id)

    async def process_llm_request(
        self,
        *,
        prompt: list[dict[str, Any]],
        model: Any,
        step_number: int,
        state: dict[str, Any],
        request_context: RequestContext,
        tracing_context: TracingContext,
        **_: Any,
    ) -> dict[str, Any] | None:
        """Return the cached response for this call, or remember its key for the write."""
        state.pop(_KEY, None)
        overrides = request_context.get(RESPONSE_CACHE) or {}
        try:
            key = self._key(prompt, model, step_number, request_context, tracing_context)
        except Exception:
            logger.exception("%s: deriving the key failed; calling the model", self.id)
            return None
        state[_KEY] = key
        if self.bust or overrides.get("bust"):
            return None
        try:
            hit = await self.cache.get(key)
        except Exception:
            logger.exception("%s: reading %r failed; calling the model", self.id, key)
            return None
        if not isinstance(hit, dict) or not isinstance(hit.get("chunks"), list):
            return None
        if not hit["chunks"]:
            return None
        return {"response": hit}

    async def process_llm_response(
        self,
        *,
        chunks: Sequence[Chunk | dict[str, Any]],
        from_cache: bool,
        state: dict[str, Any],
        warnings: Any = None,
        request: Any = None,
        raw_response: Any = None,
        **_: Any,
    ) -> None:
        """Store a live, complete, unblocked response under the key of its request."""
        key = state.pop(_KEY, None)
        if from_cache or key is None:
            return
        compact = [_compact(chunk) for chunk in chunks]
        if not _cacheable(compact):
            return
        entry: dict[str, Any] = {"chunks": compact, "warnings": warnings or [], "request": request}
        if raw_response is not None:
            entry["raw_response"] = raw_response
        try:
            json.dumps(entry)
        except (TypeError, ValueError):
            entry.pop("raw_response", None)
            entry["request"] = None
        try:
            await self.cache.set(key, entry, self.ttl)
        except Exception:
            logger.exception("%s: writing %r failed", self.id, key)

    def _key(
        self,
        prompt: list[dict[str, Any]],
        model: Any,
        step_number: int,
        context: RequestContext,
        tracing: TracingContext,
    ) -> str:
        overrides = context.get(RESPONSE_CACHE) or {}
        agent_id = self.agent_id or tracing.agent_id
        scope = overrides["scope"] if "scope" in overrides else self._scope(context)
        if overrides.get("key"):
            return str(overrides["key"])
        if isinstance(self.key, str):
            return self.key
        model_ref = ":".join(
            str(getattr(model, name, ""))
            for name in ("provider", "model_id", "specification_version")
        )
        if self.key is not None:
            args = {
                "prompt": prompt,
                "model": model_ref,
                "step_number": step_number,
                "agent_id": agent_id,
                "scope": scope,
                "request_context": context,
            }
            return str(self.key(args))
        material = {
            "agent": agent_id,
            "step": step_number,
            "scope": scope,
            "model": model_ref,
            "prompt": prompt,
        }
        digest = _sha256(material)[:32]
        middle = f":{_sha256(scope)[:8]}" if scope is not None else ""
        return f"procession:agent-response:{agent_id}{middle}:{digest}"

    def _scope(self, context: RequestContext) -> str | None:
        if self.scope is _RESOURCE:
            return context.resource_id
        if callable(self.scope):
            return self.scope(context)
        return self.scope


def _sha256(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _compact(chunk: Chunk | dict[str, Any]) -> dict[str, Any]:
    if isinstance(chunk, Chunk):
        return {"type": chunk.type, "payload": dict(chunk.payload)}
    return {"type": chunk.get("type"), "payload": dict(chunk.get("payload") or {})}


def _cacheable(chunks: list[dict[str, Any]]) -> bool:
    """A complete response: a finish chunk, not an error, not blocked."""
    finished = False
    for chunk in chunks:
        kind = chunk["type"]
        if kind in _NOT_CACHED:
            return False
        if kind == "finish":
            reason = (chunk["payload"].get("stepResult") or {}).get("reason")
            if reason in ("error", "other", None):
                return False
            finished = True
    return finished
