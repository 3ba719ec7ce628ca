"""What the A2A route adds per text delta, against the same run streamed in process.

Run: ``.venv/bin/python bench/bench_a2a_chunk.py`` (``A2A_CHUNKS``, ``A2A_ROUNDS`` change the
size). One agent streams ``A2A_CHUNKS`` ready text deltas (a scripted model: no provider, no
network). The same run is measured, rounds interleaved, medians reported, in CPU time (the
machine is shared): ``inProcess`` (``async for chunk in agent.stream(..., release="step")``)
and, for each dialect, the app called directly with in-memory ``receive``/``send`` for
``SendStreamingMessage`` (1.0) and ``message/stream`` (0.3): routing, the JSON-RPC body, the
task, its follower and the event encoding, no socket. ``addedMicrosPerChunk`` is
(way - inProcess) / chunks.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from typing import Any

from procession import Agent
from procession.server import create_app
from procession.testing import Reply, ScriptedModel

CHUNKS = int(os.environ.get("A2A_CHUNKS", "2000"))
ROUNDS = int(os.environ.get("A2A_ROUNDS", "7"))
BODIES = {
    "1.0": {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendStreamingMessage",
        "params": {"message": {"role": "ROLE_USER", "messageId": "m1", "parts": [{"text": "go"}]}},
    },
    "0.3": {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/stream",
        "params": {
            "message": {
                "kind": "message",
                "role": "user",
                "messageId": "m1",
                "parts": [{"kind": "text", "text": "go"}],
            }
        },
    },
}


def agent() -> Agent:
    """An agent streaming ``CHUNKS`` ready deltas."""
    deltas = [f"w{i} " for i in range(CHUNKS)]
    return Agent(id="bench", model=ScriptedModel([Reply(text=deltas)], repeat_last=True))


async def in_process(bench: Agent) -> float:
    """CPU seconds of the run read in process."""
    start = time.process_time()
    async for _ in bench.stream("go", release="step"):
        pass
    return time.process_time() - start


async def asgi(app: Any, body: dict[str, Any]) -> float:
    """CPU seconds of one streaming request through the app, and a check of what it sent."""
    payload = json.dumps(body).encode()
    sent: list[bytes] = []
    gone = asyncio.Event()
    messages = [{"type": "http.request", "body": payload, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop()
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            sent.append(message.get("body", b""))

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/a2a/bench",
        "raw_path": b"/api/a2a/bench",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 4111),
    }
    start = time.process_time()
    await app(scope, receive, send)
    spent = time.process_time() - start
    gone.set()
    events = b"".join(sent).count(b"data: ")
    assert events >= CHUNKS, f"only {events} events were sent"
    return spent


async def main() -> None:
    bench = agent()
    app = create_app(bench)
    async with app.router.lifespan_context(app):
        samples: dict[str, list[float]] = {"inProcess": [], "1.0": [], "0.3": []}
        for _ in range(ROUNDS):
            samples["inProcess"].append(await in_process(bench))
            for version, body in BODIES.items():
                samples[version].append(await asgi(app, body))
    base = statistics.median(samples["inProcess"])
    report = {
        "chunks": CHUNKS,
        "rounds": ROUNDS,
        "inProcessMicrosPerChunk": round(base / CHUNKS * 1e6, 2),
        "addedMicrosPerChunk": {
            version: round((statistics.median(samples[version]) - base) / CHUNKS * 1e6, 2)
            for version in BODIES
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
