#!/usr/bin/env bash
# `make bench`: the benchmarks behind the README's figures, each beside its baseline in the same
# run, summarised by benchstat (ratios appear as "vs base" columns), then the receiver against
# contrib's file_log. Run it on a quiet machine: it warns when the load is high.
# COUNT (default 6) sets -count; BENCH_RECEIVER=0 skips the file_log comparison.
set -euo pipefail
count=${COUNT:-6}
out=_build/bench
mkdir -p "$out"
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load" 'BEGIN {exit !(l > 1.5)}' && echo "warning: load average $load: figures will be noisy"
benchstat() { go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$@"; }

bench() { # NAME PACKAGE BENCH-REGEXP BENCHSTAT-ARGS...
	local name=$1 pkg=$2 re=$3
	shift 3
	echo "== $name ($pkg, -bench '$re', -count $count)"
	go test -run '^$' -bench "$re" -benchmem -count "$count" "$pkg" >"$out/$name.txt"
	benchstat "$@" "$out/$name.txt"
	echo
}

# logsgzip: ours vs the reference design (stdlib gzip, new buffer per record) vs the raw ceiling.
bench logsgzip ./processor/logsgzipprocessor '^BenchmarkCompress$' -col /impl
bench logsgzip-workers ./processor/logsgzipprocessor '^BenchmarkWorkers$' -col /workers
# Line-start matching: ours vs the stdlib MatchString of the original pattern.
bench linestart ./internal/linestart '^BenchmarkMatch$' -col /impl
# Joining the Logtail workload vs plain line cutting.
bench multiline ./internal/multiline '^BenchmarkJoin$'
bench timestamp ./internal/timestamp '^BenchmarkParse$' -col /impl
bench linereader ./internal/linereader '^BenchmarkNext$' -col /impl
bench merge ./internal/merge '^Benchmark(Merge|Window)$'
bench mergelog-command ./cmd/mergelog '^BenchmarkMergeCLF$'

if [ "${BENCH_RECEIVER:-1}" != 0 ]; then
	echo "== receiver: mergelog vs contrib file_log, MB per CPU-second (scripts/bench-receiver.sh)"
	./scripts/bench-receiver.sh
fi
