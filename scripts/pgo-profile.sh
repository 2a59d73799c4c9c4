#!/bin/sh
# Writes agent.pgo, the CPU profile `make agent` compiles the node agent with (Go's profile-guided
# optimisation): the full distribution, which has the pprof extension, run with the agent's config
# (deploy/kubernetes/agent-config.yaml) on the two workloads the agent's footprint is measured on,
# the profiles merged:
#   - make bench-agent's pod logs read from the beginning (1 500 MB, 20 files);
#   - make bench-steady's 10 000 JSON lines/s through containerd's CRI loggers and kubelet's
#     rotation, parsed with json_parser (60 s).
# Run it again when the receiver's hot paths change much; an older profile still applies (Go
# matches its samples to functions by name and line offset), it only helps less.
set -eu
out=${1:-agent.pgo}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The override adds the pprof extension; service.extensions replaces the agent config's list, so
# it names the agent's own extensions too.
override() {
	cat >"$tmp/$1.yaml" <<EOF
extensions:
  pprof:
    endpoint: localhost:1777
    save_to_file: $tmp/$1.pprof
service:
  extensions: [file_storage, health_check, pageout, pprof]
EOF
}
override catchup
override steady

# The two benchmarks as make bench-agent and make bench-steady run them, on the full build alone
# and not through those targets: they would build the agent (which this profile is for) and
# replace the reports that make plots draws with this run's one-variant tables.
make otelcol
otelcol="$(pwd)/_build/otelcol-mergelog"
(cd bench && go build -o "$tmp/agentbench" ./cmd/agentbench)
"$tmp/agentbench" -otelcol "$otelcol" -otelcol-agent '' -config deploy/kubernetes/agent-config.yaml \
	-workloads pods -size 1500 -runs 1 -variants prof -extra "prof=$tmp/catchup.yaml"
(cd e2e/node && OTELCOL_BIN="$otelcol" NODE_STEADY=1 NODE_STEADY_AGENTS=mergelog \
	NODE_AGENT_CONFIG="$tmp/steady.yaml" go test -count=1 -timeout 30m -run 'TestSteady$' .)
go tool pprof -proto "$tmp/catchup.pprof" "$tmp/steady.pprof" >"$out"
echo "wrote $out"
