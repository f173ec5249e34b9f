#!/usr/bin/env bash
# Runs the README's first command exactly as written, inside tmux, with a time limit: it must open
# the app on the demo's queues; ctrl+q must end it with status 0. Used by .ci/run.
# The demo's files go to a temporary directory, never the user's data or configuration.
set -euo pipefail
cd "$(dirname "$0")/.."

limit=${FIRST_COMMAND_SECONDS:-900}  # a fresh virtual environment is installed first
first_command=$(grep -A2 '<!-- first-command' README.md | sed -n 's/^\(python3 -m venv .*\)$/\1/p' | head -n1)
if [ -z "$first_command" ]; then
  echo "check_first_command: no first command found in README.md" >&2
  exit 1
fi
if ! command -v tmux >/dev/null; then
  echo "check_first_command: SKIPPED, tmux is not installed and could not be installed" >&2
  exit 0
fi

home=$(mktemp -d)
session="qd-first-command-$$"
# A tmux server of its own: someone else's `tmux kill-server` cannot end this check's pane.
tmux() { command tmux -L "$session" "$@"; }
trap 'tmux kill-server 2>/dev/null || true; rm -rf "$home"' EXIT
echo "+ (in tmux) $first_command"
tmux new-session -d -s "$session" -x 120 -y 40 -c "$PWD" \
  -e QUEUEDESK_DATA_DIR="$home/data" -e XDG_CONFIG_HOME="$home/config" -e QUEUEDESK_CONFIG="$home/config.toml" \
  -e TERM=xterm-256color \
  "$first_command; echo FIRST-COMMAND-EXIT=\$?; sleep 600"

wait_for() {  # wait_for TEXT SECONDS
  local deadline=$((SECONDS + $2))
  local screen
  while [ $SECONDS -lt $deadline ]; do
    screen=$(tmux capture-pane -p -t "$session") || { echo "check_first_command: the tmux pane is gone" >&2; return 1; }
    if grep -q "$1" <<<"$screen"; then return 0; fi
    sleep 1
  done
  echo "check_first_command: '$1' did not appear within $2 s; the screen:" >&2
  tmux capture-pane -p -t "$session" >&2
  return 1
}

wait_for "Receipt checks" "$limit"
for queue in "Photo moderation" "Support triage" "Alex Admin (admin)"; do
  tmux capture-pane -p -t "$session" | grep -q "$queue" || { echo "check_first_command: '$queue' missing" >&2; exit 1; }
done
tmux send-keys -t "$session" C-q
wait_for "FIRST-COMMAND-EXIT=0" 60
echo "check_first_command: the demo opened on its queues and ctrl+q ended it"
