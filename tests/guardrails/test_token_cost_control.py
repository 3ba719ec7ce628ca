"""TokenCostControl: budgets read from the usage ledger plus the current run's own calls."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from procession import (
    Agent,
    ConfigurationError,
    ProcessorViolation,
    RequestContext,
    TokenCostControl,
    Usage,
    tool,
)
from procession.memory.ledger import UsageRecord
from procession.memory.storage import Storage
from procession.pricing import ModelPrice, StaticPrices
from procession.testing import Reply, ScriptedModel, ToolCallScript

# The scripted model costs $1 per million input tokens and $2 per million output tokens.
PRICES = StaticPrices({"scripted/scripted-model": ModelPrice(input=1.0, output=2.0)})


@tool
def look_up(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def _row(run: str, cost: float | None, *, at: datetime | None = None, **ids: Any) -> UsageRecord:
    return UsageRecord(
        run_id=run,
        agent_id="support",
        model="scripted/scripted-model",
        input_tokens=100,
        output_tokens=10,
        total_tokens=110,
        cost=cost,
        created_at=at or datetime.now(UTC),
        **ids,
    )


def _agent(model: ScriptedModel, guard: TokenCostControl) -> Agent:
    return Agent(id="support", model=model, tools=[look_up], input_processors=[guard])


class Seen:
    def __init__(self) -> None:
        self.violations: list[ProcessorViolation[Any]] = []

    def __call__(self, violation: ProcessorViolation[Any]) -> None:
        self.violations.append(violation)


@pytest.mark.asyncio
async def test_a_resource_over_budget_is_blocked_before_the_model_is_called(
    ledger_storage: Storage,
) -> None:
    await ledger_storage.record_usage(_row("r1", 3.0, resource_id="alice"))
    await ledger_storage.record_usage(_row("r2", 2.5, resource_id="alice"))
    await ledger_storage.record_usage(_row("r3", 50.0, resource_id="bob"))  # not Alice's
    seen = Seen()
    guard = TokenCostControl(storage=ledger_storage, max_cost=5.0, on_violation=seen)
    model = ScriptedModel(["never sent"])
    result = await _agent(model, guard).generate("hi", resource_id="alice")
    assert model.calls == []
    assert result.tripwire is not None
    assert result.tripwire["processorId"] == "token-cost-control"
    assert result.tripwire["retry"] is False
    assert result.tripwire["reason"] == "Cost limit reached: 5.5 of 5 USD spent (resource scope)"
    assert result.tripwire["metadata"]["threshold"] == "hard"
    assert len(seen.violations) == 1  # D8: the abort is the report
    under = await _agent(ScriptedModel(["hello"]), guard).generate("hi", resource_id="carol")
    assert under.text == "hello"


@pytest.mark.asyncio
async def test_the_window_and_unpriced_runs(ledger_storage: Storage) -> None:
    old = datetime.now(UTC) - timedelta(days=10)
    await ledger_storage.record_usage(_row("old", 100.0, at=old, resource_id="alice"))
    await ledger_storage.record_usage(_row("free", None, resource_id="alice"))
    guard = TokenCostControl(storage=ledger_storage, max_cost=1.0, window="7d")
    result = await _agent(ScriptedModel(["fine"]), guard).generate("hi", resource_id="alice")
    assert result.text == "fine"  # the $100 run is outside the window; the unpriced one is 0
    all_time = TokenCostControl(storage=ledger_storage, max_cost=1.0, window=None)
    blocked = await _agent(ScriptedModel([]), all_time).generate("hi", resource_id="alice")
    assert blocked.tripwire is not None
    assert blocked.tripwire["metadata"]["unpriced_runs"] == 1


@pytest.mark.asyncio
async def test_the_current_runs_own_calls_count_and_stop_its_next_step(
    ledger_storage: Storage,
) -> None:
    expensive = Usage(input_tokens=2_000_000, output_tokens=0)  # $2.00
    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("look_up", {"query": "x"})], usage=expensive), "done"]
    )
    guard = TokenCostControl(storage=ledger_storage, max_cost=1.5, scope="run", prices=PRICES)
    result = await _agent(model, guard).generate("hi")
    assert len(model.calls) == 1  # step 1 spent $2: step 2 never reached the model
    assert result.tripwire is not None
    assert result.tripwire["metadata"] is not None
    assert result.tripwire["metadata"]["run_cost"] == pytest.approx(2.0)


@pytest.mark.asyncio
async def test_thread_scope_adds_the_ledger_and_this_run(ledger_storage: Storage) -> None:
    await ledger_storage.record_usage(_row("t1", 0.9, resource_id="alice", thread_id="th-1"))
    usage = Usage(input_tokens=200_000, output_tokens=0)  # $0.20
    model = ScriptedModel(
        [Reply(tool_calls=[ToolCallScript("look_up", {"query": "x"})], usage=usage), "done"]
    )
    guard = TokenCostControl(storage=ledger_storage, max_cost=1.0, scope="thread", prices=PRICES)
    result = await _agent(model, guard).generate("hi", resource_id="alice", thread_id="th-1")
    assert result.tripwire is not None
    assert result.tripwire["metadata"] is not None
    assert result.tripwire["metadata"]["usage"] == pytest.approx(1.1)
    other = await _agent(ScriptedModel(["ok"]), guard).generate(
        "hi", resource_id="alice", thread_id="th-2"
    )
    assert other.text == "ok"


@pytest.mark.asyncio
async def test_warn_strategy_and_soft_threshold_report_once_per_run(
    ledger_storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    await ledger_storage.record_usage(_row("w1", 0.85, resource_id="alice"))
    seen = Seen()
    guard = TokenCostControl(
        storage=ledger_storage,
        max_cost=1.0,
        strategy="warn",
        warn_at_percent=80,
        on_violation=seen,
        prices=PRICES,
    )
    steps = [Reply(tool_calls=[ToolCallScript("look_up", {"query": str(i)})]) for i in range(3)]
    model = ScriptedModel([*steps, "done"])
    with caplog.at_level(logging.WARNING, logger="procession.processors.token_cost"):
        result = await _agent(model, guard).generate("hi", resource_id="alice")
    assert result.text == "done"
    assert [(v.detail or {}).get("threshold") for v in seen.violations] == [
        "soft"
    ]  # 4 steps, one report
    assert "0.85 of 1 USD" in caplog.text
    await ledger_storage.record_usage(_row("w2", 0.5, resource_id="alice"))
    seen.violations.clear()
    model = ScriptedModel([*steps, "done"])
    result = await _agent(model, guard).generate("hi", resource_id="alice")
    assert result.text == "done"  # warn never blocks
    assert [(v.detail or {}).get("threshold") for v in seen.violations] == ["hard"]


@pytest.mark.asyncio
async def test_max_cost_from_the_request_context(ledger_storage: Storage) -> None:
    await ledger_storage.record_usage(_row("c1", 2.0, resource_id="alice"))

    def budget(context: RequestContext) -> float | None:
        return None if context.get("plan") == "unlimited" else 1.0

    guard = TokenCostControl(storage=ledger_storage, max_cost=budget)
    free = RequestContext({"plan": "unlimited"}, resource_id="alice")
    assert (await _agent(ScriptedModel(["yes"]), guard).generate("hi", request_context=free)).text
    paid = RequestContext({"plan": "basic"}, resource_id="alice")
    blocked = await _agent(ScriptedModel([]), guard).generate("hi", request_context=paid)
    assert blocked.tripwire is not None


@pytest.mark.asyncio
async def test_a_cache_replay_costs_nothing(ledger_storage: Storage) -> None:
    class Replay:
        id = "replay"

        def process_llm_request(self, **_: Any) -> dict[str, Any]:
            return {"response": {"chunks": [
                {"type": "text-delta", "payload": {"id": "t", "text": "cached"}},
                {"type": "finish", "payload": {"stepResult": {"reason": "stop"},
                 "output": {"usage": {"inputTokens": 9_000_000, "outputTokens": 0}}}},
            ]}}  # fmt: skip

    guard = TokenCostControl(storage=ledger_storage, max_cost=1.0, scope="run", prices=PRICES)
    agent = Agent(id="a", model=ScriptedModel([]), input_processors=[Replay(), guard])
    state: dict[str, Any] = {}
    await guard.process_llm_response(state=state, chunks=[], model=ScriptedModel(), from_cache=True)
    assert state == {}
    assert (await agent.generate("hi")).text == "cached"


def test_options_are_checked(tmp_path: Any) -> None:
    from procession.memory.sqlite import SQLiteStorage

    storage = SQLiteStorage(tmp_path / "x.db")
    with pytest.raises(ConfigurationError, match="max_cost"):
        TokenCostControl(storage=storage, max_cost=True)
    with pytest.raises(ConfigurationError, match="max_cost"):
        TokenCostControl(storage=storage, max_cost=-1)
    with pytest.raises(ConfigurationError, match="scope"):
        TokenCostControl(storage=storage, max_cost=1, scope="user")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="window"):
        TokenCostControl(storage=storage, max_cost=1, window="7 days")
    with pytest.raises(ConfigurationError, match="warn_at_percent"):
        TokenCostControl(storage=storage, max_cost=1, warn_at_percent=150)
    with pytest.raises(ConfigurationError, match="storage"):
        TokenCostControl(storage=object(), max_cost=1)
    guard = TokenCostControl(storage=storage, max_cost=1, window="36h")
    assert guard.window == timedelta(hours=36)


@pytest.mark.asyncio
async def test_a_private_models_budget_holds_across_runs(ledger_storage: Storage) -> None:
    from procession import Memory

    private = StaticPrices({"acme/chat-1": ModelPrice(input=1.0, output=0.0)})  # $1 per Mtok
    memory = Memory(ledger_storage)
    guard = TokenCostControl(storage=memory, max_cost=1.0, prices=private)
    spend = Reply(text=["costly"], usage=Usage(input_tokens=2_000_000, output_tokens=0))  # $2
    first = ScriptedModel([spend], provider="acme", model_id="chat-1")
    agent = Agent(id="support", model=first, memory=memory, input_processors=[guard])
    result = await agent.generate("hi", resource_id="alice", thread_id="t-1")
    assert result.text == "costly"  # nothing was spent before this run
    totals = await ledger_storage.usage_totals(resource_id="alice")
    assert totals.cost == pytest.approx(2.0)  # priced with the guard's table, not unpriced
    assert totals.unpriced_runs == 0
    second = ScriptedModel(["never sent"], provider="acme", model_id="chat-1")
    agent.model = second
    blocked = await agent.generate("again", resource_id="alice", thread_id="t-1")
    assert second.calls == []  # the $1 budget after $2 spent blocks before the model
    assert blocked.tripwire is not None
    assert blocked.tripwire["metadata"]["usage"] == pytest.approx(2.0)
