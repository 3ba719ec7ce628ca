"""What ``import procession`` costs (issue 25, "Start-up"): median of fresh processes.

Run: ``.venv/bin/python bench/bench_import.py [--reps N] [--module NAME] [--json]
[--instructions]``.

Each repetition is a new interpreter started with ``-X importtime -c "import <module>"``; the
figures are the median over the repetitions of the module's cumulative import time, the process
CPU time the import took (``time.process_time``, less sensitive to a loaded machine than wall
time), the number of modules the import added (all, and the package's own), and the 15 modules
with the most self time (median per module). ``--json`` prints one JSON object instead of the
table. The goal is a cumulative time of at most 100 ms on an unloaded machine.

``--instructions`` adds the instructions the import executes (valgrind's callgrind, one run of
``python -c "import <module>"`` less one of ``python -c pass``): the same figure however loaded
the machine is, for comparing two versions where timings swing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from typing import Any

LINE = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)\s*$")
PROBE = (
    "import sys, time; before = set(sys.modules); t = time.process_time(); import {mod}; "
    "cpu = time.process_time() - t; new = set(sys.modules) - before; "
    "print(cpu, len(new), sum(1 for m in new if m.split('.')[0] == '{top}'))"
)


def one_run(py: str, module: str) -> tuple[float, dict[str, float]]:
    """One fresh process: the module's cumulative ms and each module's self ms."""
    proc = subprocess.run(
        [py, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    cumulative = 0.0
    selves: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        m = LINE.match(line)
        if m is None:
            continue
        name = m.group(4)
        selves[name] = int(m.group(1)) / 1000
        if name == module and len(m.group(3)) <= 1:
            cumulative = int(m.group(2)) / 1000
    return cumulative, selves


def probe(py: str, module: str) -> tuple[float, int, int]:
    """One fresh process without ``-X importtime``: CPU ms and module counts."""
    code = PROBE.format(mod=module, top=module.split(".")[0])
    out = subprocess.run([py, "-c", code], capture_output=True, text=True, check=True)
    cpu, total, own = out.stdout.split()
    return float(cpu) * 1000, int(total), int(own)


def measure(module: str, reps: int) -> dict[str, Any]:
    """The figures for ``import module`` over ``reps`` fresh processes."""
    py = sys.executable
    cumulative: list[float] = []
    cpu: list[float] = []
    per_module: dict[str, list[float]] = defaultdict(list)
    counts: tuple[int, int] = (0, 0)
    for _ in range(reps):
        total, selves = one_run(py, module)
        cumulative.append(total)
        for name, ms in selves.items():
            per_module[name].append(ms)
        ms, n_all, n_own = probe(py, module)
        cpu.append(ms)
        counts = (n_all, n_own)
    med = statistics.median
    top = sorted(((med(v), k) for k, v in per_module.items()), reverse=True)[:15]
    return {
        "module": module,
        "reps": reps,
        "importtimeCumulativeMs": round(med(cumulative), 1),
        "importtimeMinMs": round(min(cumulative), 1),
        "processCpuMs": round(med(cpu), 1),
        "modulesImported": counts[0],
        "ownModulesImported": counts[1],
        "topSelfMs": [{"module": k, "selfMs": round(v, 2)} for v, k in top],
    }


def instructions(py: str, module: str) -> int:
    """Instructions ``import module`` executes beyond an empty interpreter (needs valgrind)."""

    def count(code: str) -> int:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", py, "-c", code]
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        out = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
        found = re.search(r"Collected : (\d+)", out.stderr)
        if found is None:
            raise RuntimeError(f"no instruction count in valgrind's output: {out.stderr[-500:]}")
        return int(found.group(1))

    count(f"import {module}")  # writes any missing .pyc first
    return count(f"import {module}") - count("pass")


def render(r: dict[str, Any]) -> str:
    """A plain-text table of the figures."""
    lines = [
        f"import {r['module']} ({r['reps']} fresh processes, medians)",
        f"  -X importtime cumulative: {r['importtimeCumulativeMs']} ms"
        f" (min {r['importtimeMinMs']} ms)",
        f"  process CPU time of the import: {r['processCpuMs']} ms",
        f"  modules imported: {r['modulesImported']}"
        f" ({r['ownModulesImported']} of {r['module'].split('.')[0]})",
        "  top 15 by self time:",
    ]
    lines += [f"    {row['selfMs']:8.2f} ms  {row['module']}" for row in r["topSelfMs"]]
    if "instructions" in r:
        lines.append(f"  instructions executed (callgrind): {r['instructions'] / 1e6:.1f} M")
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments, measure, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=11, help="fresh processes (default 11)")
    ap.add_argument("--module", default="procession", help="module to import")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--instructions", action="store_true", help="also count (needs valgrind)")
    args = ap.parse_args()
    result = measure(args.module, args.reps)
    if args.instructions:
        result["instructions"] = instructions(sys.executable, args.module)
    print(json.dumps(result) if args.json else render(result))


if __name__ == "__main__":
    main()
