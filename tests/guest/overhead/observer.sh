#!/bin/sh
# Observer row of the tool-overhead benchmark (make bench-overhead: does
# the tool change the latency it reports?), inside a patched lab guest started with
# --ivshmem 64.  Not a test: it fails only if a case cannot run.
#
# For each case of tests/kmod/vmap_bench (ioremap_1M, vmalloc_huge_1M,
# vmap_o9_100M), OBS_RUNS interleaved times:
#   none      vmap_bench alone (cases=CASE map_pass=0): its own timing of
#             ITERS calls (vmap_o9_100M: ITERS/3), ktime around each call
#   vmapstat  the same load under "vmapstat -p -j": vmap_bench's timing of
#             the calls with the tool attached, and the mapping latency
#             vmapstat reports for them (vmap_mapped's ns: the kernel's
#             clock around the page-table work), from the row of the case's
#             API whose bytes are its calls' size (one case per load, so
#             the row holds that case's calls only)
# and, for vmalloc_huge_1M and ioremap_1M, vmap_bench's own mapping-part
# timing (map_ns, map_pass=1 ioremap_map=1) once per repetition, without
# the tool: for vmalloc, from its kprobe at the walker's entry to the
# call's return; for ioremap, ktime around vmap_page_range() of the same
# range into an area of its own, which starts and ends where the
# kernel's clock does (no probe, no area lookup).
#
# Output (host side: scripts/overhead-report):
#   @@OBS case=C rep=R cfg=none|vmapstat metric=ns|inst|map_ns median=N p10=N p90=N iters=N mean=N
#   @@OBSLAT case=C rep=R calls=N bytes=B lat_sum_ns=S hist=[...]
OBS_RUNS=${OBS_RUNS:-3}
SETTLE=${SETTLE:-1}
ITERS=${ITERS:-30}
B=/opt/vmapscope/kmod/vmap_bench.ko
T=/sys/kernel/tracing
[ -f $B ] || { echo "no $B (lab kmod not run?)"; exit 1; }
[ -d $T/events/vmalloc/vmap_mapped ] || { echo "kernel lacks vmalloc:vmap_mapped (not patched?)"; exit 1; }
echo "@@INFO kernel=$(uname -r) arch=$(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo) obs_runs=$OBS_RUNS iters=$ITERS"

# bench CASE REP none|none-map|vmapstat: load vmap_bench for CASE (under
# vmapstat -p -j, its JSON in /tmp/obs.json), print its RESULT lines
bench() {
	c=$1 rep=$2 cfg=$3 mp=0
	[ "$cfg" != none-map ] || { mp=1; cfg=none; }
	dmesg -c >/dev/null
	# settle: see bench.sh (-icount counts every vCPU's work); run.sh's SETTLE
	[ "$SETTLE" = 0 ] || sleep "$SETTLE"
	if [ "$cfg" = vmapstat ]; then
		vmapstat -p -j -- sh -c "sleep $SETTLE; kload -e 11 $B iters=$ITERS cases=$c map_pass=0" \
			>/tmp/obs.json 2>/tmp/obs.err
	else
		kload -e 11 $B iters="$ITERS" cases="$c" map_pass=$mp ioremap_map=$mp >/dev/null
	fi || { echo "vmap_bench cases=$c ($cfg) failed"; cat /tmp/obs.err; dmesg | tail -n 20; exit 1; }
	dmesg | grep 'vmap_bench: RESULT' | sed "s/.*RESULT case=[^ ]* /@@OBS case=$c rep=$rep cfg=$cfg /"
	dmesg | grep -q 'vmap_bench: RESULT' || { echo "vmap_bench cases=$c: no RESULT"; dmesg | tail -n 20; exit 1; }
}

# obslat CASE REP API SIZE JSON: the rows of API whose bytes are SIZE per call
obslat() {
	awk -v c="$1" -v rep="$2" -v api="$3" -v size="$4" '
	function num(s, k,   m) {
		if (match(s, "\"" k "\":[0-9]+")) { m = substr(s, RSTART, RLENGTH); sub(/.*:/, "", m); return m + 0 }
		return 0
	}
	{
		n = split($0, rows, /\{"api":/)
		for (i = 2; i <= n; i++) {
			r = rows[i]
			if (index(r, "\"" api "\",") != 1)
				continue
			# the bytes of the row follow its granules, which have bytes too
			ch = num(r, "chunks"); by = 0
			if (match(r, /\],"bytes":[0-9]+/)) { by = substr(r, RSTART, RLENGTH); sub(/.*:/, "", by); by += 0 }
			if (!ch || by != ch * size)
				continue
			h = ""
			if (match(r, /"latency_hist_ns":\[[^]]*\]/))
				h = substr(r, RSTART + 18, RLENGTH - 18)
			calls += ch; bytes += by; lat += num(r, "latency_sum_ns"); hist = hist h
		}
	}
	END { printf "@@OBSLAT case=%s rep=%d calls=%d bytes=%d lat_sum_ns=%d hist=%s\n", c, rep, calls, bytes, lat, hist }' "$5"
}

r=1
while [ "$r" -le "$OBS_RUNS" ]; do
	for spec in ioremap_1M:ioremap:1048576 vmalloc_huge_1M:vmalloc:1048576 vmap_o9_100M:vmap:104857600; do
		c=${spec%%:*}
		rest=${spec#*:}
		api=${rest%%:*}
		size=${rest#*:}
		bench "$c" "$r" none
		bench "$c" "$r" vmapstat
		obslat "$c" "$r" "$api" "$size" /tmp/obs.json
		[ "$c" = vmap_o9_100M ] || bench "$c" "$r" none-map
	done
	r=$((r + 1))
done
echo "@@DONE"
