"""``procession run --help`` imports no optional part (issue 25, "Start-up").

Every command module registers itself when the parser is built, so each one's import is paid by
every command: none may load the server, the MCP client, pydantic or the guardrail engines at
import time. A fresh interpreter and ``sys.modules``, never a timing.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

NOT_FOR_HELP = (
    "procession.server",
    "procession.mcp",
    "procession.memory.memory",
    "procession.guardrails.redact",
    "procession.tracing.records",
    "pydantic",
    "docstring_parser",
    "starlette",
    "uvicorn",
    "httpx",
    "opentelemetry",
)

PROBE = """
import json, sys
from procession.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["run", "--help"], ["--help"]])
def test_help_does_not_import_the_optional_parts(argv: list[str]) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv)], capture_output=True, text=True, check=True
    )
    assert "usage: procession" in out.stdout
    loaded = set(json.loads(out.stderr.splitlines()[-1]))
    assert sorted(name for name in NOT_FOR_HELP if name in loaded) == []
