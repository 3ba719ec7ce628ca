#!/usr/bin/env bash
# Record Mastra's outputs for the built-in cases with the real Mastra.
#
#   tests/conformance/builtins/record.sh ORACLE_COPY
#
# ORACLE_COPY is a copy of the oracle folder with `npm ci` done. record_builtins.mjs is copied
# into it (so '@mastra/core' resolves there) and run once per cases/*.json; the results go to
# expected/. Nothing of the oracle is copied into this repository.
set -euo pipefail
oracle="${1:?usage: record.sh ORACLE_COPY}"
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -f "$oracle/lib/mock-model.mjs" ]; then
  echo "record.sh: $oracle is not a copy of the oracle folder" >&2
  exit 2
fi
cp "$here/record_builtins.mjs" "$oracle/record_builtins.mjs"
for cases in "$here"/cases/*.json; do
  name="$(basename "$cases")"
  (cd "$oracle" && ./node_modules/.bin/node record_builtins.mjs "$cases") > "$here/expected/$name"
  echo "recorded $name"
done
