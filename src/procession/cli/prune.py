"""``procession prune``: delete what durable runs that crashed left at rest.

A durable run deletes its checkpoints (its model's raw output, its tool results) when it
ends; a run whose every worker died before it ended leaves them. ``procession prune
--database-url URL`` deletes the checkpoints of every run that is no longer pending (the
Python function is :func:`procession.durable.checkpoints.prune_checkpoints`).
"""

from __future__ import annotations

import argparse
import asyncio
import os

from procession.cli.errors import CLIError
from procession.cli.options import Commands, add_command

__all__ = ["prune_command", "register"]

DESCRIPTION = """\
Delete the checkpoints of durable runs that are no longer pending (ended, or gone from
DBOS): what runs that crashed left in procession.checkpoints. A run that ends deletes its own.

  procession prune --database-url postgresql://.../procession_dbos --older-than 3600
"""


def register(commands: Commands, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``prune`` to the command table."""
    parser = add_command(
        commands,
        parents,
        "prune",
        summary="delete what crashed durable runs left at rest",
        description=DESCRIPTION,
        handler=prune_command,
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("PROCESSION_DURABLE_URL"),
        help="the durable runs' PostgreSQL database (default: $PROCESSION_DURABLE_URL)",
    )
    parser.add_argument(
        "--older-than",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="only records older than this (default: 0)",
    )


def prune_command(args: argparse.Namespace) -> int:
    """Run ``procession prune``; returns the exit status."""
    from procession.durable.checkpoints import prune_checkpoints

    url = args.database_url
    if not url or not url.startswith(("postgresql://", "postgres://")):
        raise CLIError("prune: --database-url: expected a postgresql:// URL")
    deleted = asyncio.run(prune_checkpoints(url, older_than=args.older_than))
    print(f"deleted {deleted} checkpoint record{'s' if deleted != 1 else ''}")
    return 0
