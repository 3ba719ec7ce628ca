"""Studio's routes and page behind the API's authentication: the page files are public and
hold no data, every JSON answer needs the API's credential and shows the caller's runs only,
processor notes are off unless allowed, and the assets carry a strict CSP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from playwright.sync_api import expect

from procession.errors import ConfigurationError
from procession.server import Auth, create_app
from procession.tracing import trace_store
from tests.server.conftest import serve_in_thread
from tests.studio.agents import FIRST, echo_agent
from tests.studio.conftest import KEY, OTHER_KEY, Served, caller_runs, screenshot

ALICE = {"x-api-key": KEY}
BOB = {"x-api-key": OTHER_KEY}


def _stream(url: str, headers: dict[str, str], **body: Any) -> httpx.Response:
    payload = {"messages": FIRST, "memory": {"thread": "t-alice"}, **body}
    return httpx.post(f"{url}/api/agents/support/stream", json=payload, headers=headers, timeout=20)


def test_the_page_is_public_and_every_answer_about_data_needs_the_credential(
    guarded: Served,
) -> None:
    page = httpx.get(f"{guarded.url}/studio", timeout=10)
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    for path in ("/api/studio/session", "/api/studio/runs", "/api/studio/runs/run_x"):
        assert httpx.get(guarded.url + path, timeout=10).status_code == 401, path
    session = httpx.get(f"{guarded.url}/api/studio/session", headers=ALICE, timeout=10).json()
    assert session["resourceId"] == "alice"
    assert session["auth"] is True
    assert session["inspect"] is False  # with credentials, only when allowed
    assert session["traces"] is True


def test_assets_are_cached_by_etag_and_unknown_files_are_404(guarded: Served) -> None:
    script = httpx.get(f"{guarded.url}/studio/assets/studio.js", timeout=10)
    assert script.headers["content-type"] == "text/javascript; charset=utf-8"
    again = httpx.get(
        f"{guarded.url}/studio/assets/studio.js",
        headers={"if-none-match": script.headers["etag"]},
        timeout=10,
    )
    assert again.status_code == 304
    assert again.content == b""
    for name in ("nope.js", "index.html", "..%2Fapi.py"):
        assert httpx.get(f"{guarded.url}/studio/assets/{name}", timeout=10).status_code == 404


def test_inspect_is_refused_where_not_allowed_and_on_generate(guarded: Served) -> None:
    refused = _stream(guarded.url, ALICE, inspect=True)
    assert refused.status_code == 403
    assert "create_app(allow_inspect=True)" in refused.json()["error"]
    assert "procession serve --allow-inspect" in refused.json()["error"]
    generate = httpx.post(
        f"{guarded.url}/api/agents/echo/generate",
        json={"messages": "hi", "inspect": True},
        headers=ALICE,
        timeout=10,
    )
    assert generate.status_code == 422
    assert "inspect" in generate.text


def test_each_caller_sees_only_its_own_runs(guarded: Served) -> None:
    answer = _stream(guarded.url, ALICE)
    assert answer.status_code == 200
    assert "data-procession-hook" not in answer.text  # not asked for
    (run,) = caller_runs(guarded.url, ALICE)
    assert run["resourceId"] == "alice"
    assert run["outcome"] == "tripwire"
    assert run["start"].endswith("Z")
    assert caller_runs(guarded.url, BOB, wanted=0) == []
    mine = httpx.get(f"{guarded.url}/api/studio/runs/{run['runId']}", headers=ALICE, timeout=10)
    assert mine.status_code == 200
    hooks = {(c["hook"], c["processorId"]): c["outcome"] for c in mine.json()["hookCalls"]}
    assert hooks[("process_output_result", "audit")] == "tripwire"
    theirs = httpx.get(f"{guarded.url}/api/studio/runs/{run['runId']}", headers=BOB, timeout=10)
    assert theirs.status_code == 404
    named = httpx.get(f"{guarded.url}/api/studio/runs?resourceId=alice", headers=BOB, timeout=10)
    assert named.status_code == 403


def test_the_page_asks_for_the_credential_and_then_shows_the_caller(
    page: Any, guarded: Served
) -> None:
    page.goto(f"{guarded.url}/studio")
    expect(page.locator("#sign-in")).to_be_visible()
    expect(page.locator("#app")).to_be_hidden()
    page.fill("#credential", "wrong-key-0123456789")
    page.click("#sign-in-form button")
    expect(page.locator("#sign-in-error")).not_to_be_empty()
    page.fill("#credential", KEY)
    page.click("#sign-in-form button")
    expect(page.locator("#who")).to_have_text("signed in as alice")
    # The hint names both ways to turn the notes on (issue 24).
    expect(page.locator("#inspect-hint")).to_have_text(
        "processor notes are off on this server: create_app(allow_inspect=True) "
        "or procession serve --allow-inspect"
    )
    screenshot(page, "studio-signed-in.png")
    page.click('.tabs [data-tab="runs"]')
    expect(page.locator("#runs tbody tr").first).to_be_visible()
    page.click("#sign-out")
    expect(page.locator("#sign-in")).to_be_visible()


def test_without_a_trace_store_the_runs_routes_say_how_to_get_one(tmp_path: Path) -> None:
    with serve_in_thread(create_app([echo_agent()])) as url:
        answer = httpx.get(f"{url}/api/studio/runs", timeout=10)
        assert answer.status_code == 404
        assert "trace_store" in answer.json()["error"]
        assert httpx.get(f"{url}/api/studio/session", timeout=10).json()["traces"] is False
    with serve_in_thread(create_app([echo_agent()], studio=False)) as url:
        assert httpx.get(f"{url}/studio", timeout=10).status_code == 404
        assert httpx.get(f"{url}/api/studio/session", timeout=10).status_code == 404
        document = httpx.get(f"{url}/api/openapi.json", timeout=10).json()
        assert not [p for p in document["paths"] if p.startswith("/api/studio")]


def test_bad_studio_options_are_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="traces"):
        create_app([echo_agent()], traces=str(tmp_path / "traces.db"))
    with pytest.raises(ConfigurationError, match="allow_inspect"):
        create_app([echo_agent()], allow_inspect=1)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="studio"):
        create_app([echo_agent()], studio="yes")  # type: ignore[arg-type]
    store = trace_store(tmp_path / "traces.db")
    auth = Auth(api_keys={KEY: "alice"})
    app = create_app([echo_agent()], traces=store, auth=auth, allow_inspect=True)
    assert app.state.procession.allow_inspect is True
    store.shutdown()
