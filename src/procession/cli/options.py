"""Options several commands share, and their checks."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TypeAlias

from procession.cli.timeouts import DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT

__all__ = [
    "Commands",
    "add_agent_options",
    "add_command",
    "add_model_options",
    "seconds",
    "verbosity_options",
]

Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The command table each command module's ``register(commands, parents)`` adds to."""


def add_command(
    commands: Commands,
    parents: list[argparse.ArgumentParser],
    name: str,
    *,
    summary: str,
    description: str,
    handler: Callable[[argparse.Namespace], int],
) -> argparse.ArgumentParser:
    """Add command ``name`` (``description`` keeps its line breaks in ``--help``); ``main``
    calls ``handler(args)`` for it."""
    parser: argparse.ArgumentParser = commands.add_parser(
        name,
        parents=parents,
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(handler=handler)
    return parser


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def verbosity_options(*, top_level: bool) -> argparse.ArgumentParser:
    """A parent parser with ``-v``; on a subcommand its default is left unset so that
    ``procession -v run`` and ``procession run -v`` both count."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if top_level else argparse.SUPPRESS,
        help="show procession's log: -v INFO (retries, back-offs), -vv DEBUG, -vvv all libraries",
    )
    return parent


def add_model_options(parser: argparse.ArgumentParser, *, model_help: str) -> None:
    """``--model``, ``--connect-timeout`` and ``--read-timeout``."""
    parser.add_argument("-m", "--model", metavar="PROVIDER/MODEL", help=model_help)
    parser.add_argument(
        "--connect-timeout",
        type=seconds,
        default=DEFAULT_CONNECT_TIMEOUT,
        metavar="SECONDS",
        help="how long a provider has to answer each call (default: %(default)g)",
    )
    parser.add_argument(
        "--read-timeout",
        type=seconds,
        default=DEFAULT_READ_TIMEOUT,
        metavar="SECONDS",
        help="how long a streaming answer may stay silent (default: %(default)g)",
    )


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    """``--agent``, ``--system``, ``--thread`` and ``--resource``."""
    parser.add_argument(
        "-a",
        "--agent",
        metavar="TARGET",
        help="the agent to run: FILE.py:ATTR, MODULE:ATTR, or a file or module with one Agent",
    )
    parser.add_argument("-s", "--system", metavar="TEXT", help="an extra system prompt")
    parser.add_argument(
        "--thread",
        metavar="ID",
        help="memory thread to continue (agents with memory; default: a new thread)",
    )
    parser.add_argument(
        "--resource",
        metavar="ID",
        help="memory resource (user) the thread belongs to (default: your user name)",
    )
