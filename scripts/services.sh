#!/usr/bin/env bash
# Start the services the tests need (none yet). Idempotent.
set -euo pipefail
