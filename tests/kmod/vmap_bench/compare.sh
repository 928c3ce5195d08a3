#!/usr/bin/env bash
# compare.sh DIR: turn the bench outputs DIR/<arch>-<variant>[-icount].txt
# (RESULT lines of vmap_bench) into a markdown table of stock vs patched
# medians and their ratio (stock / patched: > 1 means patched is faster).
set -euo pipefail
dir=${1:?usage: compare.sh DIR}
echo "| arch | run | case | metric | stock median | patched median | stock/patched |"
echo "|---|---|---|---|---:|---:|---:|"
for f in "$dir"/*-patched*.txt; do
	[ -e "$f" ] || continue
	base=$(basename "$f" .txt)
	arch=${base%%-*}
	run=${base#*-patched}; run=${run#-}; run=${run:-TCG}
	[ "$run" = icount ] && run="TCG -icount"
	stock=${f/-patched/-stock}
	[ -f "$stock" ] || continue
	grep -h 'RESULT' "$f" | while read -r _ _ c m med _; do
		c=${c#case=}; m=${m#metric=}; med=${med#median=}
		s=$(grep -h "RESULT case=$c metric=$m " "$stock" | sed -n 's/.* median=\([0-9]*\).*/\1/p' || true)
		[ -n "$s" ] || continue
		awk -v a="$arch" -v r="$run" -v c="$c" -v m="$m" -v s="$s" -v p="$med" \
			'BEGIN { printf "| %s | %s | %s | %s | %d | %d | %.2fx |\n", a, r, c, m, s, p, (p ? s / p : 0) }'
	done
done
