"""The ``procession`` command line: ``run``, ``chat``, ``demo``, ``serve`` and ``prune`` (the
``cli`` extra).

Each command is a module of this package with a ``register(commands, parents)`` function that
adds its parser and sets its handler (``handler(args) -> exit status``); :data:`COMMANDS`
lists them in help order, so a new command is one module and one entry.

Mistakes print one line on standard error and exit non-zero, never a traceback
(:mod:`procession.cli.errors` lists the exit statuses); ``-vv`` adds the traceback of an
unexpected error to the log.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from procession._version import __version__
from procession.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, CLIError, one_line
from procession.cli.logs import command_logging
from procession.cli.options import verbosity_options
from procession.errors import ProcessionError

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS: tuple[str, ...] = ("run", "chat", "demo", "serve", "prune")
"""The command modules of :mod:`procession.cli`, in the order ``--help`` lists them."""

logger = logging.getLogger("procession.cli")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every command of :data:`COMMANDS`."""
    parser = argparse.ArgumentParser(
        prog="procession",
        description="An agent runtime built around Mastra's processor pipeline.",
        parents=[verbosity_options(top_level=True)],
    )
    parser.add_argument("--version", action="version", version=f"procession {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parents = [verbosity_options(top_level=False)]
    for name in COMMANDS:
        importlib.import_module(f"procession.cli.{name}").register(commands, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); returns the exit
    status."""
    args = build_parser().parse_args(argv)
    with command_logging(args.verbose):
        try:
            status: int = args.handler(args)
        except KeyboardInterrupt:
            print("\ninterrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        except CLIError as exc:
            _report(exc.message)
            return exc.exit_code
        except ProcessionError as exc:  # a configuration mistake found on the way
            _report(one_line(str(exc)))
            return EXIT_USAGE
        except Exception as exc:
            logger.debug("unexpected error", exc_info=True)
            _report(one_line(f"{type(exc).__name__}: {exc} (run with -vv for the traceback)"))
            return EXIT_FAILED
    return status


def _report(message: str) -> None:
    from procession.cli.render import console
    from procession.cli.session import print_error

    print_error(console(stderr=True), message)
