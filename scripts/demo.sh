#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh "local,cli"
exec .venv/bin/python -m procession demo "$@"
