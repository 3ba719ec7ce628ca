"""Build the evaluation corpora and freeze their dev and held-out splits.

``python bench/guardrail_eval/build.py`` regenerates ``bench/guardrail_eval/data/``: the
secrets and ordinary corpora, split by a seeded hash of each item's id, gzip JSONL, and a
``manifest.json`` with the SHA-256 of every file. Rules are tuned on ``dev`` only: never on
``heldout``. Rebuilding changes the hashes, which ``tests/guardrails/test_eval_corpora.py``
pins, so a silent change of the held-out split fails the tests.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guardrail_eval.carriers import carrier, contexts_for
from guardrail_eval.ordinary import all_ordinary
from guardrail_eval.values import all_values

DATA = Path(__file__).resolve().parent / "data"
SEED = 20261201
HELDOUT_SHARE = 0.5
RULE = (
    "Rules must never be tuned on the held-out split: tune on dev, report held-out figures "
    "only. Changing a held-out file changes its SHA-256 below and fails "
    "tests/guardrails/test_eval_corpora.py."
)


def secret_items(seed: int, scale: int = 1) -> list[dict[str, Any]]:
    """Every secret value in each of its contexts (one sampled context per value and two
    more for every third value), deterministic for ``seed``."""
    rng = random.Random(seed)
    values = all_values(seed, scale)
    by_format: dict[str, list[int]] = {}
    for n, value in enumerate(values):
        by_format.setdefault(value.format, []).append(n)
    items: list[dict[str, Any]] = []
    for n, value in enumerate(values):
        contexts = contexts_for(value)
        chosen = [rng.choice(contexts)] + (rng.sample(contexts, 2) if n % 3 == 0 else [])
        for context in chosen:
            other = values[rng.choice(by_format[value.format])]
            items.append(carrier(value, other, context, rng))
    for n, entry in enumerate(items):
        entry["id"] = f"s{n:05d}"
    return items


def split_of(item_id: str, seed: int) -> str:
    """``heldout`` or ``dev``, from a seeded hash of the id (stable across runs)."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return "heldout" if digest[0] / 256 < HELDOUT_SHARE else "dev"


def gzip_jsonl(items: list[dict[str, Any]]) -> bytes:
    """Deterministic gzip JSONL (no timestamp, no file name)."""
    raw = "".join(json.dumps(i, ensure_ascii=False, sort_keys=True) + "\n" for i in items)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, filename="") as handle:
        handle.write(raw.encode("utf-8"))
    return buffer.getvalue()


def build(out: Path, seed: int = SEED, scale: int = 1) -> dict[str, Any]:
    """Write the four files and the manifest to ``out``; return the manifest."""
    out.mkdir(parents=True, exist_ok=True)
    corpora = {"secrets": secret_items(seed, scale), "ordinary": all_ordinary(seed, scale)}
    files: dict[str, Any] = {}
    for name, items in corpora.items():
        for split in ("dev", "heldout"):
            part = [i for i in items if split_of(i["id"], seed) == split]
            blob = gzip_jsonl(part)
            file = f"{name}-{split}.jsonl.gz"
            (out / file).write_bytes(blob)
            files[file] = {"items": len(part), "sha256": hashlib.sha256(blob).hexdigest()}
    manifest = {
        "rule": RULE,
        "seed": seed,
        "scale": scale,
        "split": f"sha256('{seed}:' + id)[0] / 256 < {HELDOUT_SHARE} -> heldout, else dev",
        "files": files,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The items of one gzip JSONL corpus file."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def patch(out: Path, split: str, formats: list[str], seed: int = SEED) -> dict[str, Any]:
    """Rebuild only the items of ``formats`` in ``split``'s secrets file, keeping every other
    item as frozen. A full rebuild is not reproducible item for item (the ordinary corpus
    reads the installed packages' documentation; some Faker values depend on today's date),
    so a builder fix for one format replaces that format's items, matched by id."""
    if split == "heldout":
        raise SystemExit("--patch: the held-out split is frozen; patch dev only")
    fresh = {i["id"]: i for i in secret_items(seed) if i["format"] in formats}
    file = out / f"secrets-{split}.jsonl.gz"
    items = [fresh.get(i["id"], i) if i["format"] in formats else i for i in read_jsonl(file)]
    blob = gzip_jsonl(items)
    file.write_bytes(blob)
    manifest: dict[str, Any] = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"][file.name] = {"items": len(items), "sha256": hashlib.sha256(blob).hexdigest()}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    """Command line: ``--out`` (default the committed data folder), ``--seed``, ``--scale``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DATA)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument(
        "--patch", nargs="+", metavar="FORMAT", help="rebuild only these formats' items (dev)"
    )
    args = parser.parse_args()
    if args.patch:
        manifest = patch(args.out, "dev", args.patch, args.seed)
    else:
        manifest = build(args.out, args.seed, args.scale)
    print(json.dumps(manifest["files"], indent=2))


if __name__ == "__main__":
    main()
