"""Starting the server under test in its own process, and stopping it as a deployment does.

``uvicorn`` serves ``tests.server_clients.app:app`` on 127.0.0.1; ``start`` runs any command
(``procession serve`` too) and waits until ``GET /health`` answers.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "tests" / "js"
NODE = JS / "node_modules" / ".bin" / "node"
PACKAGES = ("@mastra/client-js", "ai", "@ag-ui/client")

RunNode = Callable[[str, dict[str, Any]], dict[str, Any]]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Served:
    """A running server: its base URL, process and log file."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        """What the server wrote to stdout and stderr so far."""
        return self.log.read_text(errors="replace")


def wait_until_ready(served: Served, timeout: float = 30.0) -> None:
    """Poll ``GET /health`` until it answers, or fail with the server's output."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if served.process.poll() is not None:
            pytest.fail(f"the server exited with {served.process.returncode}:\n{served.output()}")
        try:
            with urllib.request.urlopen(f"{served.url}/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    stop(served.process)
    pytest.fail(f"the server did not answer within {timeout:.0f} s:\n{served.output()}")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop a server as a deployment does (SIGTERM), killing it if it hangs."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start(
    command: list[str], env: dict[str, str], log: Path, port: int, *, cwd: Path = ROOT
) -> Served:
    """Start a server process in ``cwd`` and wait until it answers."""
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    served = Served(f"http://127.0.0.1:{port}", process, log)
    wait_until_ready(served)
    return served


def server_env(db: Path, **extra: str) -> dict[str, str]:
    """The environment of a server process: the database, the repository importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROCESSION_TEST_SERVER")}
    pythonpath = [str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    return {
        **env,
        "PYTHONPATH": os.pathsep.join(pythonpath),
        "PROCESSION_TEST_SERVER_DB": str(db),
        **extra,
    }


def uvicorn(tmp: Path, name: str, **extra: str) -> Served:
    """``tests.server_clients.app:app`` on uvicorn, on a port of its own."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "tests.server_clients.app:app"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    return start(command, server_env(tmp / f"{name}.db", **extra), tmp / f"{name}.log", port)


def missing_clients() -> str | None:
    """Why the JavaScript clients cannot run, or ``None`` when they can."""
    if not NODE.exists():
        return f"{NODE} is missing"
    for package in PACKAGES:
        if not (JS / "node_modules" / package / "package.json").exists():
            return f"the npm package {package} is missing from {JS / 'node_modules'}"
    return None
