"""``procession chat`` in a real terminal (tmux): text typed while an answer streams leaves
the answer drawn once, and waits at the next prompt (issue 24)."""

from __future__ import annotations

import os
import pty
import sys
import termios
from pathlib import Path

import pytest

from procession.cli.terminal import echo_off
from tests.cli.helpers import COMMAND, app_file, clean_env
from tests.cli.tmux import tmux_session

SLOW_APP = """
from procession import Agent
from procession.testing import FunctionModel, Reply

FIRST = "The first line of the answer."


def answer(options):
    said = [m for m in options.prompt if m["role"] == "user"][-1]["content"][0]["text"]
    if said == "tell me":
        words = [FIRST, "\\n"] + [f"more{n} " for n in range(12)]
        return Reply(text=words, delay=0.15)
    return f"you typed: {said}"


agent = Agent(id="slow", model=FunctionModel(answer))
"""
FIRST = "The first line of the answer."


def test_text_typed_while_an_answer_streams_does_not_draw_it_twice(tmp_path: Path) -> None:
    app_file(tmp_path, SLOW_APP)
    env = clean_env(TERM="xterm-256color", PYTHONPATH=":".join(sys.path))
    with tmux_session([*COMMAND, "chat", "app.py"], cwd=tmp_path, env=env) as term:
        term.wait_for(lambda screen: screen.rstrip().endswith("you>"))
        term.type("tell me")
        term.press("Enter")
        term.wait_for(lambda screen: "more2 " in screen)  # the answer is streaming
        term.type("typed ahead")  # a person typing the next message meanwhile
        term.press("Enter")
        screen = term.wait_for(lambda screen: "you typed: typed ahead" in screen)
        assert screen.count(FIRST) == 1, screen
        lines = screen.splitlines()
        (first,) = [n for n, line in enumerate(lines) if FIRST in line]
        assert lines[first] == f"agent> {FIRST}", screen
        assert lines[first + 1].startswith("more0 more1"), screen
        assert "more11" in lines[first + 1], screen
        # The typed text was not echoed into the answer; it shows at the next prompt.
        assert not any("typed ahead" in line for line in lines[: first + 2]), screen
        assert lines[first + 2] == "you> typed ahead", screen
        assert lines[first + 3] == "agent> you typed: typed ahead", screen
        term.press("C-d")


def test_echo_off_restores_the_terminal_and_ignores_a_pipe(tmp_path: Path) -> None:
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "rb", buffering=0, closefd=False) as terminal:
            before = termios.tcgetattr(follower)
            assert before[3] & termios.ECHO
            seen: list[int] = []

            def turn() -> None:
                with echo_off(terminal):
                    seen.append(termios.tcgetattr(follower)[3])
                    raise RuntimeError("the turn failed")

            with pytest.raises(RuntimeError):
                turn()
            assert not seen[0] & termios.ECHO
            assert seen[0] & termios.ISIG  # Ctrl-C still interrupts
            assert termios.tcgetattr(follower) == before  # put back, however the turn ended
    finally:
        os.close(leader)
        os.close(follower)
    with (tmp_path / "piped.txt").open("w") as piped, echo_off(piped):
        pass  # not a terminal: nothing to do, nothing raised
