"""``procession run "prompt"``: one prompt, one streamed answer.

The prompt is the argument, text piped on standard input, or both (the piped text first, as
``cat notes.txt | procession run "summarise this"`` reads). The answer goes to standard output;
tool calls, retries and tripwires to standard error when the output is not a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TextIO

from rich.console import Console
from rich.text import Text

from procession.cli.errors import EXIT_BLOCKED, EXIT_FAILED, EXIT_OK, CLIError
from procession.cli.options import Commands, add_agent_options, add_command, add_model_options
from procession.cli.render import StreamPrinter, console
from procession.cli.session import Session, Turn, open_session, print_error

__all__ = ["read_prompt", "register", "run_command"]

DESCRIPTION = """\
Send one prompt to an agent (or straight to a model) and stream the answer.

  procession run "Where is order A-1001?" --agent app.py:agent
  git diff | procession run "Describe these changes" --model openai/gpt-5-mini
  echo hi | procession run

Exit status: 0 answered, 1 failed, 2 a mistake in the command, 3 blocked by a processor.
"""


def register(commands: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``run`` to the command table."""
    summary = "send one prompt and stream the answer"
    parser = add_command(
        commands, parents, "run", summary=summary, description=DESCRIPTION, handler=run_command
    )
    parser.add_argument("prompt", nargs="?", help="the prompt (else read from standard input)")
    add_model_options(parser, model_help="a 'provider/model' id, replacing the agent's model")
    add_agent_options(parser)


def read_prompt(argument: str | None, stdin: TextIO | None) -> str:
    """The prompt: text piped on ``stdin`` (when it is not a terminal), then ``argument``."""
    piped = stdin.read() if stdin is not None and not stdin.isatty() else None
    parts = [part.rstrip() for part in (piped, argument) if part and part.strip()]
    if not parts:
        raise CLIError(
            'no prompt: pass one (procession run "...") or pipe one (echo ... | procession run)'
        )
    return "\n\n".join(parts)


def run_command(
    args: argparse.Namespace,
    *,
    stdin: TextIO | None = None,
    out: Console | None = None,
    err: Console | None = None,
) -> int:
    """Run ``procession run``; returns the exit status."""
    prompt = read_prompt(args.prompt, sys.stdin if stdin is None else stdin)
    out = out or console()
    err = err or console(stderr=True)
    return asyncio.run(_run(args, prompt, out, err))


async def _run(args: argparse.Namespace, prompt: str, out: Console, err: Console) -> int:
    printer = StreamPrinter(out, events=out if out.is_terminal else err)
    session = await open_session(args, printer)
    try:
        turn = await session.turn(prompt)
    finally:
        await session.aclose()
    return _outcome(turn, session, err)


def _outcome(turn: Turn, session: Session, err: Console) -> int:
    if turn.failure is not None:
        print_error(err, turn.failure.message)
        return EXIT_FAILED
    if turn.result.tripwire is not None:
        return EXIT_BLOCKED
    if session.new_thread:
        note = f"saved in thread {session.thread_id}; continue it with --thread {session.thread_id}"
        err.print(Text(note, style="dim"), soft_wrap=True)  # the ids must stay copyable
    return EXIT_OK
