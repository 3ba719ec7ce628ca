"""``TokenCostControl``: stop (or warn) when a resource, thread or run has spent its budget.

Before every step it adds up what the scope spent: the **usage ledger** that memory storage
keeps (one row per finished run: model, tokens, cost; see :mod:`procession.memory.ledger`) over
a time window, plus what the current run has spent so far (its own model calls, priced from
each call's usage as the steps end, retried attempts included, cache replays free). When the
sum reaches ``max_cost`` the ``block`` strategy aborts before the model is called again; the
``warn`` strategy logs and reports the violation once per run. ``warn_at_percent`` adds a soft
threshold reported once per run::

    guard = TokenCostControl(storage=memory.storage, max_cost=5.00, window="30d")
    agent = Agent(..., memory=memory, input_processors=[guard])

Costs come from the price table of :mod:`procession.pricing` (genai-prices by default, bundled
offline). A model without a known price counts 0 and is reported in the metadata as unpriced.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeAlias

from procession.chunks import Chunk, Usage
from procession.context import RequestContext, TracingContext
from procession.guardrails._common.options import (
    check_choice,
    check_number,
    check_str,
    option_error,
)
from procession.guardrails._common.reporting import CallbackViolations, ViolationCallback
from procession.pricing import PriceTable, cost_of
from procession.processors.base import ProcessorViolation, notify_violation

__all__ = ["CostScope", "TokenCostControl", "parse_window"]

logger = logging.getLogger("procession.processors.token_cost")

CostScope: TypeAlias = Literal["resource", "thread", "run"]
"""Whose spending ``TokenCostControl`` adds up: the resource's, the thread's or this run's."""
_SCOPES: tuple[CostScope, ...] = ("resource", "thread", "run")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_WINDOW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
DEFAULT_MESSAGE = "Cost limit reached: {usage} of {limit} {currency} spent ({scope} scope)"

MaxCost: TypeAlias = float | Callable[[RequestContext], "float | None"]


def parse_window(value: str | timedelta | None) -> timedelta | None:
    """``"30m"``, ``"24h"``, ``"7d"``, ``"2w"`` (or a ``timedelta``) as a ``timedelta``;
    ``None`` means all time. Anything else raises ``ConfigurationError``."""
    if value is None:
        return None
    if isinstance(value, timedelta):
        if value <= timedelta(0):
            raise option_error("TokenCostControl", "window", value, "a positive duration")
        return value
    match = _WINDOW.match(value) if isinstance(value, str) else None
    if match is None or float(match.group(1)) <= 0:
        raise option_error(
            "TokenCostControl",
            "window",
            value,
            "None, a timedelta or a duration such as '30m', '24h', '7d' or '2w'",
        )
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])


class TokenCostControl(CallbackViolations):
    """Blocks or warns when a scope's spending reaches ``max_cost`` (Mastra's
    ``TokenCostControl``; input lane: ``process_input_step`` and ``process_llm_response``).

    Args:
        storage: Where the usage ledger lives: a storage with ``usage_totals`` (such as
            ``memory.storage``) or a ``Memory``.
        max_cost: The budget in ``currency``, or a function of the request context returning
            it (``None`` from the function: no limit for this call).
        scope: ``"resource"`` (default: the caller's ``resource_id``), ``"thread"`` or
            ``"run"`` (this run only).
        window: How far back the ledger counts: ``"7d"`` (default), ``"24h"``, a
            ``timedelta``, or ``None`` for all time.
        strategy: ``"block"`` (default: abort, no retry) or ``"warn"`` (log and report).
        warn_at_percent: A soft threshold in percent of ``max_cost`` (reported once per run).
        message: The abort/warning text; ``{usage}``, ``{limit}``, ``{currency}`` and
            ``{scope}`` are filled in.
        currency: The currency of ``max_cost`` (ledger rows in other currencies are ignored).
        prices: The price table for the current run's calls (default: genai-prices).
        on_violation: Called for every violation (D8), hard or soft, whatever the strategy.
    """

    id = "token-cost-control"

    def __init__(
        self,
        *,
        storage: Any,
        max_cost: MaxCost,
        scope: CostScope = "resource",
        window: str | timedelta | None = "7d",
        strategy: Literal["block", "warn"] = "block",
        warn_at_percent: float | None = None,
        message: str = DEFAULT_MESSAGE,
        currency: str = "USD",
        prices: PriceTable | None = None,
        on_violation: ViolationCallback | None = None,
    ) -> None:
        owner = "TokenCostControl"
        ledger = getattr(storage, "storage", storage)  # a Memory carries its storage
        if not callable(getattr(ledger, "usage_totals", None)):
            raise option_error(
                owner, "storage", storage, "a storage with a usage ledger, or a Memory"
            )
        self.storage = ledger
        if callable(max_cost):
            self.max_cost: MaxCost = max_cost
        else:
            self.max_cost = check_number(owner, "max_cost", max_cost, 0.0)
        self.scope: CostScope = check_choice(owner, "scope", scope, _SCOPES)  # type: ignore[assignment]
        self.window = parse_window(window)
        self.strategy = check_choice(owner, "strategy", strategy, ("block", "warn"))
        self.warn_at_percent = (
            None
            if warn_at_percent is None
            else check_number(owner, "warn_at_percent", warn_at_percent, 0.0, 100.0)
        )
        self.message = check_str(owner, "message", message)
        self.currency = check_str(owner, "currency", currency)
        if prices is not None and not callable(getattr(prices, "price", None)):
            raise option_error(owner, "prices", prices, "a PriceTable (with a price() method)")
        self.prices = prices
        self.set_on_violation(owner, on_violation)

    async def process_input_step(
        self,
        *,
        state: dict[str, Any],
        request_context: RequestContext,
        tracing_context: TracingContext,
        abort: Callable[..., Any],
        **_: Any,
    ) -> None:
        """Sum the scope's spending and block or warn when it reaches the budget."""
        limit = self._limit(request_context)
        if limit is None:
            return
        spent, unpriced = await self._spent(state, request_context, tracing_context)
        hard = spent >= limit
        soft = self.warn_at_percent is not None and spent >= limit * self.warn_at_percent / 100
        if not (hard or soft):
            return
        metadata = {
            "usage": spent,
            "limit": limit,
            "currency": self.currency,
            "scope": self.scope,
            "window_seconds": None if self.window is None else self.window.total_seconds(),
            "threshold": "hard" if hard else "soft",
            "run_cost": state.get("run_cost", 0.0),
            "unpriced_runs": unpriced,
        }
        text = self.message.format(
            usage=f"{spent:.6g}", limit=f"{limit:.6g}", currency=self.currency, scope=self.scope
        )
        if hard and self.strategy == "block":
            abort(text, retry=False, metadata=metadata)  # the runner reports it (D8)
        flag = "warned_hard" if hard else "warned_soft"
        if state.get(flag):
            return
        state[flag] = True
        logger.warning("%s: %s", self.id, text)
        await notify_violation(
            self, ProcessorViolation(processor_id=self.id, message=text, detail=metadata)
        )

    async def process_llm_response(
        self,
        *,
        state: dict[str, Any],
        chunks: Sequence[Chunk | dict[str, Any]],
        model: Any,
        from_cache: bool,
        **_: Any,
    ) -> None:
        """Add this model call's cost to the run's (a cache replay costs nothing)."""
        if from_cache:
            return
        usage = _finish_usage(chunks)
        if usage is None:
            return
        name = f"{getattr(model, 'provider', '')}/{getattr(model, 'model_id', '')}"
        price = cost_of(name, usage, self.prices)
        if price is None:
            state["run_unpriced"] = state.get("run_unpriced", 0) + 1
        elif price.currency == self.currency:
            state["run_cost"] = state.get("run_cost", 0.0) + price.amount

    def _limit(self, request_context: RequestContext) -> float | None:
        if not callable(self.max_cost):
            return self.max_cost
        value = self.max_cost(request_context)
        if value is None:
            return None
        return check_number("TokenCostControl", "max_cost()", value, 0.0)

    async def _spent(
        self, state: dict[str, Any], context: RequestContext, tracing: TracingContext
    ) -> tuple[float, int]:
        """What the scope spent: the ledger's finished runs plus this run so far."""
        run_cost: float = state.get("run_cost", 0.0)
        run_unpriced: int = state.get("run_unpriced", 0)
        if self.scope == "run":
            return run_cost, run_unpriced
        key = context.resource_id if self.scope == "resource" else context.thread_id
        if not key:
            logger.debug("%s: no %s id; counting this run only", self.id, self.scope)
            return run_cost, run_unpriced
        since = None if self.window is None else datetime.now(UTC) - self.window
        filters = {"resource_id": key} if self.scope == "resource" else {"thread_id": key}
        totals = await self.storage.usage_totals(since=since, currency=self.currency, **filters)
        return totals.cost + run_cost, totals.unpriced_runs + run_unpriced


def _finish_usage(chunks: Sequence[Chunk | dict[str, Any]]) -> Usage | None:
    """The usage of a step's ``finish`` chunk (chunks as objects or in compact form)."""
    for chunk in reversed(chunks):
        kind = chunk.type if isinstance(chunk, Chunk) else chunk.get("type")
        if kind != "finish":
            continue
        payload = chunk.payload if isinstance(chunk, Chunk) else chunk.get("payload") or {}
        return Usage.from_dict((payload.get("output") or {}).get("usage"))
    return None
