"""Time the README's demo command on a fresh machine: a new clone, a new virtual environment
and an empty pip cache (issue 25).

    python3 bench/fresh_demo.py                       # clones this checkout's HEAD
    python3 bench/fresh_demo.py --repo /work/main --branch main

It clones the repository into a temporary folder, points pip at an empty cache folder, unsets
the provider keys (so the demo runs the embedded model) and runs ``bash scripts/demo.sh``
there, timing from the command's start: the demo's first line (set-up done), its first tool
call, its first answer (``assistant>``) and its end. Prints one JSON object; ``--keep`` leaves
the clone in place. Run it with the system Python, not inside a virtual environment.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY")
MARKS = {
    "setup_done_s": "procession demo",
    "first_tool_call_s": "tool call",
    "first_answer_s": "assistant>",
}


def _env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS and not k.startswith("VIRTUAL_ENV")}
    env["PIP_CACHE_DIR"] = str(cache)
    env.pop("PIP_NO_CACHE_DIR", None)
    env.pop("PYTHONPATH", None)
    env.pop("PROCESSION_LOCAL_RUNTIME", None)
    return env


def run(repo: str, branch: str | None, keep: bool) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="procession-fresh-"))
    clone, cache = root / "clone", root / "pip-cache"
    cache.mkdir()
    command = ["git", "clone", "-q", *(["-b", branch] if branch else []), repo, str(clone)]
    subprocess.run(command, check=True)
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    marks: dict[str, float] = {}
    lines: list[str] = []
    started = time.perf_counter()
    with subprocess.Popen(
        ["bash", "scripts/demo.sh"],
        cwd=clone,
        env=_env(cache),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            now = time.perf_counter() - started
            lines.append(line.rstrip("\n"))
            for name, mark in MARKS.items():
                if name not in marks and mark in line:
                    marks[name] = round(now, 1)
        status = process.wait()
    total = round(time.perf_counter() - started, 1)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    return {
        "command": "bash scripts/demo.sh",
        "commit": head,
        "exit_status": status,
        **{name: marks.get(name) for name in MARKS},
        "total_s": total,
        "clone": str(clone) if keep else None,
        "output_tail": lines[-25:],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = Path(__file__).resolve().parents[1]
    parser.add_argument("--repo", default=str(here), help="the repository to clone")
    parser.add_argument("--branch", default=None, help="the branch to clone (default: HEAD)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its .venv")
    args = parser.parse_args()
    result = run(args.repo, args.branch, args.keep)
    json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
    print()


if __name__ == "__main__":
    main()
