#!/bin/bash
# boots.sh N OUTDIR [APPEND]: N boots of each arm64 kernel (stock, then the
# series, in turn) running the fragmented-memory cases under -icount, with
# APPEND added to the kernel command line (e.g. maxcpus=1, nohugevmalloc).
# Run from the top of the repository, with the lab kernels built.
set -eu
n=${1:?usage: boots.sh N OUTDIR [APPEND]}; out=${2:?usage: boots.sh N OUTDIR [APPEND]}
append=${3:-}
mkdir -p "$out"
guest='for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && exec sh $d/bench.sh; done; exit 1'
for i in $(seq 1 "$n"); do
	for v in stock patched; do
		scripts/lab run --arch arm64 --variant $v --timeout 1800 --icount \
			${append:+--append "$append"} \
			-- env ITERS=30 CASES=frag sh -c "$guest" \
			>"$out/arm64-$v-icount-frag-b$i.txt" 2>&1
	done
done
