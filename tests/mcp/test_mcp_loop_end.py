"""``mcp_tools()``: a connection without a context manager lives until the event loop ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .mcp_helpers import SERVER, wait_until_gone


def test_mcp_tools_keeps_the_server_until_the_event_loop_ends(tmp_path: Path) -> None:
    script = tmp_path / "app.py"
    script.write_text(
        "import asyncio, sys\n"
        "from procession.mcp import mcp_tools\n"
        "async def main():\n"
        f"    tools = await mcp_tools(stdio=[sys.executable, {SERVER!r}, 'stdio'])\n"
        "    pid = {t.name: t for t in tools}['pid']\n"
        "    from procession import RequestContext, ToolContext, ToolWriter\n"
        "    async def emit(chunk, message_id): pass\n"
        "    context = ToolContext('c', 'pid', ToolWriter(emit), RequestContext())\n"
        "    print((await pid.execute({}, context))['result'], flush=True)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, check=True
    )
    assert wait_until_gone(int(done.stdout.split()[-1]))
    assert "Task was destroyed" not in done.stderr
