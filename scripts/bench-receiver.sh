#!/usr/bin/env bash
# Throughput and memory of the mergelog receiver against contrib's file_log v0.165.1, both in one
# process (bench/cmd/receiverbench): MB per CPU-second (user+sys), the ratio, peak RSS and the Go
# heap's high-water mark, on the Logtail multiline workload, plain CLF lines, pod logs in CRI
# format (file_log with its container operator) and a 7-file CLF
# merge, plus 1 GB mergelog runs that show the heap stays flat. CPU time is robust to other load
# on the machine, but not entirely: take figures when `uptime` shows a low load.
# Inputs (about 2.6 GB with the defaults) are generated once into bench/_data and reused.
# Usage: scripts/bench-receiver.sh [-size MB] [-runs N] [-big MB] [-workloads logtail,clf,merge,pods] [-cpuprofile DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
data=$PWD/bench/_data
mkdir -p "$data"
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" 'BEGIN { exit !(l > 2.5) }'; then
	echo "warning: 1-minute load is $load on $(nproc) cores; the figures will be noisy" >&2
fi
cd bench
exec go run ./cmd/receiverbench -repo .. -data "$data" "$@"
