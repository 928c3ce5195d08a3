#!/usr/bin/env bash
# compare.sh DIR: turn the bench outputs DIR/<arch>-<variant>[-icount].txt
# (RESULT lines of vmap_bench) into markdown tables:
#   1. stock vs patched medians and their ratio (stock / patched: > 1 means
#      patched is faster), every case and timing metric;
#   2. "vmap / scan": each kernel's vmap() of order-8 and order-9 pages
#      against the scan floor of the same array, same kernel and run
#      (vmap_oN_100M / scan_oN_100M: 1.00x would be vmap() costing no more
#      than reading its page array once);
#   3. the compaction around the kvmalloc_frag cases (vm event counts:
#      compact_stall, compact_fail and the pages the two scanners looked
#      at, total over the case and median per call, stock and patched);
#   4. the cases run in several boots (make bench-kernel: every -icount
#      case, and the fragmented-memory ones): each boot's median; tables
#      1 and 3 have the median over the boots;
#   5. each run's resolution: stock / patched of the scan floors, which run
#      the same code on both kernels, so that their distance from 1.00x is
#      how far apart the two boots are on identical work.
# Tables 2 and 3 have 8 columns, table 4 has 6 and table 5 has 5, so that
# scripts/plot-bench, which reads the 7-column rows of table 1, leaves
# them out.
set -euo pipefail
dir=${1:?usage: compare.sh DIR}

# The pairs of files: patched output, its stock counterpart, arch, run.
pairs() {
	local f base arch run stock
	for f in "$dir"/*-patched*.txt; do
		[ -e "$f" ] || continue
		base=$(basename "$f" .txt)
		arch=${base%%-*}
		run=${base#*-patched}; run=${run#-}; run=${run:-TCG}
		[ "$run" = icount ] && run="TCG -icount"
		stock=${f/-patched/-stock}
		[ -f "$stock" ] || continue
		printf '%s\t%s\t%s\t%s\n' "$f" "$stock" "$arch" "$run"
	done
}

# values FILE CASE METRIC KEY: the KEY= value of each RESULT line of that
# case, one per boot, in boot order.
values() {
	grep -h "RESULT case=$2 metric=$3 " "$1" | sed -n "s/.* $4=\([0-9]*\).*/\1/p" || true
}

# field FILE CASE METRIC KEY: that value, the median over the boots where the
# file holds several (the fragmented-memory cases; the lower middle one for
# an even count), or nothing.
field() {
	values "$@" | sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# The case and metric of each RESULT line of FILE, each pair once.
cases() {
	sed -n 's/.*RESULT case=\([^ ]*\) metric=\([^ ]*\) .*/\1 \2/p' "$1" | awk '!seen[$0]++'
}

is_count() { case $1 in compact_*) return 0 ;; esac; return 1; }

echo "| arch | run | case | metric | stock median | patched median | stock/patched |"
echo "|---|---|---|---|---:|---:|---:|"
pairs | while IFS=$'\t' read -r f stock arch run; do
	cases "$f" | while read -r c m; do
		! is_count "$m" || continue
		med=$(field "$f" "$c" "$m" median)
		s=$(field "$stock" "$c" "$m" median)
		[ -n "$s" ] || continue
		awk -v a="$arch" -v r="$run" -v c="$c" -v m="$m" -v s="$s" -v p="$med" \
			'BEGIN { printf "| %s | %s | %s | %s | %d | %d | %.2fx |\n", a, r, c, m, s, p, (p ? s / p : 0) }'
	done
done

scan_rows=$(pairs | while IFS=$'\t' read -r f stock arch run; do
	for k in stock patched; do
		[ $k = stock ] && g=$stock || g=$f
		for o in o8 o9; do
			for m in inst ns; do
				v=$(field "$g" "vmap_${o}_100M" $m median)
				sc=$(field "$g" "scan_${o}_100M" $m median)
				[ -n "$v" ] && [ -n "$sc" ] || continue
				awk -v a="$arch" -v r="$run" -v k=$k -v o=$o -v m=$m -v v="$v" -v s="$sc" \
					'BEGIN { printf "| %s | %s | %s | vmap_%s_100M | %s | %d | %d | %.2fx |\n", a, r, k, o, m, v, s, (s ? v / s : 0) }'
			done
		done
	done
done)
if [ -n "$scan_rows" ]; then
	echo
	echo "vmap / scan floor (same kernel and run; the floor reads the page array once):"
	echo
	echo "| arch | run | kernel | case | metric | vmap median | scan median | vmap/scan |"
	echo "|---|---|---|---|---|---:|---:|---:|"
	echo "$scan_rows"
fi

count_rows=$(pairs | while IFS=$'\t' read -r f stock arch run; do
	for c in kvmalloc_frag_128K kvmalloc_frag_1M; do
		for m in compact_stall compact_fail compact_migrate_scanned compact_free_scanned; do
			st=$(field "$stock" $c $m total); pt=$(field "$f" $c $m total)
			[ -n "$st" ] && [ -n "$pt" ] || continue
			sm=$(field "$stock" $c $m median); pm=$(field "$f" $c $m median)
			n=$(field "$f" $c $m iters)
			echo "| $arch | $run | $c | $m | $n | $st | $pt | $sm / $pm |"
		done
	done
done)
if [ -n "$count_rows" ]; then
	echo
	echo "kvmalloc() under fragmentation, compaction (vm events over the case):"
	echo
	echo "| arch | run | case | metric | calls | stock total | patched total | median per call, stock / patched |"
	echo "|---|---|---|---|---:|---:|---:|---:|"
	echo "$count_rows"
fi

boot_rows=$(pairs | while IFS=$'\t' read -r f stock arch run; do
	cases "$f" | while read -r c m; do
		! is_count "$m" || continue
		[ "$(values "$f" "$c" "$m" median | wc -l)" -gt 1 ] || continue
		sb=$(values "$stock" "$c" "$m" median | paste -sd ' ')
		pb=$(values "$f" "$c" "$m" median | paste -sd ' ')
		echo "| $arch | $run | $c | $m | $sb | $pb |"
	done
done)
if [ -n "$boot_rows" ]; then
	echo
	echo "Cases run in several boots (make bench-kernel: every -icount case, and the"
	echo "fragmented-memory ones): each boot's median, in boot order.  The first table"
	echo "has the median of these."
	echo
	echo "| arch | run | case | metric | stock, per boot | patched, per boot |"
	echo "|---|---|---|---|---|---|"
	echo "$boot_rows"
fi

floor_rows=$(pairs | while IFS=$'\t' read -r f stock arch run; do
	m=ns
	[ -z "$(field "$f" scan_o8_100M inst median)" ] || m=inst
	r8=$(field "$stock" scan_o8_100M $m median); p8=$(field "$f" scan_o8_100M $m median)
	r9=$(field "$stock" scan_o9_100M $m median); p9=$(field "$f" scan_o9_100M $m median)
	[ -n "$r8" ] && [ -n "$p8" ] && [ -n "$r9" ] && [ -n "$p9" ] || continue
	awk -v a="$arch" -v r="$run" -v m=$m -v r8="$r8" -v p8="$p8" -v r9="$r9" -v p9="$p9" \
		'BEGIN { printf "| %s | %s | %s | %.2fx | %.2fx |\n", a, r, m, (p8 ? r8 / p8 : 0), (p9 ? r9 / p9 : 0) }'
done)
if [ -n "$floor_rows" ]; then
	echo
	echo "Resolution of each run: the scan floors run the same code on both kernels, so"
	echo "their stock/patched ratio is how far apart the two boots are on identical work."
	echo "A plain TCG case closer to 1.00x than that does not rank the two kernels.  Under"
	echo "-icount the floors read 1.00x; a case can still vary from boot to boot where"
	echo "the work itself does (page-table history, compaction)."
	echo
	echo "| arch | run | metric | scan_o8_100M stock/patched | scan_o9_100M stock/patched |"
	echo "|---|---|---|---:|---:|"
	echo "$floor_rows"
fi
