"""``docs/server.md``'s ``@mastra/client-js`` example runs as written against its ``app.py``.

The page's client block is copied, unchanged but for its base URL, into
``tests/js/.generated/`` (so it resolves ``@mastra/client-js`` from ``tests/js/node_modules``)
and run by Node 22, with one line appended that prints the memory values the example reads
but does not print. The server is ``procession serve`` on the page's own ``app.py``
(``docs_app.py``).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_clients.servers import JS, ROOT, Served, free_port, server_env, start, stop
from tests.server_clients.shared import DOCS

GENERATED = JS / ".generated"
TOKEN = secrets.token_urlsafe(24)
"""The server's access token, which the page's client sends as a bearer header."""
PRINT_MEMORY = (
    '\nprocess.stdout.write("\\n" + JSON.stringify({ threads, messages, uiMessages }) + "\\n");\n'
)


def client_example() -> str:
    """The code block of the page's "Driven by @mastra/client-js" section."""
    section = DOCS.read_text().split("### Driven by `@mastra/client-js`", 1)[1]
    found = re.search(r"```(?:ts|js|javascript|typescript)\n(.*?)```", section, re.S)
    assert found is not None, f"{DOCS}: no client code block"
    return found.group(1)


@pytest.fixture
def docs_server(tmp_path: Path) -> Iterator[Served]:
    """``procession serve docs_app.py`` (the page's app.py) in a fresh directory."""
    port = free_port()
    procession = Path(sys.executable).with_name("procession")
    app = ROOT / "tests" / "server_clients" / "docs_app.py"
    command = [str(procession), "serve", str(app), "--port", str(port), "--token", TOKEN]
    served = start(
        command, server_env(tmp_path / "unused.db"), tmp_path / "serve.log", port, cwd=tmp_path
    )
    yield served
    stop(served.process)


def run_example(node: Path, url: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run the page's client block against ``url``."""
    code = client_example()
    assert "http://localhost:4111" in code
    GENERATED.mkdir(exist_ok=True)
    script = GENERATED / f"docs-client-{tmp_path.name}.mjs"
    script.write_text(code.replace("http://localhost:4111", url) + PRINT_MEMORY)
    try:
        return subprocess.run(
            [str(node), script.name],
            cwd=GENERATED,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PROCESSION_TOKEN": TOKEN},  # the page reads it from there
        )
    finally:
        script.unlink()


def test_the_client_js_example_runs_as_written(
    node: Path, docs_server: Served, tmp_path: Path
) -> None:
    proc = run_example(node, docs_server.url, tmp_path)
    assert proc.returncode == 0, f"{proc.stderr}\n--- server:\n{docs_server.output()}"
    lines = proc.stdout.splitlines()
    # console.log(result.text, result.finishReason, result.usage)
    assert lines[0].startswith("Order A-1001 has shipped. stop {")
    assert "inputTokens" in lines[0]
    # the streamed text, written delta by delta
    assert lines[1] == "Order A-1002 has shipped."
    memory: dict[str, Any] = json.loads(lines[-1])
    assert [t["id"] for t in memory["threads"]] == ["order-chat-1"]
    assert memory["threads"][0]["resourceId"] == "user-42"
    roles = [m["role"] for m in memory["messages"]]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert len(memory["uiMessages"]) == 4
