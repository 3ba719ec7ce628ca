"""Stream twins of scenarios that have ``generate`` requests (D18).

Mastra's ``generate()`` calls the model's non-streaming API, so its processors see one big text
delta; procession's ``generate()`` drains ``stream()`` (D18). The expected trace of a
``generate`` request is therefore Mastra's trace of the same request in stream mode: the
*stream twin* is the scenario with every request switched to ``stream``, recorded with the real
Mastra as ``expected/<name>.stream-twin.json``.

    python tests/conformance/twins.py SCENARIO_DIR OUT_DIR   # writes <name>.stream-twin.json
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["TWIN_SUFFIX", "has_generate", "stream_twin"]

TWIN_SUFFIX = ".stream-twin"


def has_generate(scenario: dict[str, Any]) -> bool:
    """Whether any request of the scenario runs in ``generate`` mode."""
    default = scenario.get("mode", "stream")
    return any(r.get("mode", default) == "generate" for r in scenario.get("requests", [{}]))


def stream_twin(scenario: dict[str, Any], name: str) -> dict[str, Any]:
    """The same scenario with every request in ``stream`` mode."""
    twin = copy.deepcopy(scenario)
    twin["name"] = name + TWIN_SUFFIX
    twin["mode"] = "stream"
    twin["requests"] = [{**r, "mode": "stream"} for r in twin.get("requests", [{}])]
    return twin


def main(argv: list[str]) -> int:
    """Write the stream twin of every scenario with a generate request."""
    source, target = Path(argv[0]), Path(argv[1])
    for path in sorted(source.glob("*.json")):
        if path.stem.endswith(TWIN_SUFFIX):
            continue
        scenario = json.loads(path.read_text(encoding="utf-8"))
        if has_generate(scenario):
            twin = stream_twin(scenario, scenario.get("name", path.stem))
            out = target / f"{path.stem}{TWIN_SUFFIX}.json"
            out.write_text(json.dumps(twin, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
