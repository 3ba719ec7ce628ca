"""procession's server against Mastra's own server under the same streaming load, on loopback.

    .venv/bin/python bench/bench_server.py             # 1,000 concurrent streams, 5 rounds
    .venv/bin/python bench/bench_server.py --quick     # 200 streams, 1 round (a smoke test)
    .venv/bin/python bench/bench_server.py --only procession,bare --routes stream

Three servers, each its own process on 127.0.0.1, all serving an agent whose scripted model
streams 7 text deltas through 3 pass-through processors (``process_input``,
``process_output_stream``, ``process_output_step``):

* ``procession``: ``procession serve bench/server_app.py`` (Starlette on uvicorn);
* ``mastra``: ``@mastra/core`` 1.71.0 on ``@mastra/hono`` 1.7.9 and ``@hono/node-server``, with
  ``@mastra/ai-sdk`` 1.10.4's chat route (``bench/mastra/server/``, installed with ``npm ci``
  into ``bench/.mastra-server/`` on first use; its Node 22 comes from the ``node`` package);
* ``bare``: a Starlette app on uvicorn with no agent, the same wire formats and chunk counts
  (``bench/server_bare.py``): the floor of the HTTP stack and the load generator.

Two routes each: Mastra's chunk stream (``POST /api/agents/bench/stream``) and the AI SDK UI
message stream (``POST /chat/bench``); and on procession alone, the OpenAI-compatible
``POST /v1/chat/completions`` streaming (``--routes openai``; issue 26). The load generator
(``bench/loadgen.py``) is another process with its own virtual environment
(``bench/.venvs/loadgen``: aiohttp on uvloop); per round and route it sends warm-up requests
one by one, then starts every request of the batch at once. One untimed full batch per server
and route comes first (Mastra's first batch runs before V8 has optimised it and is several
times slower). Rounds alternate the servers, so a busy moment of the shared machine does not
land on one side only; the figures are the medians over the rounds.

Measured per server and route: wall time of the batch, text deltas per second, first-chunk
latency (request sent to first text delta arriving) p50 and p99, errors (anything but 200 with
exactly 7 deltas and the end marker), the server's peak RSS (``VmHWM`` of the server process)
and its CPU time. Then procession's added cost per chunk: the server's CPU seconds for one
stream of 100,000 deltas (long, as ``/proc`` counts CPU time in 10 ms ticks), less the CPU
seconds of the same stream in process (``bench/server_app.py inprocess``), per delta. Prints
a table; writes JSON to
``bench/results/bench_server-<time>.json``. Not part of CI or pytest.
"""

from __future__ import annotations

import argparse
import functools
import importlib.metadata
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
LOADGEN_VENV = HERE / ".venvs" / "loadgen"
LOADGEN_REQUIREMENTS = HERE / "loadgen-requirements.txt"
MASTRA_SOURCE = HERE / "mastra" / "server"
MASTRA_DIR = HERE / ".mastra-server"
MASTRA_FILES = ("package.json", "package-lock.json", ".npmrc", "server.mjs")
PYTHON = ROOT / ".venv" / "bin" / "python"
PROCESSION = ROOT / ".venv" / "bin" / "procession"
CLK_TCK = os.sysconf("SC_CLK_TCK")

GOALS = {"wallRatio": 5.0, "p99Ratio": 5.0, "memoryFraction": 0.25, "addedUsPerChunk": 15.0}
CHAT_BODY = {
    "id": "bench-chat",
    "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
    "trigger": "submit-message",
}
OPENAI_BODY = {
    "model": "{agent}",
    "messages": [{"role": "user", "content": "hi"}],
    "stream": True,
}
ROUTES: dict[str, tuple[str, dict[str, Any]]] = {
    "stream": ("/api/agents/{agent}/stream", {"messages": "hi"}),
    "chat": ("/chat/{agent}", CHAT_BODY),
    "openai": ("/v1/chat/completions", OPENAI_BODY),
}
DELTA_MARKERS = {"openai": '"delta":{"content":'}
"""The bytes that start one text delta, per route (``"text-delta"`` for the others)."""
PROCESSION_ONLY = frozenset({"openai"})
"""Routes Mastra's and the bare server do not serve (loaded on procession only)."""


def log(message: str) -> None:
    """Progress on stderr (stdout is the table)."""
    sys.stderr.write(f"[bench_server] {message}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------------------
# setup: the load generator's venv and Mastra's node_modules


def loadgen_python() -> Path:
    """The load generator's interpreter, creating its virtual environment on first use."""
    python = LOADGEN_VENV / "bin" / "python"
    stamp = LOADGEN_VENV / "requirements.txt"
    wanted = LOADGEN_REQUIREMENTS.read_text()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    log(f"creating {LOADGEN_VENV} ({', '.join(wanted.split())})")
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(LOADGEN_VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "-r", str(LOADGEN_REQUIREMENTS)], check=True)
    stamp.write_text(wanted)
    return python


def mastra_node() -> tuple[Path | None, str]:
    """Node 22 in ``bench/.mastra-server`` (copied and installed on first use), or why not."""
    node = MASTRA_DIR / "node_modules" / ".bin" / "node"
    MASTRA_DIR.mkdir(exist_ok=True)
    changed = False
    for name in MASTRA_FILES:
        source, target = MASTRA_SOURCE / name, MASTRA_DIR / name
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
            changed = changed or name != "server.mjs"
    if node.exists() and not changed:
        return node, ""
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm not found: cannot install Mastra's server"
    log(f"npm ci in {MASTRA_DIR}")
    proc = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund"],
        cwd=MASTRA_DIR,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if proc.returncode != 0 or not node.exists():
        return None, f"npm ci failed in {MASTRA_DIR}: {proc.stderr[-500:]}"
    return node, ""


# ---------------------------------------------------------------------------
# servers


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Server:
    """One server process: how to start it, and its measurements."""

    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> None:
        """Start the process and wait until ``GET /api/agents`` answers 200."""
        self.port = free_port()
        command = [part.replace("{port}", str(self.port)) for part in self.command]
        env = {**os.environ, **self.env}
        self.process = subprocess.Popen(
            command, cwd=self.cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {err}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/agents", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s")

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    def _pids(self) -> list[int]:
        """The server process and its descendants."""
        assert self.process is not None
        children: dict[int, list[int]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        pids, todo = [], [self.process.pid]
        while todo:
            pid = todo.pop()
            pids.append(pid)
            todo.extend(children.get(pid, []))
        return pids

    def peak_rss_mib(self) -> float:
        """The high-water RSS (``VmHWM``) of the server's processes, summed, in MiB."""
        total = 0
        for pid in self._pids():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        return total / 1024

    def cpu_seconds(self) -> float:
        """User plus system CPU seconds of the server's processes so far."""
        total = 0
        for pid in self._pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        return total / CLK_TCK

    def stop(self) -> None:
        """Ask the server to stop (SIGTERM), then kill it after 15 seconds."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def servers(only: set[str], chunks: int, long_chunks: int) -> list[Server]:
    """The servers to compare (Mastra only when its install worked)."""
    env = {"BENCH_CHUNKS": str(chunks), "BENCH_LONG_CHUNKS": str(long_chunks)}
    out = []
    if "bare" in only:
        uvicorn = [str(PYTHON), "-m", "uvicorn", "server_bare:app", "--app-dir", str(HERE)]
        command = [*uvicorn, "--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning"]
        out.append(Server("bare", command, ROOT, env))
    if "procession" in only:
        # loopback only: the access token of an app without credentials is off, and the
        # connection cap (1000 by default, issue 20) is above a batch plus the last one's
        # keep-alive connections
        command = [str(PROCESSION), "serve", str(HERE / "server_app.py"), "--no-token"]
        command += ["--max-connections", "10000"]
        out.append(
            Server("procession", [*command, "--host", "127.0.0.1", "--port", "{port}"], ROOT, env)
        )
    if "mastra" in only:
        node, why = mastra_node()
        if node is None:
            log(f"skipping Mastra: {why}")
        else:
            command = [str(node), "server.mjs", "{port}", str(chunks)]
            out.append(Server("mastra", command, MASTRA_DIR, env))
    return out


# ---------------------------------------------------------------------------
# load


def load(
    loadgen: Path,
    server: Server,
    route: str,
    *,
    agent: str,
    concurrency: int,
    deltas: int,
    warmup: int,
) -> dict[str, Any]:
    """One batch against one server: the load generator's summary plus the server's CPU."""
    path, body = ROUTES[route]
    if body.get("model") == "{agent}":
        body = {**body, "model": agent}
    spec = {
        "url": server.url + path.format(agent=agent),
        "body": body,
        "headers": {"content-type": "application/json"},
        "concurrency": concurrency,
        "warmup": warmup,
        "deltas": deltas,
        "deltaMarker": DELTA_MARKERS.get(route, '"text-delta"'),
        "endMarker": "data: [DONE]",
    }
    cpu0 = server.cpu_seconds()
    proc = subprocess.run(
        [str(loadgen), str(HERE / "loadgen.py"), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    cpu = server.cpu_seconds() - cpu0
    if proc.returncode != 0:
        raise RuntimeError(f"load generator failed: {proc.stderr[-1000:]}")
    result: dict[str, Any] = json.loads(proc.stdout)
    if "error" in result:
        raise RuntimeError(f"{server.name} {route}: {result['error']}")
    result["serverCpuSeconds"] = round(cpu, 2)
    return result


# ---------------------------------------------------------------------------
# the added cost per chunk


def per_chunk_cost(loadgen: Path, server: Server, long_chunks: int, samples: int) -> dict[str, Any]:
    """procession's added CPU per delta: one long stream through the server vs in process."""
    proc = subprocess.run(
        [str(PYTHON), str(HERE / "server_app.py"), "inprocess", str(samples)],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCH_LONG_CHUNKS": str(long_chunks)},
        timeout=600,
        check=True,
    )
    inproc = json.loads(proc.stdout)["cpuSeconds"]
    out: dict[str, Any] = {
        "chunks": long_chunks,
        "inProcessUsPerChunk": round(inproc / long_chunks * 1e6, 2),
    }
    for route in ROUTES:
        load(loadgen, server, route, agent="long", concurrency=1, deltas=long_chunks, warmup=0)
        cpus = [
            load(loadgen, server, route, agent="long", concurrency=1, deltas=long_chunks, warmup=0)[
                "serverCpuSeconds"
            ]
            for _ in range(samples)
        ]
        server_us = statistics.median(cpus) / long_chunks * 1e6
        out[route] = {
            "serverUsPerChunk": round(server_us, 2),
            "addedUsPerChunk": round(server_us - out["inProcessUsPerChunk"], 2),
        }
    return out


# ---------------------------------------------------------------------------
# summary


def medians(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-field medians over the rounds of one server and route (errors summed)."""
    keys = (
        "wallSeconds",
        "deltasPerSecond",
        "firstChunkP50Seconds",
        "firstChunkP99Seconds",
        "serverCpuSeconds",
    )
    out: dict[str, Any] = {k: round(statistics.median(r[k] for r in rounds), 4) for k in keys}
    out["errors"] = sum(r["errors"] for r in rounds)
    out["requests"] = sum(r["requests"] for r in rounds)
    out["errorSamples"] = sorted({e for r in rounds for e in r["errorSamples"]})[:5]
    return out


def comparisons(summary: dict[str, dict[str, Any]], peaks: dict[str, float]) -> dict[str, Any]:
    """Mastra's figures over procession's, per route, and whether each goal is met."""
    out: dict[str, Any] = {}
    if "procession" not in peaks or "mastra" not in peaks:
        return out
    out["memoryFraction"] = round(peaks["procession"] / peaks["mastra"], 3)
    for route in ROUTES:
        ours, theirs = summary.get(f"procession/{route}"), summary.get(f"mastra/{route}")
        if ours is None or theirs is None:
            continue
        out[route] = {
            "wallRatio": round(theirs["wallSeconds"] / ours["wallSeconds"], 2),
            "p99Ratio": round(theirs["firstChunkP99Seconds"] / ours["firstChunkP99Seconds"], 2),
            # CPU seconds the server spent on the batch: the figure least moved by neighbours
            "serverCpuRatio": round(theirs["serverCpuSeconds"] / ours["serverCpuSeconds"], 2),
        }
        out[route]["goalsMet"] = {
            "wallRatio": out[route]["wallRatio"] >= GOALS["wallRatio"],
            "p99Ratio": out[route]["p99Ratio"] >= GOALS["p99Ratio"],
            "memoryFraction": out["memoryFraction"] <= GOALS["memoryFraction"],
        }
    return out


def table(summary: dict[str, dict[str, Any]], peaks: dict[str, float]) -> str:
    """The results as a text table."""
    head = f"{'server':<11}{'route':<8}{'wall s':>8}{'deltas/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
    head += f"{'peak MiB':>10}{'cpu s':>7}{'errors':>8}"
    lines = [head, "-" * len(head)]
    for key, row in summary.items():
        name, route = key.split("/")
        lines.append(
            f"{name:<11}{route:<8}{row['wallSeconds']:>8.3f}{row['deltasPerSecond']:>10.0f}"
            f"{row['firstChunkP50Seconds'] * 1000:>9.0f}{row['firstChunkP99Seconds'] * 1000:>9.0f}"
            f"{peaks[name]:>10.1f}{row['serverCpuSeconds']:>7.2f}{row['errors']:>8}"
        )
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 streams, 1 round")
    parser.add_argument("--concurrency", type=int, default=None, help="streams per batch (1000)")
    parser.add_argument("--rounds", type=int, default=None, help="rounds per server and route (5)")
    parser.add_argument("--chunks", type=int, default=7, help="text deltas per stream (7)")
    parser.add_argument(
        "--long-chunks", type=int, default=100_000, help="deltas of the per-chunk stream"
    )
    parser.add_argument(
        "--warmup", type=int, default=50, help="sequential requests before each batch"
    )
    parser.add_argument(
        "--no-warmup-batch",
        dest="warmup_batch",
        action="store_false",
        help="skip the untimed full batch per server and route before the rounds",
    )
    parser.add_argument("--only", default="procession,mastra,bare", help="servers to run")
    parser.add_argument("--routes", default="stream,chat,openai", help="routes to load")
    return parser.parse_args()


def main() -> None:
    """Start the servers, run the rounds, measure the per-chunk cost, report."""
    args = parse_args()
    concurrency = args.concurrency or (200 if args.quick else 1000)
    rounds = args.rounds or (1 if args.quick else 5)
    routes = [r for r in args.routes.split(",") if r]
    loadgen = loadgen_python()
    targets = servers(set(args.only.split(",")), args.chunks, args.long_chunks)
    raw: dict[str, list[dict[str, Any]]] = {}
    peaks: dict[str, float] = {}
    result: dict[str, Any] = {"meta": {"loadAverageAtStart": os.getloadavg()}}
    try:
        for server in targets:
            log(f"starting {server.name}")
            server.start()
        batch = functools.partial(
            load,
            loadgen,
            agent="bench",
            concurrency=concurrency,
            deltas=args.chunks,
            warmup=args.warmup,
        )
        labels = ["warm-up"] if args.warmup_batch else []  # V8 and CPython start slower
        labels += [f"round {n + 1}/{rounds}" for n in range(rounds)]
        for label in labels:
            for server in targets:
                for route in routes:
                    if route in PROCESSION_ONLY and server.name != "procession":
                        continue
                    log(f"{label}: {server.name} {route}, {concurrency} streams")
                    measured = batch(server, route)
                    if label != "warm-up":
                        raw.setdefault(f"{server.name}/{route}", []).append(measured)
        peaks = {server.name: round(server.peak_rss_mib(), 1) for server in targets}
        for server in targets:
            if server.name == "procession":
                log("the added cost per chunk")
                result["perChunk"] = per_chunk_cost(loadgen, server, args.long_chunks, 3)
    finally:
        for server in targets:
            server.stop()
    summary = {key: medians(batches) for key, batches in raw.items()}
    result.update(
        {
            "concurrency": concurrency,
            "chunks": args.chunks,
            "rounds": rounds,
            "summary": summary,
            "peakRssMiB": peaks,
            "comparison": comparisons(summary, peaks),
            "goals": GOALS,
            "raw": raw,
        }
    )
    result["meta"].update(meta(targets))
    report(result, summary, peaks)


def meta(targets: list[Server]) -> dict[str, Any]:
    """Versions and the machine's load, for the JSON (the machine may be shared)."""
    versions: dict[str, str | None] = {}
    # uvicorn picks httptools and uvloop when they are installed (uvicorn[standard])
    for package in ("procession", "starlette", "uvicorn", "orjson", "httptools", "uvloop"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = None
    for server in targets:
        if server.name == "mastra":
            lock = json.loads((MASTRA_DIR / "package-lock.json").read_text())["packages"]
            for name in ("@mastra/core", "@mastra/hono", "@mastra/ai-sdk", "hono", "node"):
                versions[name] = lock.get(f"node_modules/{name}", {}).get("version")
    return {
        "python": platform.python_version(),
        "cores": os.cpu_count(),
        "versions": versions,
        "loadAverageAtEnd": os.getloadavg(),
    }


def report(
    result: dict[str, Any], summary: dict[str, dict[str, Any]], peaks: dict[str, float]
) -> None:
    """Print the table and the comparison; write the JSON."""
    print(table(summary, peaks))
    print()
    print(
        json.dumps(
            {"comparison": result["comparison"], "perChunk": result.get("perChunk")}, indent=2
        )
    )
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"bench_server-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
