"""Driving the real ``procession`` command in a subprocess: with pipes, or on a terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path

__all__ = ["Done", "app_file", "clean_env", "run_cli", "run_cli_async", "run_on_terminal"]

PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_BASE_URL",
)
COMMAND = [sys.executable, "-m", "procession"]


@dataclass(frozen=True)
class Done:
    """A finished command: exit status and what it wrote."""

    status: int
    stdout: str
    stderr: str


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without provider keys (so the default model is predictable),
    plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARIABLES}
    env.update(extra)
    return env


def app_file(directory: Path, source: str, name: str = "app.py") -> Path:
    """Write an agent module into ``directory``."""
    path = directory / name
    path.write_text(source)
    return path


def run_cli(
    *args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None
) -> Done:
    """Run ``procession ARGS`` with pipes (not a terminal); ``stdin`` is piped in when given,
    else standard input is ``/dev/null``."""
    completed = subprocess.run(
        [*COMMAND, *args],
        cwd=cwd,
        env=env if env is not None else clean_env(),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return Done(completed.returncode, completed.stdout, completed.stderr)


async def run_cli_async(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Done:
    """:func:`run_cli` without blocking the event loop (for tests whose loopback server
    runs in it)."""
    process = await asyncio.create_subprocess_exec(
        *COMMAND,
        *args,
        cwd=cwd,
        env=env if env is not None else clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return Done(process.returncode, stdout.decode(), stderr.decode())


def run_on_terminal(
    *args: str,
    cwd: Path,
    lines: Sequence[str] = (),
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Done:
    """Run ``procession ARGS`` on a pseudo-terminal (80x24), typing ``lines`` one at a time,
    each after the previous output has settled. Returns everything the terminal showed (as
    ``stdout``, escape codes included; ``stderr`` is the same terminal)."""
    leader, follower = pty.openpty()
    ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    process = subprocess.Popen(
        [*COMMAND, *args],
        cwd=cwd,
        env={**(env if env is not None else clean_env()), "TERM": "xterm-256color"},
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    shown = bytearray()
    typed = 0
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.3)
            if ready:
                try:
                    data = os.read(leader, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                shown += data
            elif typed < len(lines) and shown.count(b"you>") > typed:  # the next prompt is up
                os.write(leader, (lines[typed] + "\n").encode())
                typed += 1
            elif process.poll() is not None:
                break
        status = process.wait(timeout=max(0.1, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(leader)
    text = shown.decode("utf-8", "replace")
    return Done(status, text, text)
