"""``procession serve --traces``: the real command in a subprocess, on 127.0.0.1, tracing its
runs into a SQLite trace store that Studio then reads."""

from __future__ import annotations

import secrets
import subprocess
import time
from pathlib import Path

import httpx2 as httpx

from tests.cli.helpers import COMMAND, app_file, clean_env, run_cli
from tests.server.conftest import free_port

APP = """
from procession import Agent
from procession.testing import ScriptedModel

echo = Agent(id="echo", model=ScriptedModel(["Echo here."], repeat_last=True))
"""


def _wait(url: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError(f"procession serve did not start: {process.communicate()[0]}")


def test_serve_with_traces_shows_each_run_in_studio(tmp_path: Path) -> None:
    app_file(tmp_path, APP)
    port = free_port()
    token = secrets.token_urlsafe(24)
    bearer = {"authorization": f"Bearer {token}"}
    command = [*COMMAND, "serve", "app.py", "--port", str(port), "--traces", "traces.db"]
    command += [f"--token={token}"]  # a random token may start with "-"
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(url, process)
        assert httpx.get(f"{url}/studio", timeout=5).status_code == 401  # no token
        assert httpx.get(f"{url}/studio", headers=bearer, timeout=5).status_code == 200
        answer = httpx.post(
            f"{url}/api/agents/echo/stream", json={"messages": "hi"}, headers=bearer, timeout=10
        )
        assert "Echo here." in answer.text
        runs: list[object] = []
        deadline = time.monotonic() + 15
        while not runs and time.monotonic() < deadline:
            runs = httpx.get(f"{url}/api/studio/runs", headers=bearer, timeout=5).json()["runs"]
            time.sleep(0.2)
        assert [run["agentId"] for run in runs] == ["echo"]  # type: ignore[index]
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert "Traceback" not in output
    assert (tmp_path / "traces.db").exists()


def test_serve_with_a_bad_trace_database_says_so_in_one_line(tmp_path: Path) -> None:
    app_file(tmp_path, APP)
    result = run_cli("serve", "app.py", "--traces", "mysql://db/x", cwd=tmp_path)
    assert result.status != 0
    assert "Traceback" not in result.stderr
    assert "mysql://db/x" in result.stderr
