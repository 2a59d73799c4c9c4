#!/usr/bin/env bash
# Side-by-side benchmark of our mergelog against Debian's mergelog 4.5 (and zmergelog on gzip copies)
# on 7 Combined Log Format files of ~150 MB (3 of them in +0100, +0900 and -0500), in one run.
# Prints CPU time (user+sys), wall time, peak RSS, the ratios, and checks that each output is a
# permutation of the input in UTC order. Installs what it needs (apt: mergelog, time, gzip).
# Usage: scripts/bench-mergelog.sh [LINES_PER_FILE]   (default 700000, about 150 MB a file)
set -euo pipefail
lines=${1:-700000}
dir=_build/bench-mergelog
mkdir -p "$dir"

need=()
command -v mergelog >/dev/null || need+=(mergelog)
[ -x /usr/bin/time ] || need+=(time)
command -v gzip >/dev/null || need+=(gzip)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]} (apt-get)"
	apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null
fi

go build -o _build/mergelog ./cmd/mergelog
go build -o _build/checkmerge ./internal/loggen/checkmerge
go build -o _build/genlogs ./internal/loggen/genlogs

offsets=(+0000 +0100 +0000 +0900 +0000 -0500 +0000)
files=() gzfiles=()
for i in "${!offsets[@]}"; do
	f=$dir/access-$i-$lines.log
	if [ ! -s "$f" ]; then
		_build/genlogs -kind clf -lines "$lines" -offset "${offsets[$i]}" -seed $((i + 1)) -malformed-every 5000 -o "$f"
	fi
	[ -s "$f.gz" ] || gzip -k -c "$f" >"$f.gz"
	files+=("$f") gzfiles+=("$f.gz")
done
echo "inputs: ${#files[@]} files, $(cat "${files[@]}" | wc -l) lines, $(du -ch "${files[@]}" | tail -1 | cut -f1) (gzip: $(du -ch "${gzfiles[@]}" | tail -1 | cut -f1))"

# run NAME OUTPUT CMD...: runs CMD 3 times with stdout to a fresh OUTPUT (removed first, so
# truncating an old 900 MB file is not counted) and keeps the run with the median CPU time as
# "wall user sys maxrss_kb" in $dir/NAME.time.
run() {
	local name=$1 out=$2
	shift 2
	for i in 1 2 3; do
		rm -f "$out"
		/usr/bin/time -f "%e %U %S %M" -o "$dir/$name.$i" "$@" >"$out" 2>/dev/null
	done
	sort -t' ' -k1,1n <(for i in 1 2 3; do awk '{print $2 + $3, $0}' "$dir/$name.$i"; done) | sed -n 2p | cut -d' ' -f2- >"$dir/$name.time"
	read -r wall user sys rss <"$dir/$name.time"
	printf "%-28s wall %6.2fs  cpu %6.2fs  peak RSS %4d MiB  (median of 3)\n" "$name" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" $((rss / 1024))
}
cpu() { awk '{print $2 + $3}' "$dir/$1.time"; }
wall() { awk '{print $1}' "$dir/$1.time"; }

echo
run "C mergelog 4.5" "$dir/out-c.log" mergelog "${files[@]}"
run "ours (plain)" "$dir/out-go.log" _build/mergelog "${files[@]}"
run "C zmergelog 4.5 (gzip)" "$dir/out-zc.log" zmergelog "${gzfiles[@]}"
run "ours (gzip)" "$dir/out-zgo.log" _build/mergelog "${gzfiles[@]}"
echo
echo "checks (permutation of the inputs, UTC order):"
for o in out-go out-zgo out-c; do
	printf "  %-8s " "$o"
	_build/checkmerge -o "$dir/$o.log" "${files[@]}" || true
done
echo
awk -v c="$(cpu 'C mergelog 4.5')" -v g="$(cpu 'ours (plain)')" 'BEGIN {printf "CPU time ratio, plain (C / ours):   %.1fx\n", c / g}'
awk -v c="$(wall 'C zmergelog 4.5 (gzip)')" -v g="$(wall 'ours (gzip)')" 'BEGIN {printf "wall time ratio, gzip (C / ours):   %.1fx\n", c / g}'
