"""The ``procession`` command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="procession", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the bundled example agent")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from procession._demo import run_demo

        return run_demo()
    return 2  # pragma: no cover - argparse rejects unknown commands
