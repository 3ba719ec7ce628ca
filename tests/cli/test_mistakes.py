"""User mistakes print one line and exit non-zero, never a traceback (the real command)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.helpers import Done, app_file, clean_env, run_cli, run_cli_async, run_on_terminal
from tests.models.openai_server import OpenAIServer
from tests.models.openai_server import Reply as OpenAIReply
from tests.models.scripted_server import Reply as ScriptedReply
from tests.models.scripted_server import ScriptedServer


def one_error_line(done: Done) -> str:
    """The single line a mistake prints; fails the test on anything more."""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    return lines[0][len("error: ") :]


def test_a_missing_attribute_is_named(tmp_path: Path) -> None:
    app_file(tmp_path, "from procession import Agent\nagent = Agent(id='a')\n")
    done = run_cli("run", "hi", "--agent", "app.py:nope", cwd=tmp_path)
    assert done.status == 2
    assert (
        one_error_line(done) == "app.py:nope: 'nope' is missing from app.py (agents there: agent)"
    )


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    done = run_cli("run", "hi", "--agent", "nope.py:agent", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done) == "no such file: 'nope.py'"


def test_chat_names_a_missing_file_on_a_terminal(tmp_path: Path) -> None:
    done = run_on_terminal("chat", "nope.py:agent", cwd=tmp_path)
    assert done.status == 2
    assert done.stdout.strip() == "\x1b[1;31merror: \x1b[0mno such file: 'nope.py'"


def test_a_missing_module_is_named(tmp_path: Path) -> None:
    done = run_cli("run", "hi", "--agent", "nowhere:agent", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done) == (
        "no module named 'nowhere' in the current directory or installed packages"
    )


def test_a_module_that_fails_to_import_names_the_line(tmp_path: Path) -> None:
    app_file(tmp_path, "from procession import Agent\n\nagent = Agent(id=undefined_name)\n")
    done = run_cli("run", "hi", "--agent", "app:agent", cwd=tmp_path)
    assert done.status == 2
    message = one_error_line(done)
    assert message.startswith("importing app failed: NameError: name 'undefined_name'")
    assert message.endswith("app.py, line 3)")


def test_an_unknown_provider_is_one_line(tmp_path: Path) -> None:
    done = run_cli("run", "hi", "--model", "nosuch/model", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done).startswith("no provider 'nosuch' for model id 'nosuch/model'")


def test_a_bad_timeout_names_the_option(tmp_path: Path) -> None:
    done = run_cli("run", "hi", "--connect-timeout", "-1", cwd=tmp_path)
    assert done.status == 2
    assert "argument --connect-timeout: expected a positive number of seconds, got '-1'" in (
        done.stderr
    )


def test_thread_without_memory_is_refused(tmp_path: Path) -> None:
    app_file(tmp_path, "from procession import Agent\nagent = Agent(id='a')\n")
    done = run_cli("run", "hi", "-a", "app.py", "--thread", "t-1", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done) == (
        "--thread and --resource need an agent with memory; app.py has none"
    )


def test_chat_refuses_a_pipe(tmp_path: Path) -> None:
    done = run_cli("chat", "--model", "local/smollm2", cwd=tmp_path, stdin="hello\n")
    assert done.status == 2
    assert one_error_line(done) == (
        "chat reads from a terminal, but standard input is a pipe or a file; "
        'to send piped text, use: procession run "..."'
    )


@pytest.mark.parametrize("command", [["run", "hi"], ["demo"]])
def test_a_missing_key_is_named_before_any_call(tmp_path: Path, command: list[str]) -> None:
    done = run_cli(*command, "--model", "openai/gpt-5-mini", cwd=tmp_path)
    assert done.status == 2
    assert one_error_line(done).startswith("OPENAI_API_KEY is not set")
    assert done.stdout == ""


def test_chat_names_a_missing_key_once_before_the_first_prompt(tmp_path: Path) -> None:
    done = run_on_terminal("chat", "--model", "openai/gpt-5-mini", cwd=tmp_path, lines=["hi"])
    assert done.status == 2
    assert done.stdout.count("OPENAI_API_KEY is not set") == 1
    assert "you>" not in done.stdout
    assert "Traceback" not in done.stdout


@pytest.mark.asyncio
async def test_a_wrong_openai_key_says_which_variable_to_fix(tmp_path: Path) -> None:
    error = {
        "error": {
            "message": "Incorrect API key provided: sk-wrong.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
    async with OpenAIServer() as server:
        server.reply(OpenAIReply(status=401, json=error))
        env = clean_env(OPENAI_API_KEY="sk-wrong", OPENAI_BASE_URL=server.base_url)
        done = await run_cli_async(
            "run", "hi", "--model", "openai/gpt-5-mini", cwd=tmp_path, env=env
        )
        assert len(server.requests) == 1  # a 401 is not retried
        assert server.requests[0].headers["authorization"] == "Bearer sk-wrong"
    assert done.status == 1
    assert one_error_line(done) == (
        "openai/gpt-5-mini refused the API key (401: Incorrect API key provided: sk-wrong.); "
        "check OPENAI_API_KEY"
    )


@pytest.mark.asyncio
async def test_a_wrong_anthropic_key_says_which_variable_to_fix(tmp_path: Path) -> None:
    body = {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
    }
    async with ScriptedServer() as server:
        server.script(ScriptedReply(status=401, body=body))
        env = clean_env(ANTHROPIC_API_KEY="sk-ant-wrong", ANTHROPIC_BASE_URL=server.url)
        done = await run_cli_async(
            "run", "hi", "--model", "anthropic/claude-haiku-4-5", cwd=tmp_path, env=env
        )
    assert done.status == 1
    assert one_error_line(done) == (
        "anthropic/claude-haiku-4-5 refused the API key (401: invalid x-api-key); "
        "check ANTHROPIC_API_KEY"
    )


@pytest.mark.asyncio
async def test_a_wrong_gemini_key_says_which_variable_to_fix(tmp_path: Path) -> None:
    # Gemini answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID
    body = {
        "error": {
            "code": 400,
            "message": "API key not valid. Please pass a valid API key.",
            "status": "INVALID_ARGUMENT",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                }
            ],
        }
    }
    async with ScriptedServer() as server:
        server.script(ScriptedReply(status=400, body=body))
        env = clean_env(GEMINI_API_KEY="wrong", GOOGLE_BASE_URL=f"{server.url}/v1beta")
        model = ["--model", "google/gemini-2.5-flash"]
        done = await run_cli_async("run", "hi", *model, cwd=tmp_path, env=env)
    assert done.status == 1
    assert one_error_line(done) == (
        "google/gemini-2.5-flash refused the API key "
        "(400: API key not valid. Please pass a valid API key.); check GEMINI_API_KEY"
    )


@pytest.fixture
def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture
def silent_listener() -> Iterator[int]:
    """A loopback port that listens but never accepts a connection (nor answers one)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def test_no_network_names_the_host_and_how_long(tmp_path: Path, closed_port: int) -> None:
    env = clean_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=f"http://127.0.0.1:{closed_port}/v1")
    started = time.monotonic()
    done = run_cli("run", "hi", "--model", "openai/gpt-5-mini", cwd=tmp_path, env=env)
    took = time.monotonic() - started
    assert done.status == 1
    message = one_error_line(done)
    prefix = f"could not reach 127.0.0.1:{closed_port} (connection refused); gave up after "
    assert message.startswith(prefix), message
    assert message.endswith(" s and 3 attempts")  # D14: the first call and 2 retries
    seconds = float(message[len(prefix) :].split(" ")[0])
    assert 1.0 <= seconds <= took  # the back-off between the attempts: 0.5 s, then 1 s


def test_a_listener_that_never_answers_times_out(tmp_path: Path, silent_listener: int) -> None:
    env = clean_env(
        ANTHROPIC_API_KEY="sk-ant-test", ANTHROPIC_BASE_URL=f"http://127.0.0.1:{silent_listener}"
    )
    args = ["--model", "anthropic/claude-haiku-4-5", "--connect-timeout", "0.5"]
    started = time.monotonic()
    done = run_cli("run", "hi", *args, cwd=tmp_path, env=env)
    took = time.monotonic() - started
    assert done.status == 1
    message = one_error_line(done)
    prefix = f"could not reach 127.0.0.1:{silent_listener} (no answer within 0.5 s); gave up after "
    assert message.startswith(prefix), message
    assert message.endswith(" s and 3 attempts")
    assert 3.0 <= float(message[len(prefix) :].split(" ")[0]) <= took < 30


@pytest.mark.asyncio
async def test_a_stream_that_goes_silent_times_out(tmp_path: Path) -> None:
    frames = [
        'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
        '"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n',
    ]
    async with OpenAIServer() as server:
        server.reply(OpenAIReply(frames=[*frames, *frames], delay=30))  # then 30 s of silence
        env = clean_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.base_url)
        args = ["--model", "openai/gpt-5-mini", "--read-timeout", "0.5"]
        done = await run_cli_async("run", "hi", *args, cwd=tmp_path, env=env)
        await asyncio.wait_for(server.disconnected.wait(), 5)  # the client hung up
    assert done.status == 1
    message = one_error_line(done)
    assert message.startswith(f"127.0.0.1:{server.port} stopped answering (no data for 0.5 s)")


@pytest.mark.asyncio
async def test_a_hosted_model_answers_through_the_real_sdk(tmp_path: Path) -> None:
    async with OpenAIServer() as server:  # its default reply: "Hello there!"
        env = clean_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.base_url)
        args = ["--model", "openai/gpt-5-mini"]
        done = await run_cli_async("run", "hi", *args, cwd=tmp_path, env=env)
    assert done.status == 0, done.stderr
    assert done.stdout == "Hello there!\n"
    assert server.requests[0].body["messages"][-1]["content"] == "hi"
