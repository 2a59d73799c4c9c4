#!/usr/bin/env bash
# Runs every fuzz target of the main module for FUZZTIME each (default 30s); `make fuzz`.
# Go's fuzzer takes one target per run, so the targets are found and run one by one.
set -euo pipefail
fuzztime=${FUZZTIME:-30s}
grep -rl --include='*_test.go' '^func Fuzz' . | grep -v '^./bench/' | sort | while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
		echo "== $pkg $target ($fuzztime)"
		go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg"
	done
done
