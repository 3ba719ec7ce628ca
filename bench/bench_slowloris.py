"""Slow and oversized clients against the server, with ``serve()``'s connection limits and
without them (plain uvicorn, as before issue 20).

Run: ``.venv/bin/python bench/bench_slowloris.py [--slow 150] [--hold 20]``. For each mode a
server runs in a subprocess on 127.0.0.1 and this prints:

* slowloris: of ``--slow`` connections each sending one header byte per second, how many the
  server still holds after ``--hold`` seconds;
* unfinished headers: the server's RSS growth while four connections each push 16 MiB of
  header without ending it, and what they were answered;
* a complete 1 MiB header: the status line of the answer.

Loopback only; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVER = """
import sys, uvicorn
from procession import Agent
from procession.server import create_app
from procession.server.run import uvicorn_config
from procession.testing import ScriptedModel
app = create_app(Agent(id="a", model=ScriptedModel(["hi"], repeat_last=True)))
port = int(sys.argv[2])
if sys.argv[1] == "plain":
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error")
else:
    config, _ = uvicorn_config(app, host="127.0.0.1", port=port, token=False, log_level="error")
    uvicorn.Server(config).run()
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def _slowloris(port: int, count: int, hold: float) -> int:
    conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(count)]
    for _, writer in conns:
        writer.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-a: ")
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline:
        for reader, writer in conns:
            if not reader.at_eof():
                with contextlib.suppress(ConnectionError, RuntimeError):
                    writer.write(b"a")
        await asyncio.sleep(1)
        for reader, _ in conns:  # notice closed connections
            with contextlib.suppress(TimeoutError, ConnectionError):
                await asyncio.wait_for(reader.read(65536), 0.001)
    held = sum(1 for reader, _ in conns if not reader.at_eof())
    for _, writer in conns:
        writer.close()
    return held


async def _big_headers(port: int, pid: int) -> tuple[int, list[str]]:
    before = _rss_kib(pid)
    piece = b"a" * 65536
    answers: list[str] = []
    conns = [await asyncio.open_connection("127.0.0.1", port) for _ in range(4)]
    peak = before
    for _, writer in conns:
        writer.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ")
        for _ in range(256):  # 16 MiB
            try:
                writer.write(piece)
                await asyncio.wait_for(writer.drain(), 5)
            except (ConnectionError, TimeoutError):
                break
        peak = max(peak, _rss_kib(pid))
    for reader, writer in conns:
        try:
            data = await asyncio.wait_for(reader.read(200), 2)
        except (TimeoutError, ConnectionError):
            data = b""
        answers.append(data.split(b"\r\n", 1)[0].decode() or "(no answer yet)")
        writer.close()
    return (peak - before) // 1024, answers


async def _one_mib_header(port: int) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: " + b"a" * 1_048_576)
    writer.write(b"\r\nconnection: close\r\n\r\n")
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    try:
        data = await asyncio.wait_for(reader.read(200), 10)
    except (TimeoutError, ConnectionError):
        data = b""
    writer.close()
    return data.split(b"\r\n", 1)[0].decode() or "(closed without an answer)"


def _run(mode: str, slow: int, hold: float) -> None:
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, mode, str(port)])
    try:
        for _ in range(300):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            time.sleep(0.1)
        held = asyncio.run(_slowloris(port, slow, hold))
        print(f"{mode:8} slowloris: {held} of {slow} connections still held after {hold:g} s")
        growth, answers = asyncio.run(_big_headers(port, server.pid))
        print(f"{mode:8} 4 x 16 MiB unfinished headers: RSS +{growth} MiB; answers {answers}")
        print(f"{mode:8} complete 1 MiB header: {asyncio.run(_one_mib_header(port))}")
    finally:
        server.terminate()
        server.wait(15)


def main() -> None:
    """Both modes, one after the other."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=int, default=150)
    parser.add_argument("--hold", type=float, default=20.0)
    parser.add_argument("--mode", choices=["plain", "limited", "both"], default="both")
    args = parser.parse_args()
    for mode in ("plain", "limited") if args.mode == "both" else (args.mode,):
        _run(mode, args.slow, args.hold)


if __name__ == "__main__":
    main()
