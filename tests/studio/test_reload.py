"""A reload keeps the chat's thread and shows its transcript from memory, and the runs table
shows what each run was asked: the first user text it stored, only to whom may read it
(issue 24)."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
from playwright.sync_api import expect

from tests.studio.agents import CLEAN, FIRST, SECOND
from tests.studio.conftest import KEY, OTHER_KEY, Served, caller_runs


def _send(page: Any, text: str) -> Any:
    page.fill("#prompt", text)
    page.press("#prompt", "Enter")
    turn = page.locator(".turn.assistant").last
    expect(turn.locator(".footer")).to_be_visible()
    return turn


def test_a_reload_keeps_the_thread_and_shows_its_transcript(page: Any, studio: Served) -> None:
    page.goto(f"{studio.url}/studio#agent=support")
    expect(page.locator("#thread")).not_to_have_value("")
    thread = page.input_value("#thread")
    assert f"thread={thread}" in page.url
    _send(page, FIRST)  # blocked by a tripwire: nothing stored
    _send(page, SECOND)
    for _ in range(50):  # memory may finish storing the turn just after its stream ended
        page.reload()
        expect(page.locator("#thread")).to_have_value(thread)
        if page.locator(".turn.stored-turn").count() >= 2:
            break
        page.wait_for_timeout(100)
    stored = page.locator("#transcript .turn.stored-turn")
    expect(stored).to_have_count(2)
    expect(stored.nth(0)).to_have_class("turn user stored-turn")
    expect(stored.nth(0).locator(".text")).to_have_text(SECOND)
    expect(stored.nth(1).locator(".text")).to_have_text(CLEAN)
    # The thread survives a new tab's address too: the URL carries it.
    url = page.url
    page.goto("about:blank")
    page.goto(url)
    expect(page.locator("#thread")).to_have_value(thread)
    expect(page.locator("#transcript .turn.stored-turn")).to_have_count(2)
    # A new thread starts empty and is the one a reload keeps.
    page.click("#new-thread")
    fresh = page.input_value("#thread")
    assert fresh != thread
    page.reload()
    expect(page.locator("#thread")).to_have_value(fresh)
    expect(page.locator("#transcript .turn")).to_have_count(0)


def test_the_runs_table_shows_what_each_run_was_asked(page: Any, studio: Served) -> None:
    page.goto(f"{studio.url}/studio#agent=support")
    blocked = _send(page, FIRST).locator(".footer .mono").inner_text()
    answered = _send(page, SECOND).locator(".footer .mono").inner_text()
    page.click('.tabs [data-tab="runs"]')
    row = page.locator(f'#runs tr[data-run="{answered}"]')
    for _ in range(50):  # spans reach the trace store in batches
        if row.count():
            break
        page.wait_for_timeout(100)
        page.click("#refresh-runs")
    expect(row.locator("td.asked")).to_have_text(SECOND)
    # A run that stored nothing (the tripwire) shows what this tab asked it.
    expect(page.locator(f'#runs tr[data-run="{blocked}"] td.asked')).to_have_text(FIRST)


def test_the_runs_route_says_what_was_asked_to_its_own_caller_only(guarded: Served) -> None:
    alice, bob = {"x-api-key": KEY}, {"x-api-key": OTHER_KEY}
    long = SECOND + " " + "Please check every order on the account. " * 5
    for who, text in ((alice, FIRST), (alice, long), (bob, SECOND)):
        body = {"messages": text, "memory": {"thread": f"t-asked-{who['x-api-key'][:9]}"}}
        answer = httpx.post(
            f"{guarded.url}/api/agents/support/stream", json=body, headers=who, timeout=20
        )
        assert answer.status_code == 200
    run, blocked = caller_runs(guarded.url, alice, 2)
    assert blocked["outcome"] == "tripwire"
    assert blocked["asked"] is None  # it stored nothing: the route says nothing
    assert run["asked"].startswith(SECOND)
    assert run["asked"].endswith("…")
    assert len(run["asked"]) == 120
    (theirs,) = caller_runs(guarded.url, bob, 1)
    assert theirs["asked"] == SECOND
    timeline = httpx.get(f"{guarded.url}/api/studio/runs/{run['runId']}", headers=alice)
    assert timeline.json()["run"]["asked"] == run["asked"]
