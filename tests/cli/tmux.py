"""A real terminal for the command line's tests: ``tmux`` on a socket of the test's own, one
detached 80x24 session running the command; keys are typed with ``send-keys`` and the screen
is read with ``capture-pane`` (what a person would see, escape codes already applied)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["Tmux", "tmux_session"]


class Tmux:
    """One tmux session on a private server socket."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        """Run a tmux command against this session's server; its output."""
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
        return done.stdout

    def type(self, text: str) -> None:
        """Type ``text`` literally (no key names)."""
        self.tmux("send-keys", "-t", "main", "-l", text)

    def press(self, key: str) -> None:
        """Press one key by its tmux name (``Enter``, ``C-d``)."""
        self.tmux("send-keys", "-t", "main", key)

    def screen(self) -> str:
        """The visible screen and its scrollback, one line per row, trailing blanks cut."""
        text = self.tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "main")
        return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")

    def wait_for(self, found: Callable[[str], bool], timeout: float = 30.0) -> str:
        """The screen once ``found(screen)`` holds; fails the test with the screen if not."""
        deadline = time.monotonic() + timeout
        screen = self.screen()
        while not found(screen):
            if time.monotonic() > deadline:
                pytest.fail(f"the terminal never showed what was expected:\n{screen}")
            time.sleep(0.05)
            screen = self.screen()
        return screen


@contextmanager
def tmux_session(
    command: Sequence[str], *, cwd: Path, env: dict[str, str], width: int = 80, height: int = 24
) -> Iterator[Tmux]:
    """``command`` running in a fresh detached tmux session (skipped without tmux)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install -y tmux)")
    session = Tmux(f"procession-test-{uuid.uuid4().hex[:12]}")
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    line = f"cd {shlex.quote(str(cwd))} && env -i {exports} {shlex.join(command)}; sleep 30"
    session.tmux(
        "-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", str(width), "-y", str(height)
    )
    try:
        session.tmux("set-option", "-t", "main", "history-limit", "1000")
        session.tmux("respawn-pane", "-k", "-t", "main", line)
        yield session
    finally:
        kill = ["tmux", "-L", session.socket, "kill-server"]
        subprocess.run(kill, capture_output=True, check=False)
