"""What the HTTP server adds per chunk, against the same run streamed in process.

Run: ``.venv/bin/python bench/bench_server_chunk.py`` (``SERVER_CHUNKS``, ``SERVER_ROUNDS`` change
the size). One agent streams ``SERVER_CHUNKS`` ready text deltas through three output
processors (a scripted model: no provider, no network). The same run is measured three ways,
rounds interleaved, medians reported, in CPU time (the machine is shared: wall time says
more about the neighbours than about the code):

* ``inProcess``: ``async for chunk in agent.stream(...)`` — the baseline;
* ``asgi``: the app called directly with in-memory ``receive``/``send`` (routing, body
  parsing, the encoder and Starlette, no socket), for Mastra's stream, the UI stream, the
  OpenAI-compatible ``/v1/chat/completions`` stream and the AG-UI stream (issue 26; those two
  release per step, D31, so their baseline is the same run in process with
  ``release="step"``, ``inProcessStep``);
* ``socket``: ``procession serve`` (uvicorn) in a subprocess on 127.0.0.1, read with httpx:
  the server process's CPU time (from ``/proc``), socket writes included; the client's wall
  time is reported too.

``addedMicrosPerChunk`` is (way - inProcess) / chunks: what serving costs on top of the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

from benchlib import emit, env_int
from procession import Agent, Processor
from procession.server import create_app
from procession.testing import Reply, ScriptedModel

CHUNKS = env_int("SERVER_CHUNKS", 20000)
ROUNDS = env_int("SERVER_ROUNDS", 5)
APP = f"""
from procession import Agent, Processor
from procession.testing import Reply, ScriptedModel


class Pass(Processor):
    def __init__(self, id):
        self.id = id

    def process_output_stream(self, *, part, **_):
        return part


model = ScriptedModel([Reply(text=["x "] * {CHUNKS})], repeat_last=True)
agent = Agent(id="bench", model=model, output_processors=[Pass("a"), Pass("b"), Pass("c")])
"""


class Pass(Processor):
    """A processor that passes every chunk on (the cheapest real hook)."""

    def __init__(self, id: str) -> None:
        self.id = id

    def process_output_stream(self, *, part: Any, **_: Any) -> Any:
        return part


def make_agent() -> Agent:
    model = ScriptedModel([Reply(text=["x "] * CHUNKS)], repeat_last=True)
    return Agent(id="bench", model=model, output_processors=[Pass("a"), Pass("b"), Pass("c")])


async def in_process(agent: Agent, release: Any = "live") -> float:
    start = time.process_time()
    async for _ in agent.stream("go", release=release):
        pass
    return time.process_time() - start


async def through_asgi(app: Any, path: str, body: bytes) -> float:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:4111"),  # the app refuses a request without an allowed Host
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 4111),
        "state": {},
    }
    sent = asyncio.Event()
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> Any:
        if messages:
            return messages.pop()
        await sent.wait()
        return {"type": "http.disconnect"}

    size = 0

    async def send(message: Any) -> None:
        nonlocal size
        size += len(message.get("body", b""))
        if message["type"] == "http.response.body" and not message.get("more_body"):
            sent.set()

    start = time.process_time()
    await app(scope, receive, send)
    elapsed = time.process_time() - start
    assert size > CHUNKS * 20, size
    return elapsed


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def through_socket(
    client: httpx.AsyncClient, path: str, body: Any, pid: int
) -> tuple[float, float]:
    cpu = cpu_seconds(pid)
    start = time.perf_counter()
    size = 0
    async with client.stream("POST", path, json=body) as response:
        async for data in response.aiter_raw():
            size += len(data)
    elapsed = time.perf_counter() - start
    assert size > CHUNKS * 20, size
    return elapsed, cpu_seconds(pid) - cpu


def start_server(directory: Path, port: int) -> subprocess.Popen[bytes]:
    (directory / "bench_app.py").write_text(APP)
    command = [sys.executable, "-m", "procession", "serve", "bench_app.py", "--port", str(port)]
    command.append("--no-token")  # loopback only; the token's check is not what is measured
    process = subprocess.Popen(
        command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("procession serve did not start")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def per_chunk(seconds: float) -> float:
    return round(seconds / CHUNKS * 1e6, 2)


async def main() -> None:
    agent = make_agent()
    app = create_app(agent)
    mastra_body = b'{"messages": "go"}'
    user = {"id": "u", "role": "user", "parts": [{"type": "text", "text": "go"}]}
    chat = {"id": "c", "messages": [user]}
    chat_body = json.dumps(chat).encode()
    said = {"id": "u", "role": "user", "content": "go"}
    ag_ui_body = json.dumps({"threadId": "t", "runId": "r", "messages": [said]}).encode()
    chat_completion = {"model": "bench", "messages": [{"role": "user", "content": "go"}]}
    openai = {**chat_completion, "stream": True}
    openai_body = json.dumps(openai).encode()
    times: dict[str, list[float]] = {
        k: []
        for k in (
            "inProcess",
            "inProcessStep",
            "asgiMastra",
            "asgiUI",
            "asgiAGUI",
            "asgiOpenAI",
            "socketMastra",
            "socketUI",
            "socketOpenAI",
            "cpuMastra",
            "cpuUI",
            "cpuOpenAI",
        )
    }
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        server = start_server(Path(tmp), port)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
                for _ in range(ROUNDS + 1):  # the first round warms up and is dropped
                    times["inProcess"].append(await in_process(agent))
                    times["asgiMastra"].append(
                        await through_asgi(app, "/api/agents/bench/stream", mastra_body)
                    )
                    times["inProcessStep"].append(await in_process(agent, "step"))
                    times["asgiUI"].append(await through_asgi(app, "/chat/bench", chat_body))
                    times["asgiAGUI"].append(await through_asgi(app, "/ag-ui/bench", ag_ui_body))
                    times["asgiOpenAI"].append(
                        await through_asgi(app, "/v1/chat/completions", openai_body)
                    )
                    wall, cpu = await through_socket(
                        client, "/api/agents/bench/stream", {"messages": "go"}, server.pid
                    )
                    times["socketMastra"].append(wall)
                    times["cpuMastra"].append(cpu)
                    wall, cpu = await through_socket(client, "/chat/bench", chat, server.pid)
                    times["socketUI"].append(wall)
                    times["cpuUI"].append(cpu)
                    path = "/v1/chat/completions"
                    wall, cpu = await through_socket(client, path, openai, server.pid)
                    times["socketOpenAI"].append(wall)
                    times["cpuOpenAI"].append(cpu)
        finally:
            server.terminate()
            server.wait(30)
    medians = {k: statistics.median(v[1:]) for k, v in times.items()}
    base, step = medians["inProcess"], medians["inProcessStep"]
    emit(
        {
            "benchmark": "server per-chunk cost",
            "chunks": CHUNKS,
            "rounds": ROUNDS,
            "microsPerChunk": {k: per_chunk(v) for k, v in medians.items()},
            "addedMicrosPerChunk": {
                "asgiMastra": per_chunk(medians["asgiMastra"] - base),
                "asgiUI": per_chunk(medians["asgiUI"] - base),
                "socketMastraServerCpu": per_chunk(medians["cpuMastra"] - base),
                "socketUIServerCpu": per_chunk(medians["cpuUI"] - base),
                # the OpenAI route releases per step (D31): against the same run in step mode
                "asgiOpenAI": per_chunk(medians["asgiOpenAI"] - step),
                "asgiAGUI": per_chunk(medians["asgiAGUI"] - step),  # AG-UI releases per step too
                "socketOpenAIServerCpu": per_chunk(medians["cpuOpenAI"] - step),
            },
        }
    )


if __name__ == "__main__":
    asyncio.run(main())
