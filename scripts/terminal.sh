#!/usr/bin/env bash
# The terminal the command line's tests type into (tests/cli/tmux.py): tmux, installed when
# missing, as browser.sh installs chromium for Studio's tests.
set -euo pipefail
if command -v tmux >/dev/null 2>&1; then
  echo "terminal: $(tmux -V)"
  exit 0
fi
echo "terminal: installing tmux"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq tmux >/dev/null
echo "terminal: $(tmux -V)"
