"""Pricing usage from the bundled price table, and the usage-ledger row builder."""

from __future__ import annotations

import math

import pytest

from procession import ConfigurationError, Usage
from procession.memory.ledger import check_usage_record, usage_record
from procession.pricing import GenAIPrices, ModelPrice, StaticPrices, cost_of, split_model_id


def test_known_model_is_priced_from_the_bundled_table() -> None:
    # gpt-4o: $2.50 per million input tokens, $10 per million output tokens (bundled snapshot)
    price = cost_of("openai/gpt-4o", Usage(input_tokens=1_000_000, output_tokens=100_000))
    assert price is not None
    assert price.currency == "USD"
    assert math.isclose(price.amount, 2.5 + 1.0)


def test_cached_input_is_cheaper_than_uncached_input() -> None:
    plain = cost_of("openai/gpt-4o", Usage(input_tokens=10_000, output_tokens=0))
    cached = cost_of(
        "openai/gpt-4o", Usage(input_tokens=10_000, output_tokens=0, cached_input_tokens=8_000)
    )
    assert plain is not None
    assert cached is not None
    assert 0 < cached.amount < plain.amount


def test_unknown_model_is_unpriced_not_guessed() -> None:
    assert cost_of("acme/never-heard-of-it", Usage(input_tokens=10, output_tokens=1)) is None
    assert GenAIPrices().price(None, "no-such-model-xyz", Usage(1, 1)) is None


def test_local_models_and_empty_usage_cost_nothing() -> None:
    assert cost_of("local/smollm2", Usage(input_tokens=500, output_tokens=50)) == (
        cost_of("local/smollm2", Usage())
    )
    free = cost_of("openai/gpt-4o", Usage())
    assert free is not None
    assert free.amount == 0


def test_static_prices_and_their_checks() -> None:
    table = StaticPrices({"acme/chat": ModelPrice(input=1.0, output=4.0, cached_input=0.1)})
    price = cost_of("acme/chat", Usage(1_000_000, 500_000, cached_input_tokens=400_000), table)
    assert price is not None
    assert math.isclose(price.amount, 0.6 + 0.04 + 2.0)
    assert cost_of("other/chat", Usage(1, 1), table) is None
    with pytest.raises(ConfigurationError, match="output"):
        ModelPrice(input=1.0, output=-1)
    with pytest.raises(ConfigurationError, match="input"):
        ModelPrice(input=True, output=1)
    with pytest.raises(ConfigurationError, match="ModelPrice"):
        StaticPrices({"acme/chat": (1.0, 2.0)})  # type: ignore[dict-item]


def test_split_model_id() -> None:
    assert split_model_id("openai/gpt-5-mini") == ("openai", "gpt-5-mini")
    assert split_model_id("gpt-5-mini") == (None, "gpt-5-mini")


def test_usage_record_prices_the_run_and_checks_itself() -> None:
    record = usage_record(
        run_id="run-1",
        agent_id="support",
        model="openai/gpt-4o",
        usage=Usage(input_tokens=1_000_000, output_tokens=0, reasoning_tokens=None),
        resource_id="user-1",
        thread_id="thread-1",
    )
    assert record.cost is not None
    assert math.isclose(record.cost, 2.5)
    assert record.total_tokens == 1_000_000  # filled in when the provider did not say
    assert check_usage_record(record) is record
    unpriced = usage_record(run_id="r", agent_id="a", model="acme/x", usage=Usage(10, 1))
    assert unpriced.cost is None
