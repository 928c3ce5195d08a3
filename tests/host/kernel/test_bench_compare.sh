#!/usr/bin/env bash
# tests/kmod/vmap_bench/compare.sh and reps.py on made-up bench outputs:
#   - a case in one boot is reported as that boot's median;
#   - a case in several boots of one file (make bench-kernel's
#     fragmented-memory boots) gets one row in the first table, with the
#     median over the boots, whatever their order, and a row of its own
#     in the per-boot table, in boot order;
#   - the compaction counts take the median over the boots too;
#   - reps.py counts each of those boots as one.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
B=$TOPDIR/tests/kmod/vmap_bench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need awk python3

res() { # CASE METRIC MEDIAN [TOTAL]
	echo "vmap_bench: RESULT case=$1 metric=$2 median=$3 p10=$3 p90=$3 iters=30 mean=$3${4:+ total=$4}"
}
# One boot of the other cases, then three fragmented-memory boots.
bench() { # FILE VMAP FRAG1 FRAG2 FRAG3 (kvmalloc_frag_128K inst, per boot)
	local f=$1 v=$2
	shift 2
	{
		res vmap_o9_100M inst "$v"
		for x in "$@"; do
			echo "== arm64 stock --icount, fragmented memory"
			res kvmalloc_frag_128K inst "$x"
			res kvmalloc_frag_128K compact_stall 2 "$((x / 1000))"
		done
	} >"$f"
}
bench "$tmp/arm64-stock-icount.txt" 1000 92000 180000 94000
bench "$tmp/arm64-patched-icount.txt" 500 95000 8000 93000

table=$("$B/compare.sh" "$tmp")
rows=$(grep -c '| kvmalloc_frag_128K | inst |' <<<"$table" || true)
[ "$rows" = 2 ] && pass "the fragmented case has one row in the first table and one per-boot row" ||
	fail "kvmalloc_frag_128K inst rows: $rows, want 2"$'\n'"$table"
grep -qxF '| arm64 | TCG -icount | kvmalloc_frag_128K | inst | 94000 | 93000 | 1.01x |' <<<"$table" &&
	pass "median over three boots (94000 of 92000/180000/94000; 93000 of 95000/8000/93000)" ||
	fail "median row wrong"$'\n'"$table"
grep -qxF '| arm64 | TCG -icount | vmap_o9_100M | inst | 1000 | 500 | 2.00x |' <<<"$table" &&
	pass "a case in one boot keeps its median" || fail "single-boot row wrong"$'\n'"$table"
grep -qxF '| arm64 | TCG -icount | kvmalloc_frag_128K | inst | 92000 180000 94000 | 95000 8000 93000 |' <<<"$table" &&
	pass "the per-boot table lists each boot's median in boot order" ||
	fail "per-boot row wrong"$'\n'"$table"
grep -qF '| kvmalloc_frag_128K | compact_stall | 30 | 94 | 93 | 2 / 2 |' <<<"$table" &&
	pass "compaction totals are the median over the boots" ||
	fail "compaction row wrong"$'\n'"$table"
grep -q '| vmap_o9_100M | inst | [0-9 ]* | [0-9 ]* |$' <<<"$table" &&
	fail "a single-boot case in the per-boot table" || pass "single-boot cases stay out of the per-boot table"

mkdir "$tmp/reps"
reps=$(python3 "$B/reps.py" "$tmp" "$tmp/reps")
grep -qF '| arm64 | TCG -icount | kvmalloc_frag_128K | inst | 3/3 | 94000 [92000-180000] | 93000 [8000-95000] | 1.01x |  |' <<<"$reps" &&
	pass "reps.py counts each fragmented-memory boot of a file as a boot" ||
	fail "reps.py row wrong"$'\n'"$reps"
finish
