"""What a model call cost: token usage priced from a maintained, offline price table.

:func:`cost_of` prices a :class:`~procession.chunks.Usage` for a ``"provider/model"`` id. The
default table is `genai-prices` (the ``guardrails`` extra), whose price data ships inside the
package: nothing is fetched at run time (its opt-in auto-update is never started here). A model
the table does not know costs ``None`` ("unpriced"), never a guess; models that run on this
machine (``local/...``) cost 0. Pass your own :class:`PriceTable` (or a
:class:`StaticPrices`) for negotiated prices or private models::

    prices = StaticPrices({"acme/chat-1": ModelPrice(input=0.5, output=1.5)})  # USD per Mtok
    cost_of("acme/chat-1", Usage(input_tokens=1000, output_tokens=200), prices)

Usage follows the AI SDK: ``input_tokens`` includes ``cached_input_tokens`` and
``output_tokens`` includes ``reasoning_tokens``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from procession.chunks import Usage
from procession.errors import ConfigurationError

__all__ = [
    "LOCAL_PROVIDERS",
    "GenAIPrices",
    "ModelPrice",
    "Price",
    "PriceTable",
    "StaticPrices",
    "cost_of",
    "default_price_table",
    "run_prices",
    "split_model_id",
]

logger = logging.getLogger("procession.pricing")

LOCAL_PROVIDERS = frozenset({"local"})
"""Providers whose models run on this machine: their calls cost nothing."""

_PROVIDER_IDS = {"google": "google", "gemini": "google", "azure": "azure", "openai": "openai"}
"""procession provider names that genai-prices spells differently (others pass unchanged)."""


@dataclass(frozen=True, slots=True)
class Price:
    """The cost of some usage: an amount and its ISO currency code."""

    amount: float
    currency: str = "USD"


@runtime_checkable
class PriceTable(Protocol):
    """Prices usage for a model; ``None`` when the model is unknown to the table."""

    def price(self, provider: str | None, model: str, usage: Usage) -> Price | None:
        """The cost of ``usage`` on ``provider``'s ``model`` (``provider`` may be ``None``)."""
        ...


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """One model's prices per million tokens.

    Attributes:
        input: Per million uncached input tokens.
        output: Per million output tokens (reasoning included).
        cached_input: Per million cached input tokens; ``None`` means the input price.
        currency: ISO currency code.
    """

    input: float
    output: float
    cached_input: float | None = None
    currency: str = "USD"

    def __post_init__(self) -> None:
        for name in ("input", "output", "cached_input"):
            value = getattr(self, name)
            if value is None and name == "cached_input":
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigurationError(
                    f"ModelPrice: {name} must be a number >= 0 (per million tokens), got {value!r}"
                )


class StaticPrices:
    """A price table from a mapping ``{"provider/model" or "model": ModelPrice}``.

    A lookup tries ``"provider/model"`` first, then the bare model id.
    """

    def __init__(self, prices: Mapping[str, ModelPrice]) -> None:
        if not isinstance(prices, Mapping):
            raise ConfigurationError(
                f"StaticPrices: prices must be a mapping of model id to ModelPrice, got {prices!r}"
            )
        for key, value in prices.items():
            if not isinstance(key, str) or not key or not isinstance(value, ModelPrice):
                raise ConfigurationError(
                    f"StaticPrices: expected {{'provider/model': ModelPrice(...)}}, "
                    f"got {key!r}: {value!r}"
                )
        self._prices = dict(prices)

    def price(self, provider: str | None, model: str, usage: Usage) -> Price | None:
        """The cost of ``usage`` at the listed price, or ``None`` for an unlisted model."""
        entry = self._prices.get(f"{provider}/{model}") if provider else None
        if entry is None:
            entry = self._prices.get(model)
        if entry is None:
            return None
        cached = usage.cached_input_tokens or 0
        uncached = max(0, (usage.input_tokens or 0) - cached)
        cached_rate = entry.input if entry.cached_input is None else entry.cached_input
        amount = (
            uncached * entry.input
            + cached * cached_rate
            + (usage.output_tokens or 0) * entry.output
        ) / 1_000_000
        return Price(amount, entry.currency)


class GenAIPrices:
    """The `genai-prices` table bundled in its package (needs the ``guardrails`` extra).

    Lookups are cached per model; an unknown model is ``None`` (logged once).
    """

    def __init__(self) -> None:
        try:
            import genai_prices
        except ImportError as error:  # pragma: no cover - the guardrails extra is missing
            raise ConfigurationError(
                "GenAIPrices needs the genai-prices package: pip install 'procession[guardrails]'"
            ) from error
        self._module: Any = genai_prices
        self._unknown: set[tuple[str | None, str]] = set()

    def price(self, provider: str | None, model: str, usage: Usage) -> Price | None:
        """The cost of ``usage`` from the bundled snapshot, or ``None`` for an unknown model."""
        key = (provider, model)
        if key in self._unknown:
            return None
        values = {
            "input_tokens": usage.input_tokens or 0,
            "output_tokens": usage.output_tokens or 0,
        }
        if usage.cached_input_tokens:
            values["cache_read_tokens"] = usage.cached_input_tokens
        provider_id = _PROVIDER_IDS.get(provider or "", provider)
        try:
            calculation = self._module.calc_price(
                self._module.Usage(**values), model, provider_id=provider_id
            )
        except LookupError:
            try:  # the provider may be a gateway name genai-prices does not know
                calculation = self._module.calc_price(self._module.Usage(**values), model)
            except LookupError:
                self._unknown.add(key)
                logger.info("no price for %s/%s: its runs are recorded unpriced", provider, model)
                return None
        return Price(float(calculation.total_price), "USD")


@lru_cache(maxsize=1)
def default_price_table() -> PriceTable:
    """The default table: :class:`GenAIPrices` (one instance per process)."""
    return GenAIPrices()


def run_prices(processors: Iterable[object]) -> PriceTable | None:
    """The price table a run's processors carry (``TokenCostControl(prices=...)``'s
    ``prices``), the first one in lane order; ``None`` when none does. The usage ledger prices
    the run's row with it, so a private model's budget holds across runs."""
    for processor in processors:
        table = getattr(processor, "prices", None)
        if table is not None and isinstance(table, PriceTable):
            return table
    return None


def split_model_id(model: str) -> tuple[str | None, str]:
    """``"openai/gpt-5-mini"`` → ``("openai", "gpt-5-mini")``; a bare id has no provider."""
    provider, sep, name = model.partition("/")
    return (provider, name) if sep and provider and name else (None, model)


def cost_of(model: str, usage: Usage, prices: PriceTable | None = None) -> Price | None:
    """What ``usage`` on ``model`` (``"provider/model"``) cost; ``None`` when unpriced.

    Local models cost 0; a call that used no tokens costs 0 (a cache replay, say).
    """
    provider, name = split_model_id(model)
    if provider in LOCAL_PROVIDERS:
        return Price(0.0)
    if not (usage.input_tokens or usage.output_tokens):
        return Price(0.0)
    table = prices if prices is not None else default_price_table()
    return table.price(provider, name, usage)
