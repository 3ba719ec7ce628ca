"""The ``procession`` command line: ``demo`` and ``chat``."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="procession",
        description="An agent runtime built around Mastra's processor pipeline.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a support assistant with guardrails, live")
    demo.add_argument("--model", help="a 'provider/model' id (default: the embedded model)")
    chat = sub.add_parser("chat", help="chat with an agent defined in a Python module")
    chat.add_argument("target", help="MODULE_OR_FILE:ATTRIBUTE, e.g. app.py:agent")
    chat.add_argument("--model", help="a 'provider/model' id replacing the agent's model")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            from procession.cli.demo import run_demo

            return asyncio.run(run_demo(args.model))
        from procession.cli.chat import run_chat

        return asyncio.run(run_chat(args.target, args.model))
    except KeyboardInterrupt:
        return 130
