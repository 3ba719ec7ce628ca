"""The floor of ``bench/bench_server.py``: a bare Starlette app on uvicorn with no agent.

It answers the bench's two routes with the same wire formats and chunk counts as the agent
servers (``BENCH_CHUNKS`` text deltas, 7): ``POST /api/agents/{agent_id}/stream`` with Mastra's
chunks as server-sent events, and ``POST /chat/{agent_id}`` with the AI SDK UI message stream.
Whatever the load costs here is the cost of the HTTP stack and the load generator alone.

    python -m uvicorn server_bare:app --app-dir bench --host 127.0.0.1 --port PORT
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

CHUNKS = int(os.environ.get("BENCH_CHUNKS", "7"))
SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def sse(obj: object) -> str:
    """One server-sent event holding ``obj`` as JSON."""
    return f"data: {json.dumps(obj, separators=(',', ':'))}\n\n"


async def agents(_: Request) -> Response:
    """``GET /api/agents``: the readiness probe."""
    return JSONResponse({"bench": {"id": "bench", "name": "bench"}})


async def stream(request: Request) -> Response:
    """Mastra's chunk stream of a fixed reply."""
    await request.json()
    run = str(uuid.uuid4())

    async def events() -> AsyncIterator[str]:
        yield sse({"type": "start", "runId": run, "from": "AGENT", "payload": {}})
        yield sse({"type": "text-start", "runId": run, "from": "AGENT", "payload": {"id": "t"}})
        for i in range(CHUNKS):
            payload = {"id": "t", "text": f"w{i % 10} "}
            yield sse({"type": "text-delta", "runId": run, "from": "AGENT", "payload": payload})
        yield sse({"type": "text-end", "runId": run, "from": "AGENT", "payload": {"id": "t"}})
        finish = {"stepResult": {"reason": "stop"}, "output": {"usage": {}}}
        yield sse({"type": "finish", "runId": run, "from": "AGENT", "payload": finish})
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream", headers=SSE_HEADERS)


async def chat(request: Request) -> Response:
    """The AI SDK UI message stream of a fixed reply."""
    await request.json()

    async def events() -> AsyncIterator[str]:
        yield sse({"type": "start", "messageId": str(uuid.uuid4())})
        yield sse({"type": "start-step"})
        yield sse({"type": "text-start", "id": "t"})
        for i in range(CHUNKS):
            yield sse({"type": "text-delta", "id": "t", "delta": f"w{i % 10} "})
        yield sse({"type": "text-end", "id": "t"})
        yield sse({"type": "finish-step"})
        yield sse({"type": "finish", "finishReason": "stop"})
        yield "data: [DONE]\n\n"

    headers = {**SSE_HEADERS, "x-vercel-ai-ui-message-stream": "v1"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)


app = Starlette(
    routes=[
        Route("/api/agents", agents),
        Route("/api/agents/{agent_id}/stream", stream, methods=["POST"]),
        Route("/chat/{agent_id}", chat, methods=["POST"]),
    ]
)
