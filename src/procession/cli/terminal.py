"""The terminal while an answer streams: what a person types is not echoed into the answer.

The live display redraws a step by moving the cursor up over the lines it drew. A terminal
that echoes keys typed meanwhile moves the cursor too, so the redraw lands a line off and the
answer's first line is drawn twice. :func:`echo_off` turns the echo off for the turn (keys
typed then still reach the next prompt, which shows them: readline reads the type-ahead and
draws it after ``you>``) and puts the terminal back however the turn ends; Ctrl-C still
interrupts (signals are left on).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import IO, Any

__all__ = ["echo_off"]


@contextlib.contextmanager
def echo_off(stream: IO[Any]) -> Iterator[None]:
    """No echo on ``stream``'s terminal inside the block (nothing happens when it is not a
    terminal, or off POSIX)."""
    try:
        import termios
    except ImportError:  # pragma: no cover - Windows: no termios
        yield
        return
    try:
        descriptor = stream.fileno()
        saved = termios.tcgetattr(descriptor)
    except (OSError, ValueError, termios.error):  # not a terminal (a pipe, a closed stream)
        yield
        return
    quiet = list(saved)
    quiet[3] = saved[3] & ~(termios.ECHO | termios.ECHONL)  # the local modes
    termios.tcsetattr(descriptor, termios.TCSANOW, quiet)  # TCSANOW: keep the type-ahead
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(descriptor, termios.TCSANOW, saved)
