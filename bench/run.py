"""procession's benchmark suite: one command, a table on stdout, JSON in ``bench/results/``.

    .venv/bin/python bench/run.py              # everything (about 10 minutes on 2 cores)
    .venv/bin/python bench/run.py --quick      # small sizes, a smoke test (about 1 minute)
    .venv/bin/python bench/run.py --only procession,import

Parts (``--only`` takes a comma-separated subset):

* ``procession`` — procession on Mastra's bench.mjs workloads (``procession_mastra.py``);
* ``mastra``     — the oracle's own ``bench.mjs`` in the same invocation, for ratios;
* ``workload``   — the shared peer workload (5 tool steps + 200 streamed chunks) on procession,
  Mastra, LangChain v1, the OpenAI Agents SDK and Pydantic AI;
* ``concurrency``— 2,000 concurrent 200-chunk streams on each of them (capped per framework);
* ``import``     — ``import procession`` in fresh processes.

The peers run in their own virtual environments under ``bench/.venvs/`` (created on first use
from ``bench/peers/requirements/*.txt``). Mastra runs from a copy of the oracle folder
(``--oracle``, default ``$PROCESSION_ORACLE`` or ``bench/.oracle``); when that folder does not
exist it is copied from ``--oracle-source`` and ``npm ci`` is run in it. Without Node or the
oracle the Mastra parts are skipped with a note. Not part of CI or pytest.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
VENVS = HERE / ".venvs"
PEERS = {
    "langchain": ("LangChain v1", "langchain_bench.py"),
    "openai_agents": ("OpenAI Agents SDK", "openai_agents_bench.py"),
    "pydantic_ai": ("Pydantic AI", "pydantic_ai_bench.py"),
}
PARTS = ("procession", "mastra", "workload", "concurrency", "import")

# issue 3's speed targets
TARGETS = {
    "stream_us_per_chunk_0": 2.5,
    "stream_us_per_processor_per_chunk": 0.5,
    "loop_ms_per_step_0": 0.25,
    "loop_us_per_processor_per_step": 20.0,
    "generate_ms_per_call_3": 0.4,
    "concurrency_wall_s": 5.0,
    "concurrency_kib_per_run": 64.0,
    "import_ms": 150.0,
    "mastra_workload_peak_rss_mib": 100.0,
}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_json(
    cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float
) -> dict[str, Any]:
    """Run one benchmark process and parse the JSON object it prints."""
    full_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
    log(
        f"  $ {' '.join(cmd)}"
        + (f"  [{' '.join(f'{k}={v}' for k, v in env.items())}]" if env else "")
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, env=full_env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[-1]} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    start = proc.stdout.find("{")
    result: dict[str, Any] = json.loads(proc.stdout[start:])
    result.setdefault("meta", {})["processSeconds"] = round(time.perf_counter() - t0, 1)
    return result


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_gib = round(int(line.split()[1]) / 1048576, 1)
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memGiB": mem_gib,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "loadAverageAtStart": list(os.getloadavg()),
    }


# ---------------------------------------------------------------------------
# environments


def peer_python(peer: str, setup: bool) -> Path | None:
    """The peer's venv interpreter, creating the venv when missing (and ``setup`` is on)."""
    python = VENVS / peer / "bin" / "python"
    if python.exists():
        return python
    if not setup:
        return None
    log(f"creating {VENVS / peer} (pip install -r bench/peers/requirements/{peer}.txt)")
    base = getattr(sys, "_base_executable", sys.executable)
    try:
        subprocess.run([base, "-m", "venv", str(VENVS / peer)], check=True)
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "-r",
                str(HERE / "peers" / "requirements" / f"{peer}.txt"),
            ],
            check=True,
        )
    except subprocess.CalledProcessError as error:
        log(f"  could not set up {peer}: {error}")
        shutil.rmtree(VENVS / peer, ignore_errors=True)
        return None
    return python


def oracle_node(oracle: Path, source: Path | None, setup: bool) -> tuple[Path | None, str]:
    """The Node 22 binary of the oracle copy (installing it on first use), or a note why not."""
    node = oracle / "node_modules" / ".bin" / "node"
    if node.exists():
        return node, ""
    if not setup:
        return None, f"no {node} (run without --no-setup to install it)"
    if not (oracle / "package.json").exists():
        if source is None or not (source / "bench.mjs").exists():
            return None, f"no oracle copy at {oracle} and no --oracle-source to copy from"
        log(f"copying the oracle {source} -> {oracle}")
        shutil.copytree(
            source, oracle, dirs_exist_ok=True, ignore=shutil.ignore_patterns("node_modules")
        )
        for path in [oracle, *oracle.rglob("*")]:
            path.chmod(path.stat().st_mode | 0o200)
    npm = shutil.which("npm")
    if npm is None:
        return None, "npm not found: cannot install the oracle's Node 22 and @mastra/core"
    log(f"npm ci in {oracle}")
    proc = subprocess.run([npm, "ci"], cwd=oracle, capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not node.exists():
        return None, f"npm ci failed in {oracle}: {proc.stderr[-500:]}"
    return node, ""


def default_oracle_source() -> Path | None:
    for candidate in (ROOT.parent / "shared" / "oracle", ROOT / "oracle"):
        if (candidate / "bench.mjs").exists():
            return candidate
    return None


def mastra_script(oracle: Path, name: str) -> Path:
    """Copy one of bench/mastra/*.mjs into the oracle folder (it imports its node_modules)."""
    target = oracle / f"procession-{name}"
    shutil.copyfile(HERE / "mastra" / name, target)
    return target


# ---------------------------------------------------------------------------
# parts


def part_import(quick: bool) -> dict[str, Any]:
    """``import procession`` in fresh processes: cumulative ``-X importtime`` of the package,
    the import's wall time measured inside the process, and the whole process's wall time
    minus that of an interpreter that imports nothing."""
    reps = 3 if quick else 7
    py = sys.executable
    cumulative, inproc, process, empty = [], [], [], []
    code = "import time; t = time.perf_counter(); import procession; print(time.perf_counter() - t)"
    for _ in range(reps):
        proc = subprocess.run(
            [py, "-X", "importtime", "-c", "import procession"],
            capture_output=True,
            text=True,
            check=True,
        )
        for line in proc.stderr.splitlines():
            m = re.match(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|\s*(\S+)\s*$", line)
            if m and m.group(3) == "procession":
                cumulative.append(int(m.group(2)) / 1000)
        out = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True)
        inproc.append(float(out.stdout) * 1000)
        t0 = time.perf_counter()
        subprocess.run([py, "-c", "import procession"], check=True)
        process.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        subprocess.run([py, "-c", "pass"], check=True)
        empty.append((time.perf_counter() - t0) * 1000)
    med = statistics.median
    return {
        "reps": reps,
        "importtimeCumulativeMs": round(med(cumulative), 1),
        "inProcessWallMs": round(med(inproc), 1),
        "processWallMs": round(med(process), 1),
        "emptyInterpreterWallMs": round(med(empty), 1),
        "processWallMinusEmptyMs": round(med(process) - med(empty), 1),
        "modulesImported": count_modules(),
    }


def count_modules() -> int:
    code = (
        "import sys; before = set(sys.modules); import procession; "
        "print(len(set(sys.modules) - before))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout)


def safe(label: str, fn: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
    try:
        result: dict[str, Any] = fn(*args, **kwargs)
        return result
    except Exception as error:
        log(f"  {label} FAILED: {error}")
        return {"error": str(error)[-2000:]}


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    parts = set(args.only.split(",")) if args.only else set(PARTS)
    unknown = parts - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts {sorted(unknown)}; choose from {PARTS}")
    quick = args.quick
    setup = not args.no_setup
    py = sys.executable
    results: dict[str, Any] = {"machine": machine(), "quick": quick, "notes": []}
    notes: list[str] = results["notes"]
    cap = args.cap

    node: Path | None = None
    oracle = Path(args.oracle).resolve()
    if parts & {"mastra", "workload", "concurrency"}:
        source = (
            Path(args.oracle_source).resolve() if args.oracle_source else default_oracle_source()
        )
        node, why = oracle_node(oracle, source, setup)
        if node is None:
            notes.append(f"Mastra skipped: {why}")
            log(notes[-1])

    small_workload = {"R": "3", "W": "1"} if quick else {}
    small_concurrency = {"C": "200", "WARM": "5"} if quick else {}

    if "procession" in parts:
        log("procession on Mastra's bench.mjs workloads")
        cmd = [py, str(HERE / "procession_mastra.py"), *(["--quick"] if quick else [])]
        results["procession"] = safe("procession", run_json, cmd, timeout=1800)
    if "mastra" in parts and node is not None:
        log("Mastra's own bench.mjs (oracle)")
        cmd = [str(node), "--expose-gc", "bench.mjs", *(["--quick"] if quick else [])]
        results["mastra"] = safe("mastra bench.mjs", run_json, cmd, cwd=oracle, timeout=1800)

    if "workload" in parts:
        log("shared workload: 5 tool steps + 200 streamed chunks")
        workload: dict[str, Any] = {}
        workload["procession"] = safe(
            "procession workload",
            run_json,
            [py, str(HERE / "procession_workload.py")],
            env=small_workload,
            timeout=900,
        )
        if node is not None:
            script = mastra_script(oracle, "workload.mjs")
            workload["mastra"] = safe(
                "mastra workload",
                run_json,
                [str(node), "--expose-gc", script.name],
                cwd=oracle,
                env={"MASTRA_TELEMETRY_DISABLED": "1", **small_workload},
                timeout=900,
            )
        for peer, (label, script_name) in PEERS.items():
            peer_py = peer_python(peer, setup)
            if peer_py is None:
                notes.append(f"{label} skipped: no virtual environment at {VENVS / peer}")
                continue
            workload[peer] = safe(
                f"{peer} workload",
                run_json,
                [str(peer_py), str(HERE / "peers" / script_name), "workload"],
                env=small_workload,
                timeout=900,
            )
        results["workload"] = workload

    if "concurrency" in parts:
        log(f"concurrency: 2,000 concurrent 200-chunk streams (cap {cap} s per framework)")
        conc: dict[str, Any] = {}
        for key, env in (
            ("procession", {"HOOKS": "1", "INTERLEAVE": "0"}),
            ("procession_interleaved", {"HOOKS": "1", "INTERLEAVE": "1"}),
            ("procession_interleaved_named", {"HOOKS": "1", "INTERLEAVE": "1", "NAMED": "1"}),
            ("procession_interleaved_bare", {"HOOKS": "0", "INTERLEAVE": "1"}),
        ):
            conc[key] = safe(
                key,
                run_json,
                [py, str(HERE / "procession_concurrency.py")],
                env={**env, "CAP": str(cap), **small_concurrency},
                timeout=cap + 300,
            )
        if node is not None:
            script = mastra_script(oracle, "concurrency.mjs")
            conc["mastra"] = safe(
                "mastra concurrency",
                run_json,
                [str(node), "--expose-gc", script.name],
                cwd=oracle,
                env={"CAP": str(cap), **small_concurrency},
                timeout=cap + 300,
            )
        for peer, (_label, script_name) in PEERS.items():
            peer_py = peer_python(peer, setup)
            if peer_py is None:
                continue
            conc[peer] = safe(
                f"{peer} concurrency",
                run_json,
                [str(peer_py), str(HERE / "peers" / script_name), "concurrency"],
                env={"CAP": str(cap), **small_concurrency},
                timeout=cap + 300,
            )
        results["concurrency"] = conc

    if "import" in parts:
        log("import procession, fresh processes")
        results["import"] = safe("import", part_import, quick)

    results["machine"]["loadAverageAtEnd"] = list(os.getloadavg())
    results["versions"] = versions(node, oracle)
    return results


def versions(node: Path | None, oracle: Path) -> dict[str, str]:
    out: dict[str, str] = {"python": platform.python_version()}
    try:
        from importlib.metadata import version

        out["procession"] = version("procession")
    except Exception:
        pass
    if node is not None:
        try:
            pkg = json.loads((oracle / "node_modules/@mastra/core/package.json").read_text())
            out["@mastra/core"] = pkg["version"]
            out["node"] = subprocess.run(
                [str(node), "--version"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError, KeyError):
            pass
    for peer, packages in (
        ("langchain", ["langchain", "langchain-core", "langgraph"]),
        ("openai_agents", ["openai-agents", "openai"]),
        ("pydantic_ai", ["pydantic-ai-slim"]),
    ):
        python = VENVS / peer / "bin" / "python"
        if not python.exists():
            continue
        code = (
            "from importlib.metadata import version; "
            f"print(' '.join(p + '==' + version(p) for p in {packages!r}))"
        )
        proc = subprocess.run(
            [str(python), "-c", code], capture_output=True, text=True, check=False
        )
        out[peer] = proc.stdout.strip()
    return out


# ---------------------------------------------------------------------------
# the table


def get(d: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(d, dict) or key not in d:
            return None
        d = d[key]
    return d


def fmt(x: Any, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int | float):
        return f"{x:,.{digits}f}"
    return str(x)


def ratio(a: Any, b: Any) -> str:
    if not isinstance(a, int | float) or not isinstance(b, int | float) or b == 0:
        return "-"
    return f"{a / b:.3f}"


def verdict(value: Any, target: float) -> str:
    if not isinstance(value, int | float):
        return "-"
    return "met" if value <= target else "MISSED"


def table(r: dict[str, Any]) -> str:
    lines: list[str] = []
    m = r["machine"]
    lines.append(
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memGiB']} GiB, Python {m['python']}; "
        f"load average at start {m['loadAverageAtStart'][0]:.2f}, "
        f"at end {m['loadAverageAtEnd'][0]:.2f}"
    )
    p, ms = r.get("procession"), r.get("mastra")
    targets: list[tuple[str, Any, float, str]] = []
    if p or ms:
        lines += ["", "## Mastra's workloads (bench.mjs): procession vs Mastra", ""]
        lines.append("| workload | procession | Mastra | procession/Mastra |")
        lines.append("| --- | --- | --- | --- |")
        for n in ("0", "1", "5", "10"):
            a = get(p, "a_streamChunks", "byProcessorCount", n, "usPerChunk")
            b = get(ms, "a_streamChunks", "byProcessorCount", n, "usPerChunk")
            chunks = get(p, "a_streamChunks", "chunks") or get(ms, "a_streamChunks", "chunks")
            lines.append(
                f"| (a) stream() {fmt(chunks, 0)} chunks, {n} pass-through processors, "
                f"µs/chunk | {fmt(a, 3)} | {fmt(b, 3)} | {ratio(a, b)} |"
            )
        for n in ("1", "5", "10"):
            a = get(p, "a_streamChunks", "byProcessorCount", n, "overheadUsPerProcessorPerChunk")
            b = get(ms, "a_streamChunks", "byProcessorCount", n, "overheadUsPerProcessorPerChunk")
            lines.append(
                f"| (a) added per processor per chunk with {n}, µs | {fmt(a, 3)} | {fmt(b, 3)} "
                f"| {ratio(a, b)} |"
            )
        for n in ("1", "5", "10"):
            a = get(p, "a2_streamChunks_partOnly", "byProcessorCount", n, "usPerChunk")
            o = get(
                p,
                "a2_streamChunks_partOnly",
                "byProcessorCount",
                n,
                "overheadUsPerProcessorPerChunk",
            )
            lines.append(
                f"| (a') procession only: {n} processors declaring only `part` (no `**_`), "
                f"µs/chunk; added per processor {fmt(o, 3)} | {fmt(a, 3)} | - | - |"
            )
        for key, label in (
            ("marginalUsPerProcessorPerChunk", "marginal µs per processor per chunk (fit 1..10)"),
            ("fixedPipelineUsPerChunk", "fixed µs per chunk for having processors (fit)"),
        ):
            a = get(p, "a_streamChunks", "fit_1to10", key)
            b = get(ms, "a_streamChunks", "fit_1to10", key)
            lines.append(f"| (a) {label} | {fmt(a, 3)} | {fmt(b, 3)} | {ratio(a, b)} |")
        for mode in ("stream", "generate"):
            for key, label, d in (
                ("msPerStep_0", "ms/step, 0 processors", 4),
                ("msPerStep_5", "ms/step, 5 processors", 4),
                ("overheadUsPerProcessorPerStep", "added µs per processor per step", 1),
            ):
                a = get(p, "b_toolLoop", mode, key)
                b = get(ms, "b_toolLoop", mode, key)
                lines.append(
                    f"| (b) 10-step tool loop, {mode}(), {label} | {fmt(a, d)} | {fmt(b, d)} "
                    f"| {ratio(a, b)} |"
                )
        for key, label in (
            ("msPerCall_3processors", "ms/call, 3 processors"),
            ("msPerCall_0processors", "ms/call, 0 processors"),
            ("overheadMsPerCall", "processor overhead ms/call"),
        ):
            a = get(p, "c_generate", key)
            b = get(ms, "c_generate", key)
            lines.append(
                f"| (c) 1,000 sequential generate(), {label} | {fmt(a, 4)} | {fmt(b, 4)} "
                f"| {ratio(a, b)} |"
            )
        a = get(p, "meta", "peakRssMiB")
        b = get(ms, "d_memory", "peakRssMiB")
        lines.append(
            f"| (d) peak RSS of the whole run, MiB | {fmt(a, 1)} | {fmt(b, 1)} | {ratio(a, b)} |"
        )
        if p and "error" not in p:
            by = p["a_streamChunks"]["byProcessorCount"]
            targets += [
                (
                    "stream() 0 processors, µs/chunk",
                    by["0"]["usPerChunk"],
                    TARGETS["stream_us_per_chunk_0"],
                    "a",
                ),
            ]
            for n in ("1", "5", "10"):
                targets.append(
                    (
                        f"stream() each of {n} processors adds, µs/chunk",
                        by[n]["overheadUsPerProcessorPerChunk"],
                        TARGETS["stream_us_per_processor_per_chunk"],
                        "a",
                    )
                )
            named = get(p, "a2_streamChunks_partOnly", "byProcessorCount") or {}
            for n in ("1", "5", "10"):
                if n in named:
                    targets.append(
                        (
                            f"stream() each of {n} processors declaring only `part` adds, µs/chunk",
                            named[n]["overheadUsPerProcessorPerChunk"],
                            TARGETS["stream_us_per_processor_per_chunk"],
                            "a",
                        )
                    )
            for mode in ("stream", "generate"):
                loop = p["b_toolLoop"][mode]
                targets.append(
                    (
                        f"tool loop {mode}(), 0 processors, ms/step",
                        loop["msPerStep_0"],
                        TARGETS["loop_ms_per_step_0"],
                        "b",
                    )
                )
                targets.append(
                    (
                        f"tool loop {mode}(), each of 5 processors adds, µs/step",
                        loop["overheadUsPerProcessorPerStep"],
                        TARGETS["loop_us_per_processor_per_step"],
                        "b",
                    )
                )
            targets.append(
                (
                    "1,000 generate(), 3 processors, ms/call",
                    p["c_generate"]["msPerCall_3processors"],
                    TARGETS["generate_ms_per_call_3"],
                    "c",
                )
            )
            targets.append(
                (
                    "peak RSS of the Mastra-workload run, MiB",
                    p["meta"]["peakRssMiB"],
                    TARGETS["mastra_workload_peak_rss_mib"],
                    "d",
                )
            )

    w = r.get("workload")
    if w:
        lines += [
            "",
            "## Shared workload: 5 tool steps, then 200 streamed chunks (median of "
            f"{get(w, 'procession', 'R')} rounds after {get(w, 'procession', 'W')} warm-ups)",
            "",
            "| framework | bare ms/run | hooks ms/run | hook overhead ms (paired) "
            "| µs/chunk with hooks (run/200) | events | hook calls input/chunk/tool/step "
            "| peak RSS MiB | x procession (hooks) | missing hooks |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        base = get(w, "procession", "hooks", "msPerRun")
        for key, label in (
            ("procession", "procession"),
            ("mastra", "Mastra"),
            ("langchain", "LangChain v1"),
            ("openai_agents", "OpenAI Agents SDK"),
            ("pydantic_ai", "Pydantic AI"),
        ):
            row = w.get(key)
            if row is None:
                continue
            if "error" in row:
                lines.append(f"| {label} | error: {row['error'][:80]} |")
                continue
            calls = row["hooks"]["hookCalls"]
            lines.append(
                f"| {label} | {fmt(row['bare']['msPerRun'], 3)} "
                f"| {fmt(row['hooks']['msPerRun'], 3)} "
                f"| {fmt(row['hookOverheadMs'], 3)} ({fmt(row['hookOverheadPairedMs'], 3)}) "
                f"| {fmt(row['hooks']['usPerChunk'], 2)} | {row['hooks']['events']} "
                f"| {calls['input']}/{calls['chunk']}/{calls['tool']}/{calls['step']} "
                f"| {fmt(get(row, 'meta', 'peakRssMiB'), 1)} "
                f"| {ratio(row['hooks']['msPerRun'], base)} "
                f"| {', '.join(row.get('missingHooks') or []) or 'none'} |"
            )

    c = r.get("concurrency")
    if c:
        lines += [
            "",
            f"## {fmt(get(c, 'procession', 'runs'), 0)} concurrent 200-chunk streams in one "
            f"process (capped at {r.get('capSeconds')} s per framework)",
            "",
            "| framework | hooks | finished | wall s | runs/s | baseline RSS MiB | peak RSS MiB "
            "| KiB per run | GC s | max in flight | first/last run done s |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for key, label in (
            ("procession", "procession (scripted model never yields)"),
            ("procession_interleaved", "procession (model yields to the loop per chunk)"),
            (
                "procession_interleaved_named",
                "procession (yields per chunk), processors without **_",
            ),
            ("procession_interleaved_bare", "procession (yields per chunk), no processors"),
            ("mastra", "Mastra"),
            ("langchain", "LangChain v1"),
            ("openai_agents", "OpenAI Agents SDK"),
            ("pydantic_ai", "Pydantic AI"),
        ):
            row = c.get(key)
            if row is None:
                continue
            if "error" in row:
                lines.append(f"| {label} | error: {row['error'][:80]} |")
                continue
            hooks = row.get("hookSet") or ("3 processors" if row.get("hooks") else "none")
            capped = " (CAPPED)" if row.get("capped") else ""
            lines.append(
                f"| {label} | {hooks} | {row['finished']}/{row['runs']}{capped} "
                f"| {fmt(row['wallSeconds'], 2)} | {fmt(row['runsPerSecond'], 0)} "
                f"| {fmt(row['baselineRssMiB'], 1)} | {fmt(row['peakRssMiB'], 1)} "
                f"| {fmt(row['kibPerRun'], 1)} | {fmt(row['gcSeconds'], 2)} | {row['maxInFlight']} "
                f"| {fmt(row.get('firstFinishedSeconds'), 2)}/"
                f"{fmt(row.get('lastFinishedSeconds'), 2)} |"
            )
        for key, suffix in (
            ("procession", ""),
            ("procession_interleaved", " (yields per chunk)"),
            ("procession_interleaved_named", " (yields per chunk, processors without **_)"),
        ):
            row = c.get(key)
            if row and "error" not in row:
                targets.append(
                    (
                        f"2,000 concurrent streams, wall s{suffix}",
                        row["wallSeconds"],
                        TARGETS["concurrency_wall_s"],
                        "conc",
                    )
                )
                targets.append(
                    (
                        f"2,000 concurrent streams, KiB per in-flight run{suffix}",
                        row["kibPerRun"],
                        TARGETS["concurrency_kib_per_run"],
                        "conc",
                    )
                )

    i = r.get("import")
    if i and "error" not in i:
        lines += [
            "",
            "## import procession (fresh processes, median of " + str(i["reps"]) + ")",
            "",
            f"-X importtime cumulative: {i['importtimeCumulativeMs']} ms; wall inside the "
            f"process: {i['inProcessWallMs']} ms; whole process {i['processWallMs']} ms vs "
            f"{i['emptyInterpreterWallMs']} ms for an empty interpreter "
            f"(+{i['processWallMinusEmptyMs']} ms); {i['modulesImported']} modules imported",
        ]
        targets.append(
            (
                "import procession, ms (-X importtime cumulative)",
                i["importtimeCumulativeMs"],
                TARGETS["import_ms"],
                "import",
            )
        )
        targets.append(
            (
                "import procession, ms (wall in a fresh process)",
                i["inProcessWallMs"],
                TARGETS["import_ms"],
                "import",
            )
        )

    if targets:
        lines += [
            "",
            "## issue 3 targets",
            "",
            "| figure | measured | target | |",
            "| --- | --- | --- | --- |",
        ]
        for label, value, target, _ in targets:
            lines.append(
                f"| {label} | {fmt(value, 3)} | ≤ {fmt(target, 2)} | {verdict(value, target)} |"
            )
    if r["notes"]:
        lines += ["", "Notes:"] + [f"- {n}" for n in r["notes"]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument("--only", help=f"comma-separated parts out of {', '.join(PARTS)}")
    parser.add_argument(
        "--oracle",
        default=os.environ.get("PROCESSION_ORACLE", str(HERE / ".oracle")),
        help="folder of the Mastra oracle copy with node_modules (default: $PROCESSION_ORACLE "
        "or bench/.oracle)",
    )
    parser.add_argument("--oracle-source", help="oracle folder to copy when --oracle is missing")
    parser.add_argument("--cap", type=int, default=120, help="seconds per concurrency batch (120)")
    parser.add_argument("--no-setup", action="store_true", help="never create venvs or run npm")
    parser.add_argument("--from-json", help="only print the table of an earlier results file")
    args = parser.parse_args()
    if args.from_json:
        print(table(json.loads(Path(args.from_json).read_text())))
        return
    t0 = time.perf_counter()
    results = run_all(args)
    results["capSeconds"] = args.cap
    results["wallSeconds"] = round(time.perf_counter() - t0, 1)
    RESULTS.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = RESULTS / f"bench-{stamp}.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    (RESULTS / "latest.json").write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))
    print(
        f"\nJSON: {path.relative_to(ROOT)} (also bench/results/latest.json); "
        f"{results['wallSeconds']} s in all"
    )


if __name__ == "__main__":
    main()
