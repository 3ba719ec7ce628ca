"""``procession chat``, and agents with memory in ``chat`` and ``run``."""

from __future__ import annotations

import argparse
import re
import signal
import threading
from pathlib import Path

import pytest
from rich.console import Console

from procession import register_model
from procession.cli import build_parser
from procession.cli.chat import run_chat
from procession.cli.errors import CLIError
from procession.testing import ScriptedModel
from tests.cli.helpers import app_file, clean_env, run_cli, run_on_terminal

COUNTER_APP = """
from procession import Agent
from procession.testing import FunctionModel


def answer(options):
    said = [m for m in options.prompt if m["role"] == "user"]
    return f"you said {len(said)} things"


agent = Agent(id="counter", model=FunctionModel(answer))
"""

MEMORY_APP = COUNTER_APP.replace(
    "from procession import Agent\n",
    "from procession import Agent\nfrom procession.memory import Memory, SQLiteStorage\n",
).replace(
    "model=FunctionModel(answer))",
    'model=FunctionModel(answer), memory=Memory(SQLiteStorage("chat.db")))',
)


def chat_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["chat", *argv])


def recording() -> Console:
    return Console(record=True, width=120, color_system=None)


def test_chat_keeps_the_history_without_memory(tmp_path: Path) -> None:
    app = app_file(tmp_path, COUNTER_APP)
    out = recording()
    status = run_chat(chat_args(str(app)), ["hello", "", "again", "/quit", "never"], out=out)
    assert status == 0
    text = out.export_text()
    assert "chatting with counter (function/function-model)" in text
    assert "agent> you said 1 things" in text
    assert "agent> you said 2 things" in text
    assert "3 things" not in text  # /quit ended the chat


def test_chat_with_only_a_model() -> None:
    out = recording()
    register_model("test/chat", ScriptedModel(["hi there"]))
    try:
        status = run_chat(chat_args("--model", "test/chat"), ["hello"], out=out)
    finally:
        register_model("test/chat", None)
    assert status == 0
    text = out.export_text()
    assert "chatting with test/chat" in text
    assert "agent> hi there" in text


def test_a_blocked_turn_is_not_part_of_the_history(tmp_path: Path) -> None:
    app = app_file(
        tmp_path,
        COUNTER_APP
        + """
from procession import Processor


class NoSecrets(Processor):
    id = "no-secrets"

    def process_input(self, *, messages, abort, **_):
        if "password" in messages[-1].text:
            abort("no secrets")


agent.input_processors = [NoSecrets()]
""",
    )
    out = recording()
    assert run_chat(chat_args(f"{app}:agent"), ["hi", "my password", "again"], out=out) == 0
    text = out.export_text()
    assert "tripwire (no-secrets): no secrets" in text
    assert "you said 2 things" in text  # "hi" and "again": the blocked turn was dropped
    assert "you said 3 things" not in text


def test_two_agents_named_differently_are_refused() -> None:
    with pytest.raises(CLIError, match=r"two agents given: a\.py and --agent b\.py"):
        run_chat(chat_args("a.py", "--agent", "b.py"), [])


def test_chat_on_a_terminal(tmp_path: Path) -> None:
    app_file(tmp_path, COUNTER_APP)
    done = run_on_terminal("chat", "app.py", cwd=tmp_path, lines=["hello", "again", "/exit"])
    assert done.status == 0, done.stdout
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\x01\x02]", "", done.stdout)
    assert "agent> you said 1 things" in plain
    assert "agent> you said 2 things" in plain


def test_run_with_memory_saves_a_thread_to_continue(tmp_path: Path) -> None:
    app_file(tmp_path, MEMORY_APP)
    env = clean_env(USER="ada")
    first = run_cli("run", "hello", "--agent", "app.py", cwd=tmp_path, env=env)
    assert first.status == 0, first.stderr
    assert first.stdout == "you said 1 things\n"
    found = re.fullmatch(r"saved in thread (cli-\w+); continue it with --thread \1\n", first.stderr)
    assert found, first.stderr
    thread = found.group(1)
    second = run_cli("run", "again", "-a", "app.py", "--thread", thread, cwd=tmp_path, env=env)
    assert second.status == 0, second.stderr
    assert second.stdout == "you said 2 things\n"  # the first turn came from memory
    assert second.stderr == ""  # a named thread needs no reminder


def test_a_thread_of_another_resource_is_refused_in_one_line(tmp_path: Path) -> None:
    app_file(tmp_path, MEMORY_APP)
    run_cli("run", "hi", "-a", "app.py", "--thread", "t-1", "--resource", "ada", cwd=tmp_path)
    done = run_cli(
        "run", "hi", "-a", "app.py", "--thread", "t-1", "--resource", "bob", cwd=tmp_path
    )
    assert done.status != 0
    assert done.stderr == ("error: thread 't-1' belongs to resource 'ada', not to resource 'bob'\n")


def test_chat_with_memory_continues_a_thread(tmp_path: Path) -> None:
    app_file(tmp_path, MEMORY_APP)
    args = ["chat", "app.py", "--thread", "t-7", "--resource", "ada"]
    first = run_on_terminal(*args, cwd=tmp_path, lines=["one", "two", "/quit"])
    assert first.status == 0, first.stdout
    assert "memory: thread t-7, resource ada" in first.stdout
    assert "you said 2 things" in first.stdout
    again = run_on_terminal(*args, cwd=tmp_path, lines=["three", "/quit"])
    assert "you said 3 things" in again.stdout


def test_ctrl_c_stops_the_answer_and_the_chat_goes_on(tmp_path: Path) -> None:
    app = app_file(
        tmp_path,
        """
from procession import Agent
from procession.testing import FunctionModel, Reply


def answer(options):
    said = [m for m in options.prompt if m["role"] == "user"]
    if said[-1]["content"][0]["text"] == "long":
        return Reply(text=[f"word{n} " for n in range(100)], delay=0.05)
    return f"you said {len(said)} things"


agent = Agent(id="slow", model=FunctionModel(answer))
""",
    )
    out = recording()
    timer = threading.Timer(0.5, signal.raise_signal, (signal.SIGINT,))  # a real Ctrl-C
    timer.start()
    try:
        status = run_chat(chat_args(str(app)), ["long", "short"], out=out)
    finally:
        timer.cancel()
    assert status == 0
    text = out.export_text()
    assert "(interrupted)" in text
    assert "word99" not in text
    assert "you said 1 things" in text  # the interrupted turn is not part of the history


def test_ctrl_c_at_the_prompt_leaves(tmp_path: Path) -> None:
    app = app_file(tmp_path, COUNTER_APP)

    def read() -> str:
        raise KeyboardInterrupt

    assert run_chat(chat_args(str(app)), read, out=recording()) == 130
