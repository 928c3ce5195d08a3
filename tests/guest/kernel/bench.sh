#!/bin/sh
# Run the in-kernel benchmark once and print its RESULT lines (the host
# side, make bench-kernel, collects them per arch and variant), then the
# seeds' test_vmalloc case (run_test_mask=1 nr_pages=256 use_huge=1:
# fix_size_alloc_test, vmalloc_huge + vfree of 1 MiB in a loop) TV_RUNS
# times, reported in the same RESULT format from its "avg: N usec" lines
# (the time of one run of TV_LOOPS loops, despite its name).
# CASES (vmap_bench's cases=, e.g. CASES=scan,frag) runs only those cases,
# and test_vmalloc's only if CASES names it (tv): for quick runs; by default
# everything runs.  FRAG=0 leaves the fragmenting cases out (vmap_bench's
# frag=0): make bench-kernel runs them in a boot of their own, CASES=frag.
B=/opt/vmapscope/kmod/vmap_bench.ko
[ -f $B ] || { echo "no $B"; exit 1; }
dmesg -c >/dev/null
kload -e 11 $B iters=${ITERS:-30} ${CASES:+cases=$CASES} ${FRAG:+frag=$FRAG} >/dev/null || exit 1
dmesg | grep 'vmap_bench: ' | sed 's/^\[[^]]*\] //'
dmesg | grep -q 'vmap_bench: done' || exit 1
case ",${CASES:-tv}," in
*,tv,* | *,tv_*) ;;
*) exit 0 ;;
esac

TV=$(find /lib/modules -name test_vmalloc.ko | head -n 1)
[ -n "$TV" ] || { echo "test_vmalloc.ko not found"; exit 1; }
runs=${TV_RUNS:-11} loops=${TV_LOOPS:-1000}
: >/tmp/tv.avg
i=0
while [ $i -lt "$runs" ]; do
	dmesg -c >/dev/null
	kload -e 11 "$TV" run_test_mask=1 nr_pages=256 use_huge=1 nr_threads=1 \
		test_repeat_count=1 test_loop_count="$loops" >/dev/null
	line=$(dmesg | grep 'Summary: fix_size_alloc_test')
	case "$line" in
	*"failed: 0 "*) echo "$line" | sed -n 's/.* avg: \([0-9]*\) usec.*/\1/p' >>/tmp/tv.avg ;;
	*) echo "test_vmalloc run $i: ${line:-no summary line}"; exit 1 ;;
	esac
	i=$((i + 1))
done
# Median, p10 and p90 of the per-run averages (nearest rank).
sort -n /tmp/tv.avg >/tmp/tv.sorted
n=$(wc -l </tmp/tv.sorted)
at() { sed -n "$(( ($1 * (n - 1) + 50) / 100 + 1 ))p" /tmp/tv.sorted; }
echo "vmap_bench: RESULT case=tv_fix_size_256_huge_x$loops metric=us median=$(at 50) p10=$(at 10) p90=$(at 90) iters=$n"
