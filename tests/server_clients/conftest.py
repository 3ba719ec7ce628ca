"""The real server on a real socket, and the real JavaScript clients run by Node 22.

The server is uvicorn serving ``tests.server_clients.app:app`` in its own process on
127.0.0.1 (one per configuration per session, on a fresh SQLite file). The clients are the npm
packages of ``tests/js`` (``@mastra/client-js``, ``ai``) run by the Node 22 binary of the
``node`` package there; ``scripts/test.sh`` runs ``npm ci`` in ``tests/js`` when they are
missing. Without them the tests are skipped locally and fail in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_clients.servers import JS, NODE, RunNode, Served, missing_clients, stop, uvicorn


@pytest.fixture(scope="session")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app without credentials: requests belong to the resource their body names."""
    served = uvicorn(tmp_path_factory.mktemp("open"), "open")
    yield served
    stop(served.process)


@pytest.fixture(scope="session")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app with an API key (resource ``alice``) and HS256 JWTs."""
    served = uvicorn(tmp_path_factory.mktemp("auth"), "auth", PROCESSION_TEST_SERVER_AUTH="1")
    yield served
    stop(served.process)


@pytest.fixture(scope="session")
def node() -> Path:
    """The Node 22 of ``tests/js`` (skipped locally without it; fails in CI)."""
    why = missing_clients()
    if why is not None:
        message = f"{why}: run `npm ci` in tests/js (scripts/test.sh does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return NODE


@pytest.fixture(scope="session")
def run_node(node: Path) -> RunNode:
    """Run a script of ``tests/js`` with a JSON spec on its standard input; return the JSON
    it prints."""

    def run(script: str, spec: dict[str, Any]) -> dict[str, Any]:
        proc = subprocess.run(
            [str(node), script],
            input=json.dumps(spec),
            cwd=JS,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, f"{script} failed ({proc.returncode}):\n{proc.stderr}"
        lines = proc.stdout.strip().splitlines()
        assert lines, f"{script} printed nothing; stderr:\n{proc.stderr}"
        result: dict[str, Any] = json.loads(lines[-1])
        return result

    return run
