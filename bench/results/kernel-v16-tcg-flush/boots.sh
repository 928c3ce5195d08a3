#!/bin/bash
# Plain-TCG host time of x86_64's order-0 128K vmalloc() cases, stock
# against the series, one kernel boot after the other in turn: N boots of
# each, each boot loading vmap_bench twice (fresh=0, then fresh=1: the
# purge before every timed call) with ../kernel-v14-tcg-flush/guest-fresh.sh.
# Output lines: KERNEL BOOT FRESH CASE NS (the boot's median of 30 calls).
# KERNELS names lab variants (stock, patched); the series kernel is the one
# VMAPSCOPE_PATCHDIR (default: the committed series) selects.
# Usage: boots.sh N OUT   (from the top of the repository, an idle host)
set -euo pipefail
N=${1:?boots per kernel} out=${2:?output file}
for i in $(seq 1 "$N"); do
	for v in ${KERNELS:-stock patched}; do
		scripts/lab run --arch x86_64 --variant "$v" --timeout 900 \
			--script bench/results/kernel-v14-tcg-flush/guest-fresh.sh 2>&1 |
			grep '^R ' | sed 's/vmap_bench: RESULT case=//g' |
			while read -r _ fr rest; do
				for kv in $rest; do
					echo "$v $i ${fr#fresh=} ${kv%=*} ${kv#*=}"
				done
			done >>"$out"
	done
done
