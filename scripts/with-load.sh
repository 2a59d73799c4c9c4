#!/usr/bin/env bash
# Runs a command with LOAD_PROCS (default 2) CPU-burning processes alongside, for `make
# test-loaded`: no test may depend on the machine's speed. The burners are stopped however the
# command ends (its status, Ctrl-C, SIGTERM, even SIGKILL of this script), and the command's
# status is the script's.
set -euo pipefail
n=${LOAD_PROCS:-2}
pids=()
stop() {
	[ ${#pids[@]} -eq 0 ] && return
	kill "${pids[@]}" 2>/dev/null || true
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
# Each burner also ends by itself once this script is gone, should it die by SIGKILL.
for _ in $(seq "$n"); do
	bash -c 'while kill -0 "$1" 2>/dev/null; do :; done' burner $$ &
	pids+=($!)
done
echo "with-load: $n CPU-burning processes (pids ${pids[*]}) alongside: $*"
"$@"
