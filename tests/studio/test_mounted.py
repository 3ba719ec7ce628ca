"""Studio mounted under a prefix in a Starlette app (``Mount("/ai", app=create_app(...))``),
in Chromium: the page loads its assets and calls the API relative to where it is mounted, so
nothing is asked of the host app's own paths (issue 24)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from procession import Memory
from procession.memory import SQLiteStorage
from procession.server import create_app
from procession.tracing import use_tracer_provider
from tests.server.conftest import serve_in_thread
from tests.studio.agents import echo_agent, support_agent, traced
from tests.studio.conftest import Served


async def home(_: Any) -> PlainTextResponse:
    return PlainTextResponse("the host app")


@pytest.fixture(scope="module")
def mounted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The API and Studio at ``/ai`` of a host app, which has its own ``/``."""
    tmp: Path = tmp_path_factory.mktemp("mounted")
    provider, store = traced(tmp / "traces.db")
    use_tracer_provider(provider)
    memory = Memory(storage=SQLiteStorage(tmp / "memory.db"))
    api = create_app([support_agent(memory), echo_agent()], memory=memory, traces=store)
    host = Starlette(routes=[Route("/", home), Mount("/ai", app=api)])
    try:
        with serve_in_thread(host) as url:
            yield Served(url, store, memory)
    finally:
        use_tracer_provider(None)
        provider.shutdown()


@pytest.mark.parametrize("path", ["/ai/studio", "/ai/studio/"])
def test_studio_under_a_prefix_loads_and_talks_to_its_api(
    page: Any, mounted: Served, path: str
) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    answers: list[tuple[int, str]] = []
    page.on("response", lambda answer: answers.append((answer.status, answer.url)))
    page.goto(f"{mounted.url}{path}#agent=echo")
    expect(page.locator("#agent-head h1")).to_have_text("Echo")  # session and agents read
    expect(page.locator(".brand")).to_have_css("font-size", "15px")  # the style applied
    page.fill("#prompt", "hello")
    page.press("#prompt", "Enter")
    turn = page.locator(".turn.assistant").last
    expect(turn.locator(".footer")).to_be_visible()
    expect(turn.locator(".text")).to_have_text("Echo here.")
    page.click('.tabs [data-tab="runs"]')
    expect(page.locator("#runs tbody tr").first).to_be_visible()  # the runs route, prefixed
    assert [(status, url) for status, url in answers if status >= 400] == []
    assert asked, "the page made no requests"
    for url in asked:
        assert url.startswith(f"{mounted.url}/ai/"), url
    assert f"{mounted.url}/ai/studio/assets/studio.js" in asked
    assert f"{mounted.url}/ai/api/studio/session" in asked
