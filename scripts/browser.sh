#!/usr/bin/env bash
# The browser Studio's tests drive (tests/studio/): Debian's chromium, installed when missing,
# as services.sh installs PostgreSQL. Playwright (the dev extra) launches it through
# executable_path; `playwright install` is never run, so nothing is downloaded at test time.
set -euo pipefail
CHROMIUM="${PROCESSION_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  echo "browser: $CHROMIUM"
  exit 0
fi
echo "browser: installing chromium"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium >/dev/null
echo "browser: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
