"""``procession chat``: a conversation in the terminal, with an agent or straight with a model.

``procession chat`` alone talks to the default model; ``--model`` picks another; an agent
comes from ``procession chat app.py:agent`` (or ``--agent``). An agent with memory keeps the
conversation in its memory thread (``--thread`` continues one); otherwise the chat keeps the
history itself. ``/quit``, ``/exit`` or Ctrl-D leave; Ctrl-C stops the answer being written.

Each turn runs in its own ``asyncio`` run of one event loop, and the prompt is read between
turns with no loop running, so Ctrl-C at the prompt leaves at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from rich.console import Console
from rich.text import Text

from procession.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, CLIError
from procession.cli.options import Commands, add_agent_options, add_command, add_model_options
from procession.cli.render import StreamPrinter, console
from procession.cli.session import Session, open_session, print_error
from procession.cli.terminal import echo_off

__all__ = ["chat_command", "register", "run_chat"]

QUIT = frozenset({"/quit", "/exit"})
AGENT_PREFIX = Text("agent> ", style="bold blue")

DESCRIPTION = """\
Chat in the terminal with an agent, or straight with a model.

  procession chat                          # the default model
  procession chat --model anthropic/claude-haiku-4-5
  procession chat app.py:agent             # an agent defined in Python
  procession chat app.py:agent --thread t-1   # continue a memory thread

/quit, /exit or Ctrl-D leave; Ctrl-C stops the answer being written.
"""


def register(commands: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``chat`` to the command table."""
    summary = "chat with an agent or a model in the terminal"
    parser = add_command(
        commands, parents, "chat", summary=summary, description=DESCRIPTION, handler=chat_command
    )
    parser.add_argument("target", nargs="?", metavar="AGENT", help="same as --agent")
    add_model_options(parser, model_help="a 'provider/model' id, replacing the agent's model")
    add_agent_options(parser)


def chat_command(args: argparse.Namespace) -> int:
    """Run ``procession chat`` on the terminal; returns the exit status."""
    if not sys.stdin.isatty():
        raise CLIError(
            "chat reads from a terminal, but standard input is a pipe or a file; "
            'to send piped text, use: procession run "..."'
        )
    return run_chat(args, _terminal_reader(), while_answering=lambda: echo_off(sys.stdin))


def run_chat(
    args: argparse.Namespace,
    lines: Callable[[], str] | Iterable[str],
    *,
    out: Console | None = None,
    err: Console | None = None,
    while_answering: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> int:
    """Chat, reading each user line from ``lines`` (a function raising :class:`EOFError` at
    the end, or an iterable); returns the exit status. Each answer streams inside
    ``while_answering()`` (on a terminal: the echo off, so keys typed meanwhile do not break
    the live display)."""
    if args.target and args.agent and args.target != args.agent:
        raise CLIError(f"two agents given: {args.target} and --agent {args.agent}")
    args.agent = args.agent or args.target
    read = lines if callable(lines) else _reader(iter(lines))
    out = out or console()
    err = err or console(stderr=True)
    with asyncio.Runner() as runner:
        session = runner.run(open_session(args, StreamPrinter(out)))
        try:
            return _converse(runner, session, read, out, err, while_answering)
        finally:
            runner.run(session.aclose())


def _converse(
    runner: asyncio.Runner,
    session: Session,
    read: Callable[[], str],
    out: Console,
    err: Console,
    while_answering: Callable[[], AbstractContextManager[Any]],
) -> int:
    _greet(session, out)
    history: list[Any] = []
    while True:
        try:
            text = read()
        except EOFError:
            out.print()
            return EXIT_OK
        except KeyboardInterrupt:  # Ctrl-C at the prompt leaves
            out.print()
            return EXIT_INTERRUPTED
        if text.strip() in QUIT:
            return EXIT_OK
        if not text.strip():
            continue
        user = {"role": "user", "content": text}
        messages = text if session.thread_id else [*history, user]
        try:
            with while_answering():
                turn = runner.run(session.turn(messages, prefix=AGENT_PREFIX))
        except KeyboardInterrupt:
            out.print(Text("(interrupted)", style="dim"))
            continue
        if turn.failure is not None:
            print_error(err, turn.failure.message)
            if turn.failure.fatal:
                return EXIT_FAILED
        elif turn.result.tripwire is None and session.thread_id is None:
            history += [user, *turn.result.messages]


def _greet(session: Session, out: Console) -> None:
    agent, choice = session.agent, session.choice
    who = choice.label if agent.name == choice.label else f"{agent.name} ({choice.label})"
    out.print(Text.assemble("chatting with ", (who, "bold"), ("  /quit or Ctrl-D to leave", "dim")))
    if choice.reason:
        out.print(Text(f"default model: {choice.reason}", style="dim"))
    if session.thread_id:
        how = f"; continue it later with --thread {session.thread_id}" if session.new_thread else ""
        note = f"memory: thread {session.thread_id}, resource {session.resource_id}{how}"
        out.print(Text(note, style="dim"))


def _reader(lines: Any) -> Callable[[], str]:
    def read() -> str:
        try:
            return str(next(lines))
        except StopIteration:
            raise EOFError from None

    return read


def _terminal_reader() -> Callable[[], str]:
    with contextlib.suppress(ImportError):  # not on Windows
        import readline  # noqa: F401  (line editing and history for input())
    # \x01 and \x02 tell readline the colour codes take no room on the line
    prompt = "\x01\x1b[1;32m\x02you>\x01\x1b[0m\x02 "
    return lambda: input(prompt)
