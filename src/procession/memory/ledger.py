"""The usage ledger: one row per run with its model, tokens and cost, kept by memory storage.

Every run that made a model call leaves one :class:`UsageRecord` (whatever its outcome: a
blocked or failed run still spent tokens), written with :meth:`Storage.record_usage`. Budgets
such as :class:`~procession.TokenCostControl` read it back with :meth:`Storage.usage_totals`
for a resource, a thread or a run over a time window. Rows are keyed by run id: writing a run
again replaces its row, so a retried write never counts a run twice.

:func:`usage_record` builds a row from what a run knows, pricing it with
:func:`procession.pricing.cost_of`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from procession.chunks import Usage
from procession.errors import StorageError
from procession.pricing import PriceTable, cost_of

__all__ = [
    "UsageRecord",
    "UsageTotals",
    "check_limit",
    "check_usage_record",
    "totals_from_row",
    "usage_filter",
    "usage_record",
]

_CURRENCY = re.compile(r"^[A-Z]{3}$")
_TOKEN_FIELDS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cached_input_tokens",
)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True, kw_only=True)
class UsageRecord:
    """What one run spent.

    Attributes:
        run_id: The run (one row per run id).
        agent_id: The agent that ran.
        model: ``"provider/model"`` of the run's model calls (the last one's, when they
            differ).
        input_tokens: Input tokens of every model call of the run, retried attempts included
            (cached input tokens included).
        output_tokens: Output tokens (reasoning tokens included).
        total_tokens: Input plus output tokens, as the provider reported them.
        reasoning_tokens: Reasoning tokens, part of ``output_tokens``.
        cached_input_tokens: Input tokens served from the provider's prompt cache.
        cost: What the run cost in ``currency``; ``None`` when the model has no known price.
        currency: ISO currency code of ``cost``.
        resource_id: Whose run it was, when known.
        thread_id: The conversation, when known.
        created_at: When the run ended (UTC).
    """

    run_id: str
    agent_id: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cost: float | None = None
    currency: str = "USD"
    resource_id: str | None = None
    thread_id: str | None = None
    created_at: datetime = field(default_factory=_now)


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """Usage summed over the ledger rows of a scope and window.

    Attributes:
        runs: How many runs (rows) matched.
        cost: The summed cost of the priced rows in ``currency``.
        unpriced_runs: Rows whose model had no known price (their cost is not in ``cost``).
    """

    runs: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    reasoning_tokens: int = 0
    cached_input_tokens: int = 0
    cost: float = 0.0
    currency: str = "USD"
    unpriced_runs: int = 0


def check_usage_record(record: object) -> UsageRecord:
    """``record`` when it is a well-formed :class:`UsageRecord`, else a ``StorageError``
    naming the field, the value and what is expected (storage calls it before writing)."""
    if not isinstance(record, UsageRecord):
        raise StorageError(f"record_usage takes a UsageRecord (got {type(record).__name__})")
    for name in ("run_id", "agent_id", "model"):
        value = getattr(record, name)
        if not isinstance(value, str) or not value or "\x00" in value:
            raise StorageError(f"usage record: {name} must be a non-empty string (got {value!r})")
    for name in ("resource_id", "thread_id"):
        value = getattr(record, name)
        if value is not None and (not isinstance(value, str) or not value or "\x00" in value):
            raise StorageError(f"usage record: {name} must be None or a non-empty string")
    for name in _TOKEN_FIELDS:
        value = getattr(record, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise StorageError(f"usage record: {name} must be an int >= 0 (got {value!r})")
    cost = record.cost
    if cost is not None and (
        isinstance(cost, bool) or not isinstance(cost, int | float) or not cost >= 0
    ):
        raise StorageError(f"usage record: cost must be None or a number >= 0 (got {cost!r})")
    if not isinstance(record.currency, str) or not _CURRENCY.match(record.currency):
        raise StorageError(
            f"usage record: currency must be an ISO code such as 'USD' (got {record.currency!r})"
        )
    if not isinstance(record.created_at, datetime):
        raise StorageError(
            f"usage record: created_at must be a datetime (got {record.created_at!r})"
        )
    return record


def usage_record(
    *,
    run_id: str,
    agent_id: str,
    model: str,
    usage: Usage,
    resource_id: str | None = None,
    thread_id: str | None = None,
    prices: PriceTable | None = None,
    created_at: datetime | None = None,
) -> UsageRecord:
    """The ledger row of a run that used ``usage`` on ``model`` (``"provider/model"``).

    The cost comes from ``prices`` (a run's ``TokenCostControl(prices=...)``, say), then from
    the bundled genai-prices table for a model ``prices`` does not list; a model neither
    knows gives ``cost=None``.
    """
    price = cost_of(model, usage, prices)
    if price is None and prices is not None:
        price = cost_of(model, usage)
    values: dict[str, Any] = {name: getattr(usage, name) or 0 for name in _TOKEN_FIELDS}
    if not values["total_tokens"]:
        values["total_tokens"] = values["input_tokens"] + values["output_tokens"]
    return UsageRecord(
        run_id=run_id,
        agent_id=agent_id,
        model=model,
        cost=None if price is None else price.amount,
        currency="USD" if price is None else price.currency,
        resource_id=resource_id,
        thread_id=thread_id,
        created_at=created_at or _now(),
        **values,
    )


def usage_filter(
    *,
    resource_id: str | None = None,
    thread_id: str | None = None,
    run_id: str | None = None,
    agent_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> list[tuple[str, str, Any]]:
    """The ledger query's conditions as ``(column, operator, value)``, checked; backends
    turn them into SQL with their own placeholders. Times come back in UTC."""
    conditions: list[tuple[str, str, Any]] = []
    for column, value in (
        ("resource_id", resource_id),
        ("thread_id", thread_id),
        ("run_id", run_id),
        ("agent_id", agent_id),
    ):
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            raise StorageError(f"usage query: {column} must be a non-empty string (got {value!r})")
        conditions.append((column, "=", value))
    for name, operator, moment in (("since", ">=", since), ("until", "<", until)):
        if moment is None:
            continue
        if not isinstance(moment, datetime):
            raise StorageError(f"usage query: {name} must be a datetime (got {moment!r})")
        utc = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
        conditions.append(("created_at", operator, utc.astimezone(UTC)))
    return conditions


def totals_from_row(row: tuple[Any, ...], currency: str) -> UsageTotals:
    """``UsageTotals`` from an aggregate row ``(runs, input, output, total, reasoning, cached,
    cost, unpriced)`` (the backends' sums may come back as floats or decimals)."""
    runs, tin, tout, total, reasoning, cached, cost, unpriced = row
    return UsageTotals(
        runs=int(runs),
        input_tokens=int(tin),
        output_tokens=int(tout),
        total_tokens=int(total),
        reasoning_tokens=int(reasoning),
        cached_input_tokens=int(cached),
        cost=float(cost),
        currency=currency,
        unpriced_runs=int(unpriced),
    )


def check_limit(limit: object) -> int | None:
    """``limit`` when it is ``None`` or an int >= 0, else a ``StorageError``."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise StorageError(f"list_usage: limit must be None or an int >= 0 (got {limit!r})")
    return limit
