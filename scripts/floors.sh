#!/usr/bin/env bash
# Run the provider and MCP tests (tests/models, tests/tools, tests/mcp) against the oldest SDK versions
# procession's extras allow, in a second virtual environment (.venv-floor, reused while its pins still match).
#
# The floors are read from pyproject.toml: each requirement "name>=X" of the extras named in
# FLOOR_EXTRAS is installed as "name==X". To test a new floor, change it in pyproject.toml
# (the owner of each adapter sets its own: openai, anthropic, google); to test the floor of
# another extra, add the extra's name here.
set -euo pipefail
cd "$(dirname "$0")/.."
FLOOR_EXTRAS="${FLOOR_EXTRAS:-openai anthropic anthropic-bedrock anthropic-vertex google google-vertex mcp}"
PYTHON="${PYTHON:-python3}"
VENV=.venv-floor

pins="$("$PYTHON" - "$FLOOR_EXTRAS" <<'PY'
import re, sys, tomllib

project = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = project["optional-dependencies"]
for extra in sys.argv[1].split():
    for requirement in extras[extra]:
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+(?:\[[^\]]+\])?)\s*>=\s*([^,;\s]+)", requirement)
        if match is None:
            sys.exit(f"floors: {extra!r} requirement {requirement!r} has no plain '>=' floor")
        print(f"{match[1]}=={match[2]}")
PY
)"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -U pip >/dev/null
fi
stamp="$VENV/floor-pins.txt"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$pins" ]; then
  echo "floors: installing $(echo "$pins" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  # the core's own dependencies resolve to versions that fit the pinned SDKs
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check $pins -e . \
    "pytest>=8.3" "pytest-asyncio>=0.24" "hypothesis>=6.100" cryptography
  echo "$pins" >"$stamp"
fi
echo "floors: $(echo "$pins" | tr '\n' ' ')"
# The embedded model's tests need numpy and llama.cpp, which only the main environment has.
timeout 300 "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/models tests/tools tests/mcp \
  --ignore=tests/models/test_local.py --ignore=tests/models/test_local_chat.py \
  --ignore=tests/models/numpy_llm --ignore=tests/models/test_local_runtime.py
