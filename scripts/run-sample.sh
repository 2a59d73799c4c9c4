#!/usr/bin/env bash
# Runs the collector on a config whose receivers read finished files, waits until the output stops
# growing (the sample is done), prints what happened from the collector's own metrics, then stops it.
# Usage: run-sample.sh COLLECTOR CONFIG
set -euo pipefail
collector=$1 config=$2
metrics=http://127.0.0.1:18888/metrics
out=_build/run
mkdir -p "$out"            # the file exporter does not create its directory
rm -f "$out/output.jsonl"

"$collector" --config "$config" >"$out/collector.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
echo "otelcol-mergelog running (pid $pid) on $config; collector log: $out/collector.log"

metric() { # sum of all series of one metric, 0 if absent
	curl -fsS "$metrics" 2>/dev/null | awk -v m="$1" '$1 ~ "^"m"({|$)" {s += $NF} END {printf "%d\n", s}'
}

# Done when records have been exported and the count has not moved for 2 s (the sample is finished).
last=-1 still=0
for _ in $(seq 1 600); do
	sleep 0.5
	kill -0 "$pid" 2>/dev/null || { echo "collector exited early:"; tail -20 "$out/collector.log"; exit 1; }
	n=$(metric otelcol_exporter_sent_log_records)
	if [ "$n" -gt 0 ] && [ "$n" -eq "$last" ]; then still=$((still + 1)); else still=0; fi
	last=$n
	[ "$still" -ge 4 ] && break
done

in=$(metric otelcol_receiver_accepted_log_records)
sent=$(metric otelcol_exporter_sent_log_records)
compressed=$(metric otelcol_processor_logsgzip_records_compressed)
skipped=$(metric otelcol_processor_logsgzip_records_skipped)
bin=$(metric otelcol_processor_logsgzip_bytes_in)
bout=$(metric otelcol_processor_logsgzip_bytes_out)
kill -TERM "$pid"
wait "$pid" || true
trap - EXIT

echo
echo "records in (receiver):     $in"
echo "records out (exporter):    $sent"
echo "bodies gzipped / skipped:  $compressed / $skipped"
if [ "$bin" -gt 0 ]; then
	awk -v a="$bin" -v b="$bout" 'BEGIN {printf "body bytes before / after: %d / %d (ratio %.2f)\n", a, b, b / a}'
fi
echo "output:                    $out/output.jsonl ($(wc -l <"$out/output.jsonl") OTLP/JSON lines, $(du -h "$out/output.jsonl" | cut -f1))"
