"""Logging for the command line: ``-v`` shows INFO, ``-vv`` DEBUG, ``-vvv`` every library.

procession logs through the :mod:`logging` module under the ``procession`` logger
(``procession.models`` reports retries, back-offs and fallbacks). Without ``-v`` only errors
are shown, so a failed call prints the command line's own one-line message and nothing else.
Records go to standard error, which a live display redirects above itself.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FORMAT", "command_logging", "level_for"]

FORMAT = "%(levelname)s %(name)s: %(message)s"


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record (a live display
    swaps it for a proxy that prints above the display)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.setStream(sys.stderr)
        super().emit(record)


def level_for(verbosity: int) -> int:
    """The ``procession`` logger's level for a ``-v`` count."""
    if verbosity <= 0:
        return logging.ERROR
    return logging.INFO if verbosity == 1 else logging.DEBUG


@contextmanager
def command_logging(verbosity: int) -> Iterator[None]:
    """While it is open, ``procession`` records at the level ``verbosity`` asks for go to
    standard error (with three or more ``-v``, every library's DEBUG records too); the
    loggers are restored as they were when it closes."""
    handler = _StderrHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    everything = verbosity >= 3
    logger = logging.getLogger("procession")
    target = logging.getLogger() if everything else logger
    saved = (logger.level, logger.propagate, target.level)
    logger.setLevel(level_for(verbosity))
    logger.propagate = everything  # else an agent module's own logging does not print twice
    target.addHandler(handler)
    if everything:
        target.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        target.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]
        target.setLevel(saved[2])
