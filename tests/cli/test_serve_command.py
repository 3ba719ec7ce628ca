"""``procession serve``: the real command in a subprocess, on 127.0.0.1."""

from __future__ import annotations

import json
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from procession.cli.loading import load_agents
from tests.cli.helpers import COMMAND, app_file, clean_env, run_cli
from tests.server.conftest import free_port

APP = """
import os
from procession import Agent, Memory
from procession.memory import SQLiteStorage
from procession.testing import Reply, ScriptedModel

memory = Memory(SQLiteStorage(os.path.join(os.path.dirname(__file__), "serve.db")))
slow = ScriptedModel([Reply(text=["one ", "two ", "three"], delay=0.3)], repeat_last=True)
support = Agent(id="support", model=slow, memory=memory)
billing = Agent(id="billing", model=ScriptedModel(["Paid."], repeat_last=True))
"""


TOKEN = secrets.token_urlsafe(24)
TOKEN_ARGS = ("--token", TOKEN)
BEARER = {"authorization": f"Bearer {TOKEN}"}


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0].removeprefix("error: ")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    app_file(tmp_path, APP)
    port = free_port()
    process = subprocess.Popen(
        [*COMMAND, "serve", "app.py", "--port", str(port), "--shutdown-grace", "20", *TOKEN_ARGS],
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail(f"procession serve did not start: {process.communicate()[0]}")
    try:
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


def test_serve_answers_every_agent_and_sigterm_lets_the_run_finish(
    server: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    process, url = server
    agents = httpx.get(f"{url}/api/agents", headers=BEARER, timeout=5).json()
    assert sorted(agents) == ["billing", "support"]
    body = {"messages": "go", "memory": {"thread": "t1", "resource": "ada"}}
    lines = []
    with httpx.stream(
        "POST", f"{url}/api/agents/support/stream", json=body, headers=BEARER, timeout=10
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data: "):
                lines.append(line)
                if len(lines) == 1:
                    process.send_signal(signal.SIGTERM)
    assert lines[-1] == "data: [DONE]"
    output, _ = process.communicate(timeout=20)
    assert process.returncode == -signal.SIGTERM  # uvicorn re-raises the signal once it is done
    assert "Traceback" not in output
    messages = _stored(tmp_path / "serve.db")
    assert messages == ["go", "one two three"]


def _stored(path: Path) -> list[str]:
    import asyncio

    from procession import Memory
    from procession.memory import SQLiteStorage

    async def read() -> list[str]:
        async with Memory(SQLiteStorage(str(path))) as memory:
            return [m.text for m in await memory.list_messages("t1", resource_id="ada")]

    return asyncio.run(read())


def test_serve_refuses_a_public_host_without_credentials(tmp_path: Path) -> None:
    app_file(tmp_path, APP)
    done = run_cli("serve", "app.py", "--host", "0.0.0.0", cwd=tmp_path)
    assert done.status == 2
    message = one_error_line(done.stderr)
    assert message.startswith("host: refusing to listen on '0.0.0.0' without credentials")


def test_serve_reports_bad_key_files_in_one_line(tmp_path: Path) -> None:
    app_file(tmp_path, APP)
    (tmp_path / "keys.json").write_text(json.dumps(["not", "a", "map"]))
    done = run_cli("serve", "app.py", "--api-keys", "keys.json", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done.stderr) == 'keys.json: expected a JSON object {"key": "resource id"}'
    missing = run_cli("serve", "app.py", "--jwt-secret-env", "NO_SUCH_VAR_X", cwd=tmp_path)
    assert one_error_line(missing.stderr) == "--jwt-secret-env: $NO_SUCH_VAR_X is not set"


def test_load_agents_finds_every_agent_or_the_named_ones(tmp_path: Path) -> None:
    path = app_file(
        tmp_path,
        APP.replace("serve.db", "load.db") + "\nteam = [support]\nby_id = {'b': billing}\n",
        name="load_app.py",
    )
    assert [a.id for a in load_agents(str(path))] == ["billing", "support"]
    assert [a.id for a in load_agents(f"{path}:team")] == ["support"]
    assert [a.id for a in load_agents(f"{path}:by_id")] == ["billing"]
    assert [a.id for a in load_agents(f"{path}:support")] == ["support"]


KEYLESS = """
from procession import Agent
support = Agent(id="support", model="openai/gpt-5-mini")
"""


def _start(tmp_path: Path, *options: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    env = {k: v for k, v in clean_env().items() if k not in ("OPENAI_API_KEY", "PROCESSION_TOKEN")}
    process = subprocess.Popen(
        [*COMMAND, "serve", "app.py", "--port", str(port), *options],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    pytest.fail(f"procession serve did not start: {process.communicate()}")


def test_serve_prints_a_studio_url_with_a_random_token_and_warns_of_a_missing_key(
    tmp_path: Path,
) -> None:
    app_file(tmp_path, KEYLESS)
    process, url = _start(tmp_path)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        studio = line.split(": ", 1)[1].strip()
        assert studio.startswith(f"{url}/studio?token=")
        token = studio.split("token=", 1)[1]
        assert len(token) >= 43
        assert httpx.get(f"{url}/api/agents", timeout=5).status_code == 401
        auth = {"authorization": f"Bearer {token}"}
        answer = httpx.post(
            f"{url}/api/agents/support/generate", json={"messages": "hi"}, headers=auth, timeout=10
        )
        # D35's docs: a server-side configuration error is 500, not the caller's 422
        assert answer.status_code == 500
        assert "OPENAI_API_KEY" in answer.json()["error"]
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=20)
    warning = [line for line in stderr.splitlines() if "warning:" in line]
    assert len(warning) == 1
    assert "agent 'support' (model 'openai/gpt-5-mini')" in warning[0]
    assert "OPENAI_API_KEY is not set" in warning[0]


def test_serve_no_token_is_explicit_and_token_conflicts_are_one_line(tmp_path: Path) -> None:
    app_file(tmp_path, APP)
    process, url = _start(tmp_path, "--no-token")
    try:
        assert httpx.get(f"{url}/api/agents", timeout=5).status_code == 200
    finally:
        process.terminate()
        output, _ = process.communicate(timeout=20)
    assert "token=" not in output
    both = run_cli("serve", "app.py", "--token", TOKEN, "--no-token", cwd=tmp_path)
    assert one_error_line(both.stderr) == "procession serve: give --token or --no-token, not both"
    short = run_cli("serve", "app.py", "--token", "short", cwd=tmp_path)
    assert "token: expected a string of at least 16 characters" in short.stderr
