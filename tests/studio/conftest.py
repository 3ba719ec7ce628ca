"""Studio on a real server: uvicorn on loopback, SQLite memory, a trace store, and Debian's
Chromium driven by Playwright (launched from ``/usr/bin/chromium``, never downloaded)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from procession import Memory
from procession.memory import SQLiteStorage
from procession.server import Auth, create_app
from procession.tracing import TraceStore, use_tracer_provider
from tests.server.conftest import serve_in_thread
from tests.studio.agents import echo_agent, support_agent, traced

CHROMIUM = Path(os.environ.get("PROCESSION_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
KEY = "studio-key-0123456789abcdef"
OTHER_KEY = "studio-other-0123456789abcdef"


@dataclass
class Served:
    """A running Studio: its base URL, the trace store it reads, and its memory."""

    url: str
    store: TraceStore
    memory: Memory


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (``scripts/test.sh`` installs it when missing).

    Per module, not per session: while the synchronous Playwright runs, its event loop counts
    as running in the main thread, so a later test's ``asyncio.run`` would fail."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh tab (its own session storage), failing the test on any script error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.set_default_timeout(15_000)
    yield tab
    context.close()
    assert errors == []


def _serve(tmp: Path, auth: Auth | None) -> Iterator[Served]:
    provider, store = traced(tmp / "traces.db")
    use_tracer_provider(provider)
    memory = Memory(storage=SQLiteStorage(tmp / "memory.db"))
    app = create_app([support_agent(memory), echo_agent()], memory=memory, traces=store, auth=auth)
    try:
        with serve_in_thread(app) as url:
            yield Served(url, store, memory)
    finally:
        use_tracer_provider(None)
        provider.shutdown()


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Studio on loopback without credentials (processor notes allowed by default)."""
    yield from _serve(tmp_path_factory.mktemp("studio"), None)


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Studio behind API keys: ``KEY`` is resource ``alice``, ``OTHER_KEY`` is ``bob``."""
    auth = Auth(api_keys={KEY: "alice", OTHER_KEY: "bob"})
    yield from _serve(tmp_path_factory.mktemp("guarded"), auth)


def screenshot(page: Any, name: str) -> None:
    """Save a screenshot for the docs when ``PROCESSION_STUDIO_SCREENSHOTS`` names a folder
    (``docs/images`` refreshes the committed ones)."""
    folder = os.environ.get("PROCESSION_STUDIO_SCREENSHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / name), full_page=False)


def caller_runs(url: str, headers: dict[str, str], wanted: int = 1) -> list[dict[str, Any]]:
    """The caller's runs, once the batch processor has written ``wanted`` of them."""
    deadline = time.monotonic() + 10
    while True:
        answer = httpx.get(f"{url}/api/studio/runs", headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
        runs: list[dict[str, Any]] = answer.json()["runs"]
        if len(runs) >= wanted or time.monotonic() > deadline:
            return runs
        time.sleep(0.1)
