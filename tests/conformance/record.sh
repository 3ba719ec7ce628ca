#!/usr/bin/env bash
# Re-record Mastra's expected traces for every committed scenario with the real Mastra.
#
#   tests/conformance/record.sh /path/to/oracle-copy [FILTER...]
#
# ORACLE_COPY is a copy of the oracle folder (outside this repository), with `npm ci` done
# there (it is run if node_modules is missing). The scenarios, and a stream twin of each
# scenario with a generate request (twins.py, D18), are copied into its scenarios/, recorded
# with `npm run record` (FILTERs: only scenario names containing one of them), and the traces
# are copied back into expected/. Nothing of the oracle is copied into this repository.
set -euo pipefail
oracle="${1:?usage: record.sh ORACLE_COPY [FILTER...]}"
shift
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -f "$oracle/run-scenario.mjs" ] || [ ! -f "$oracle/record-all.mjs" ]; then
  echo "record.sh: $oracle is not a copy of the oracle folder" >&2
  exit 2
fi
if [ ! -d "$oracle/node_modules" ]; then
  (cd "$oracle" && npm ci)
fi
cp "$here"/scenarios/*.json "$oracle/scenarios/"
python3 "$here/twins.py" "$here/scenarios" "$oracle/scenarios"
(cd "$oracle" && npm run -s record -- "$@")
for path in "$here"/scenarios/*.json; do
  name="$(basename "$path" .json)"
  for trace in "$name.json" "$name.stream-twin.json"; do
    if [ -f "$oracle/expected/$trace" ]; then
      cp "$oracle/expected/$trace" "$here/expected/$trace"
    fi
  done
done
echo "record.sh: traces copied into $here/expected; review them with git diff"
