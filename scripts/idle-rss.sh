#!/usr/bin/env bash
# Idle memory of the node agent's build, the full distribution and the floor (the smallest ocb
# build, otlp → debug), each started with the agent's config (the floor with its own) over an
# empty /var/log/pods, runs interleaved; prints the median of RUNS runs of VmRSS, RssAnon and
# RssFile (KiB, from /proc/<pid>/status) after SETTLE seconds. `make bench-idle-rss` runs it.
set -euo pipefail
RUNS=${RUNS:-3}
SETTLE=${SETTLE:-10}
agent=$1 full=$2 floor=$3
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pods" "$work/state"
# The agent's config, reading an empty tree, with its storage in a temporary directory.
sed -e "s|/var/log/pods|$work/pods|g" -e "s|/var/lib/otelcol|$work/state|" \
	"$root/deploy/kubernetes/agent-config.yaml" >"$work/agent.yaml"
export K8S_NAMESPACE=idle K8S_NODE_NAME=idle K8S_POD_IP=127.0.0.1 GOMAXPROCS=1
# The pod's GOMEMLIMIT, as the DaemonSet sets it.
export GOMEMLIMIT=$(grep -A1 'name: GOMEMLIMIT' "$root/deploy/kubernetes/agent-daemonset.yaml" | sed -n 's/.*value: *"\{0,1\}\([^"]*\)"\{0,1\}/\1/p')

measure() { # name binary config → "name vmrss rssanon rssfile"
	"$2" --config "$3" >"$work/$1.log" 2>&1 &
	local pid=$!
	sleep "$SETTLE"
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "$1 exited; its output:" >&2
		cat "$work/$1.log" >&2
		exit 1
	fi
	awk -v n="$1" '/^VmRSS|^RssAnon|^RssFile/ {v[$1]=$2} END {print n, v["VmRSS:"], v["RssAnon:"], v["RssFile:"]}' "/proc/$pid/status"
	kill "$pid"
	wait "$pid" || true
}

for _ in $(seq "$RUNS"); do
	measure agent "$agent" "$work/agent.yaml"
	measure full "$full" "$work/agent.yaml"
	measure floor "$floor" "$root/bench/idlerss/floor.yaml"
done | sort -k1,1 -k2,2n | awk -v runs="$RUNS" '
	{ rows[$1] = rows[$1] " " $0; n[$1]++; if (n[$1] == int((runs + 1) / 2)) med[$1] = $0 }
	END {
		printf "%-6s %10s %10s %10s   (median of %d, KiB)\n", "build", "VmRSS", "RssAnon", "RssFile", runs
		for (b in med) { split(med[b], f, " "); printf "%-6s %10d %10d %10d\n", f[1], f[2], f[3], f[4] }
	}'
