"""Secrets in telemetry (issue 20): with ``StreamRedactor`` and ``PIIDetector`` in the output
lane, a card number, an e-mail address and an API key in the model's output and in a tool's
error, and a card the user typed (redacted by the input lane), a real server's run reaches a
SQLite trace store, an OTLP/HTTP receiver and Studio's run API. None of them holds a raw
value by default; with content capture the telemetry holds the tool's error message, and
Studio still hands its caller none of them."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from procession import Agent, Memory, tool
from procession.guardrails import PIIDetector, StreamRedactor
from procession.memory import SQLiteStorage
from procession.server import create_app
from procession.testing import Reply, ScriptedModel, ToolCallScript
from procession.tracing import capture_content, otlp_exporter, trace_store, use_tracer_provider
from tests.server.conftest import serve_in_thread
from tests.tracing.receivers import Received

CARD, MAIL = "4111 1111 1111 1111", "ada.lovelace@example.com"
API_KEY = "sk-live-9fQ2mZx7LpR4tW8vB3nK"
TYPED_CARD = "5500 0000 0000 0004"
RAW = (CARD, MAIL, API_KEY, TYPED_CARD)


@tool
def charge(order: str) -> str:
    """Charge an order (it fails, quoting what it was given, as careless tools do)."""
    raise RuntimeError(f"gateway refused card {CARD} for {MAIL} with key {API_KEY}")


def _agent(memory: Memory) -> Agent:
    text = f"Your card {CARD} is on file; we mail {MAIL}; the key is {API_KEY}."
    model = ScriptedModel(
        [
            Reply(tool_calls=[ToolCallScript("charge", {"order": "7"}, "c1")]),
            Reply(text=[text[:17], text[17:40], text[40:]]),
        ]
    )
    return Agent(
        id="support",
        model=model,
        tools=[charge],
        memory=memory,
        input_processors=[PIIDetector()],
        output_processors=[StreamRedactor(), PIIDetector()],
    )


def _studio(url: str) -> str:
    """Every run's timeline Studio hands its caller, as text."""
    deadline = time.monotonic() + 10
    while True:
        runs = httpx.get(f"{url}/api/studio/runs", timeout=10).json()["runs"]
        if runs or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert runs
    answers = [httpx.get(f"{url}/api/studio/runs/{r['runId']}", timeout=10) for r in runs]
    assert all(a.status_code == 200 for a in answers)
    return "\n".join(a.text for a in answers)


def _stored(database: Path) -> str:
    """Every row of every table of the trace store's SQLite file, as text."""
    with sqlite3.connect(database) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        rows = [repr(row) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')]
    return "\n".join(rows)


@pytest.fixture
def served(
    tmp_path: Path, http_receiver: tuple[str, Received]
) -> Iterator[tuple[str, Path, Received, TracerProvider]]:
    endpoint, received = http_receiver
    database = tmp_path / "traces.db"
    store = trace_store(database)
    provider = TracerProvider(resource=Resource.create({"service.name": "secrets"}))
    provider.add_span_processor(BatchSpanProcessor(store, schedule_delay_millis=50))
    provider.add_span_processor(BatchSpanProcessor(otlp_exporter(endpoint)))
    use_tracer_provider(provider)
    memory = Memory(storage=SQLiteStorage(tmp_path / "memory.db"))
    app = create_app([_agent(memory)], memory=memory, traces=store)
    try:
        with serve_in_thread(app) as url:
            yield url, database, received, provider
    finally:
        use_tracer_provider(None)
        provider.shutdown()


def _turn(url: str, provider: TracerProvider) -> str:
    body = {
        "messages": f"My card is {TYPED_CARD}; charge order 7",
        "memory": {"thread": "t-ada", "resource": "ada"},
    }
    answer = httpx.post(f"{url}/api/agents/support/generate", json=body, timeout=30)
    assert answer.status_code == 200, answer.text
    provider.force_flush()
    return answer.text


def _everything(url: str, database: Path, received: Received) -> dict[str, str]:
    return {
        "trace store": _stored(database),
        "otlp": "\n".join(str(request) for request in received.requests),
        "studio": _studio(url),
    }


def test_no_raw_secret_reaches_telemetry_or_studio_by_default(
    served: tuple[str, Path, Received, TracerProvider],
) -> None:
    url, database, received, provider = served
    client = _turn(url, provider)
    assert not any(value in client for value in RAW)  # the client saw none of them
    places = _everything(url, database, received)
    assert "execute_tool charge" in places["otlp"]  # the spans arrived
    assert "tool_error" in places["trace store"]  # the failure is recorded, by its type
    for where, text in places.items():
        for value in RAW:
            assert value not in text, (where, value)


def test_content_capture_is_an_explicit_opt_in_studio_never_shows(
    served: tuple[str, Path, Received, TracerProvider],
) -> None:
    url, database, received, provider = served
    capture_content(True)
    try:
        _turn(url, provider)
    finally:
        capture_content(None)
    places = _everything(url, database, received)
    assert API_KEY in places["otlp"]  # the operator asked for the tool's error message
    assert API_KEY in places["trace store"]
    for value in RAW:
        assert value not in places["studio"], value
    assert TYPED_CARD not in places["otlp"]  # the input lane ran before anything saw it


def test_capture_content_refuses_a_non_bool() -> None:
    from procession import ConfigurationError

    with pytest.raises(ConfigurationError, match="capture_content"):
        capture_content("yes")
