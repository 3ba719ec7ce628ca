"""The examples of the budget, cache, tool, output and provider-error guardrail pages
(``docs/guardrails/budgets.md``, ``caching.md``, ``tools.md``, ``output.md``,
``provider-errors.md``); ``test_guardrails_misc.py`` runs each one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from procession import (
    Agent,
    BatchParts,
    LanguageModel,
    ProviderHistoryCompat,
    ResponseCache,
    SQLiteCache,
    StreamErrorRetry,
    StructuredOutputProcessor,
    TokenCostControl,
    TokenLimiter,
    ToolCallFilter,
    ToolSearch,
    tool,
)
from procession.memory import Memory
from procession.memory.sqlite import SQLiteStorage


def budgeted_agent(model: LanguageModel | str, db: Path) -> tuple[Agent, Memory]:
    """budgets.md: at most $5 per user per 30 days, prompts within 8,000 tokens, answers
    within 1,000."""
    memory = Memory(SQLiteStorage(db))
    agent = Agent(
        id="support",
        model=model,
        memory=memory,
        input_processors=[
            TokenCostControl(storage=memory.storage, max_cost=5.00, window="30d"),
            TokenLimiter(8_000),
        ],
        output_processors=[TokenLimiter(1_000)],
    )
    return agent, memory


def cached_agent(model: LanguageModel | str, db: Path) -> tuple[Agent, SQLiteCache]:
    """caching.md: identical questions are answered from a SQLite cache for an hour."""
    cache = SQLiteCache(db)
    agent = Agent(id="faq", model=model, input_processors=[ResponseCache(cache, ttl=3600)])
    return agent, cache


@tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    return f"sunny in {city}"


@tool
def convert_currency(amount: float, to: str) -> str:
    """Convert an amount of money to another currency."""
    return f"{amount * 0.9:.2f} {to}"


def tool_agent(model: LanguageModel | str) -> Agent:
    """tools.md: a catalogue found on demand; old tool calls left out of the prompt."""
    return Agent(
        id="assistant",
        model=model,
        input_processors=[
            ToolSearch([get_weather, convert_currency]),
            ToolCallFilter(),
        ],
        max_steps=6,
    )


class Forecast(BaseModel):
    """What the structuring model extracts from the agent's prose."""

    city: str
    temperature_c: int


def structured_agent(model: LanguageModel | str, structurer: LanguageModel | str) -> Agent:
    """output.md: prose from one model, a ``Forecast`` from another; text in batches."""
    return Agent(
        id="forecaster",
        model=model,
        output_processors=[
            StructuredOutputProcessor(Forecast, structurer),
            BatchParts(batch_size=8),
        ],
        max_processor_retries=1,
    )


def resilient_agent(model: LanguageModel | str, **options: Any) -> Agent:
    """provider-errors.md: transient stream errors retried; history fixed per provider."""
    compat = ProviderHistoryCompat()
    return Agent(
        id="resilient",
        model=model,
        input_processors=[compat],
        error_processors=[StreamErrorRetry(max_retries=2, delay_ms=0), compat],
        **options,
    )
