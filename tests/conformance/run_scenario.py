"""Print procession's trace of one oracle scenario: ``run_scenario.py SCENARIO.json``."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.conformance.runner import main

    raise SystemExit(main())
