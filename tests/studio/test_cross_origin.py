"""A real page of another origin, in Chromium, against a server started as ``serve()``
starts it (its ``uvicorn_config``: no credentials, so an access token): it cannot run the
agent nor write memory, even from the same site with the token cookie in the browser; a
DNS-rebinding page (another name resolving to 127.0.0.1) is refused; and Studio itself
works with the token (issue 20)."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
import uvicorn
from playwright.sync_api import expect
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from procession import Agent, Memory
from procession.memory import SQLiteStorage
from procession.server import create_app
from procession.server.run import uvicorn_config
from procession.testing import ScriptedModel
from tests.server.conftest import free_port
from tests.studio.conftest import CHROMIUM, CHROMIUM_FLAGS

TOKEN = "tok-" + uuid.uuid4().hex
REBIND = "rebind.evil.example"
ATTACK = """<!doctype html><title>cute cats</title><script>
const body = JSON.stringify({messages: "steal", memory: {thread: "evil", resource: "victim"}});
window.outcome = (async () => {
  const out = {};
  try {  // a "simple" request: no preflight, sent with the victim's cookies
    await fetch("TARGET/api/agents/support/generate", {method: "POST", mode: "no-cors",
      credentials: "include", headers: {"Content-Type": "text/plain"}, body});
    out.plain = "sent";
  } catch (e) { out.plain = String(e); }
  try {  // JSON needs a preflight, which the server does not allow
    const r = await fetch("TARGET/api/agents/support/generate", {method: "POST",
      credentials: "include", headers: {"Content-Type": "application/json"}, body});
    out.json = r.status;
  } catch (e) { out.json = "blocked"; }
  return out;
})();
</script>"""


@dataclass
class Victim:
    """The server under attack, its model and port."""

    url: str
    port: int
    model: ScriptedModel

    def threads(self, resource: str) -> list[str]:
        """The ids of ``resource``'s threads, read with the token."""
        answer = httpx.get(
            f"{self.url}/api/memory/threads",
            params={"resourceId": resource, "agentId": "support"},
            headers={"authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert answer.status_code == 200, answer.text
        return [t["id"] for t in answer.json()["threads"]]


@dataclass
class Running:
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(15)


def _run(config: uvicorn.Config) -> Running:
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        threading.Event().wait(0.01)
    return Running(server, thread)


@pytest.fixture(scope="module")
def victim(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Victim]:
    tmp: Path = tmp_path_factory.mktemp("victim")
    model = ScriptedModel(["All good here."], repeat_last=True)
    memory = Memory(SQLiteStorage(str(tmp / "memory.db")))
    app = create_app(Agent(id="support", model=model, memory=memory), memory=memory)
    port = free_port()
    config, token = uvicorn_config(
        app, host="127.0.0.1", port=port, token=TOKEN, log_level="warning"
    )
    assert token == TOKEN
    running = _run(config)
    yield Victim(f"http://127.0.0.1:{port}", port, model)
    running.stop()


@pytest.fixture(scope="module")
def attackers(victim: Victim) -> Iterator[dict[str, str]]:
    """The attack page, from the same site on another port and from another site."""
    page = ATTACK.replace("TARGET", victim.url)

    async def home(request: Any) -> HTMLResponse:
        return HTMLResponse(page)

    app = Starlette(routes=[Route("/", home)])
    urls: dict[str, str] = {}
    running = []
    for name, host in (("same-site", "127.0.0.1"), ("other-site", "127.0.0.2")):
        port = free_port()
        running.append(_run(uvicorn.Config(app, host=host, port=port, log_level="warning")))
        urls[name] = f"http://{host}:{port}/"
    yield urls
    for server in running:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium resolving ``rebind.evil.example`` to 127.0.0.1, as after DNS rebinding."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    flags = [*CHROMIUM_FLAGS, f"--host-resolver-rules=MAP {REBIND} 127.0.0.1"]
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=flags)
        yield launched
        launched.close()


def test_studio_works_with_the_token_and_another_origin_cannot_run_the_agent(
    browser: Any, victim: Victim, attackers: dict[str, str]
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    # The user opens the URL procession serve printed: the token becomes a cookie.
    page.goto(f"{victim.url}/studio?token={TOKEN}#agent=support")
    assert "token=" not in page.url
    expect(page.locator("#agent-head h1")).to_have_text("support")
    page.fill("#prompt", "hello")
    page.press("#prompt", "Enter")
    expect(page.locator(".turn.assistant .footer").last).to_be_visible()
    expect(page.locator(".turn.assistant .text").last).to_contain_text("All good here.")
    ran = len(victim.model.calls)
    assert ran == 1
    cookies = [c for c in context.cookies() if c["name"].startswith("procession-token-")]
    assert len(cookies) == 1
    assert cookies[0]["httpOnly"]
    assert cookies[0]["sameSite"] == "Strict"
    # The same browser, with that cookie, visits the attack pages.
    for name, url in attackers.items():
        attack = context.new_page()
        attack.goto(url)
        outcome = attack.evaluate("window.outcome")
        assert outcome["json"] == "blocked", (name, outcome)
        attack.close()
    assert len(victim.model.calls) == ran  # the agent never ran for the attack pages
    assert victim.threads("victim") == []  # and nothing was written
    context.close()


def test_a_rebound_name_is_refused_even_same_origin(browser: Any, victim: Victim) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    rebound = f"http://{REBIND}:{victim.port}"
    answer = page.goto(f"{rebound}/studio?token={TOKEN}")
    assert answer is not None
    assert answer.status == 400
    assert f"Host '{REBIND}:{victim.port}' is not allowed" in page.content()
    # Script on the rebound page calls "its own" origin, which is the victim's socket.
    status = page.evaluate(
        """async () => (await fetch('/api/agents/support/generate', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({messages: 'steal', memory: {thread: 'rb', resource: 'victim'}})
           })).status"""
    )
    listing = page.evaluate(
        "async () => (await fetch('/api/memory/threads?resourceId=victim')).status"
    )
    assert status == 400
    assert listing == 400
    assert victim.threads("victim") == []
    context.close()
