"""Command-line costs: start-up, what ``BoundedModel`` adds per chunk, and how fast a dead
network fails.

Run: ``.venv/bin/python bench/bench_cli.py``. Prints medians (several interleaved rounds):

* ``procession --version`` and ``procession run`` on a scripted agent, as subprocesses;
* per chunk, reading a 20,000-chunk stream bare, through a do-nothing wrapper (the least a
  wrapper costs) and through ``BoundedModel``;
* the time ``procession run`` takes to fail against a closed loopback port and against a
  listener that never accepts (``--connect-timeout 1``), retries included.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

from procession.chunks import Chunk
from procession.cli.timeouts import BoundedModel
from procession.models.base import ModelCallOptions, StreamResult

CHUNKS = 20_000
ROUNDS = 7
APP = """
from procession import Agent
from procession.testing import ScriptedModel
agent = Agent(id="bench", model=ScriptedModel(["hello"]))
"""


class Fast:
    """A model streaming ``CHUNKS`` ready text deltas."""

    specification_version = "v2"
    provider = "bench"
    model_id = "fast"
    supports_structured_output = False

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        return StreamResult(stream=self._chunks())

    async def _chunks(self) -> AsyncIterator[Chunk]:
        chunk = Chunk("text-delta", {"id": "t", "text": "x"})
        for _ in range(CHUNKS):
            yield chunk


class _PassThrough:
    """The least any stream wrapper costs: an ``__anext__`` that awaits the inner one."""

    def __init__(self, stream: AsyncIterator[Chunk]) -> None:
        self._next = stream.__anext__

    def __aiter__(self) -> _PassThrough:
        return self

    async def __anext__(self) -> Chunk:
        return await self._next()


class Wrapped(Fast):
    """``Fast`` behind a do-nothing wrapper."""

    async def do_stream(self, options: ModelCallOptions) -> StreamResult:
        result = await super().do_stream(options)
        return StreamResult(stream=_PassThrough(result.stream))


async def per_chunk_us(model: object) -> float:
    options = ModelCallOptions(prompt=[])
    started = time.perf_counter()
    result = await model.do_stream(options)  # type: ignore[attr-defined]
    async for _ in result.stream:
        pass
    return (time.perf_counter() - started) / CHUNKS * 1e6


def command(*args: str, cwd: Path, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "procession", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - started


def main() -> None:
    bare: list[float] = []
    passing: list[float] = []
    bounded: list[float] = []
    for _ in range(ROUNDS):  # interleaved, so load on the machine hits all three alike
        bare.append(asyncio.run(per_chunk_us(Fast())))
        passing.append(asyncio.run(per_chunk_us(Wrapped())))
        wrapped = BoundedModel(Fast(), connect_timeout=5, read_timeout=5)
        bounded.append(asyncio.run(per_chunk_us(wrapped)))
    print(f"stream read, bare:            {statistics.median(bare):.3f} us/chunk")
    print(f"stream read, do-nothing wrap: {statistics.median(passing):.3f} us/chunk")
    print(f"stream read, BoundedModel:    {statistics.median(bounded):.3f} us/chunk")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        (cwd / "app.py").write_text(APP)
        version = [command("--version", cwd=cwd) for _ in range(ROUNDS)]
        run = [command("run", "hi", "--agent", "app.py", cwd=cwd) for _ in range(ROUNDS)]
        print(f"procession --version:         {statistics.median(version) * 1000:.0f} ms")
        print(f"procession run (scripted):    {statistics.median(run) * 1000:.0f} ms")
        with socket.socket() as closed:
            closed.bind(("127.0.0.1", 0))
            port = closed.getsockname()[1]
        env = {"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
        refused = command("run", "hi", "--model", "openai/m", cwd=cwd, env=env)
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(1)
            url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
            env = {"OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": url}
            args = ["run", "hi", "--model", "openai/m", "--connect-timeout", "1"]
            never = command(*args, cwd=cwd, env=env)
        print(f"fail, closed port:            {refused:.2f} s (3 attempts)")
        print(f"fail, listener never accepts: {never:.2f} s (3 attempts, 1 s each)")


if __name__ == "__main__":
    main()
