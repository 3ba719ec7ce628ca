"""The load generator of ``bench/bench_server.py``: many concurrent streaming POSTs, one process.

It runs in its own virtual environment (``bench/.venvs/loadgen``, aiohttp and uvloop from
``bench/loadgen-requirements.txt``), apart from the server it loads, so the two do not share an
event loop or a core's worth of Python. Standard library and aiohttp only: procession is not
installed there.

    python bench/loadgen.py SPEC_JSON     -> one JSON object on stdout

``SPEC_JSON`` holds ``url``, ``body`` (the JSON request body), ``headers``, ``concurrency``,
``warmup`` (sequential requests before the batch), ``deltas`` (text deltas every response must
hold), ``deltaMarker`` (the bytes that start one text delta in the wire format, counted) and
``endMarker`` (the bytes that end a complete response). Every request of the batch is started
at once; a request counts as an error unless it gets 200, exactly ``deltas`` text deltas and
the end marker. First-chunk latency is from the moment a request is sent to the moment its
first text delta arrives.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

try:
    import uvloop
except ImportError:  # pragma: no cover - the loadgen venv has it
    uvloop = None


@dataclass(slots=True)
class Outcome:
    """One request: when it was sent, first delta, end, deltas seen, error."""

    sent: float = 0.0
    first: float | None = None
    end: float = 0.0
    deltas: int = 0
    bytes: int = 0
    error: str | None = None
    notes: list[str] = field(default_factory=list)


async def one_request(
    session: aiohttp.ClientSession, spec: dict[str, Any], payload: bytes
) -> Outcome:
    """Send one streaming request and count its text deltas as they arrive."""
    marker: bytes = spec["deltaMarker"].encode()
    end_marker: bytes = spec["endMarker"].encode()
    keep = max(len(marker), len(end_marker)) - 1
    out = Outcome(sent=time.perf_counter())
    tail = b""
    ended = False
    try:
        async with session.post(spec["url"], data=payload, headers=spec["headers"]) as resp:
            if resp.status != 200:
                out.error = f"status {resp.status}: {(await resp.read())[:200]!r}"
                out.end = time.perf_counter()
                return out
            async for data in resp.content.iter_any():
                window = tail + data
                found = window.count(marker)
                if found:
                    if out.first is None:
                        out.first = time.perf_counter()
                    out.deltas += found
                if not ended and end_marker in window:
                    ended = True
                out.bytes += len(data)
                tail = window[-keep:] if keep else b""
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
    out.end = time.perf_counter()
    if out.error is None and out.deltas != spec["deltas"]:
        out.error = f"expected {spec['deltas']} text deltas, got {out.deltas}"
    elif out.error is None and not ended:
        out.error = "the response ended without its end marker"
    return out


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of the values."""
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def cpu_seconds() -> float:
    """This process's user plus system CPU time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def run(spec: dict[str, Any]) -> dict[str, Any]:
    """Warm up, then run the batch of concurrent requests and summarise it."""
    payload = json.dumps(spec["body"]).encode()
    concurrency = int(spec["concurrency"])
    timeout = aiohttp.ClientTimeout(total=float(spec.get("timeout", 300)))
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        for _ in range(int(spec.get("warmup", 0))):
            warm = await one_request(session, spec, payload)
            if warm.error:
                return {"error": f"warm-up request failed: {warm.error}"}
        cpu0 = cpu_seconds()
        t0 = time.perf_counter()
        outcomes = await asyncio.gather(
            *(one_request(session, spec, payload) for _ in range(concurrency))
        )
        wall = time.perf_counter() - t0
        cpu = cpu_seconds() - cpu0
    return summarise(outcomes, t0, wall, cpu)


def summarise(outcomes: list[Outcome], t0: float, wall: float, cpu: float) -> dict[str, Any]:
    """Wall time, chunk rate, first-chunk latencies and the errors of one batch."""
    ok = [o for o in outcomes if o.error is None]
    errors = [o.error for o in outcomes if o.error is not None]
    firsts = [o.first - o.sent for o in ok if o.first is not None]
    deltas = sum(o.deltas for o in ok)
    result: dict[str, Any] = {
        "requests": len(outcomes),
        "ok": len(ok),
        "errors": len(errors),
        "errorSamples": sorted(set(errors))[:5],
        "wallSeconds": round(wall, 4),
        "textDeltas": deltas,
        "deltasPerSecond": round(deltas / wall, 1) if wall else None,
        "bytes": sum(o.bytes for o in outcomes),
        "lastSentAfterSeconds": round(max(o.sent for o in outcomes) - t0, 4),
        "loadgenCpuSeconds": round(cpu, 3),
    }
    if firsts:
        result["firstChunkP50Seconds"] = round(percentile(firsts, 50), 4)
        result["firstChunkP99Seconds"] = round(percentile(firsts, 99), 4)
        result["firstChunkMaxSeconds"] = round(max(firsts), 4)
    return result


def main() -> None:
    """Read the spec from argv, run it, print one JSON object."""
    spec = json.loads(sys.argv[1])
    factory = uvloop.new_event_loop if uvloop is not None else None
    with asyncio.Runner(loop_factory=factory) as runner:
        result = runner.run(run(spec))
    result["loop"] = "uvloop" if uvloop is not None else "asyncio"
    result["aiohttp"] = aiohttp.__version__
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
