#!/usr/bin/env bash
# Snapshot, guest test: run guest.sh in the guest of ARCH and
# VARIANT (with an ivshmem BAR to ioremap) and check its output (check.py),
# which records the figures of the snapshot_shapes arrays.  On the stock
# variant, compare its predictions with what the patched kernel maps for
# the same shapes (shapes.py compare), from the patched variant's record:
# the one made earlier by the same tools, module and patched kernel (make
# check runs patched first), or else from a patched run made here.
#   tests/guest/snapshot/run.sh x86_64|arm64 [VARIANT]
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
arch=${1:?usage: run.sh x86_64|arm64 [variant]}
variant=${2:-patched}
top=$(cd "$(dirname "$0")/../../.." && pwd)
here=$top/tests/guest/snapshot
outdir=${OUTDIR:-$top/out}
out=$outdir/lab/snapshot-$arch-$variant.log
rec=$outdir/lab/snapshot-shapes-$arch-$variant.json

# What a record was made with: the kernel, the audit, the shapes.
ident() {
	printf '{"kernel": "%s-%s", "tools": "%s", "module": "%s"}' "$1" \
		"$("$top/scripts/lab" key --arch "$arch" --variant "$1")" \
		"$(sha256sum <"$outdir/$arch/bin/vmapstat" | cut -d' ' -f1)" \
		"$(cat "$top"/tests/kmod/snapshot_workload/snapshot_shapes.[ch] | sha256sum | cut -d' ' -f1)"
}

mkdir -p "$(dirname "$out")"
rm -f "$rec"
"$top/scripts/lab" run --arch "$arch" --variant "$variant" --timeout 900 --ivshmem 64 \
	--script "$here/guest.sh" >"$out"
python3 "$here/check.py" "$arch" "$variant" "$out" --record "$rec" --ident "$(ident "$variant")"

if [ "$variant" = stock ]; then
	prec=$outdir/lab/snapshot-shapes-$arch-patched.json
	if ! python3 "$here/shapes.py" fresh "$prec" "$(ident patched)"; then
		echo "== snapshot guest test: $arch patched (for the shapes comparison)"
		bash "$0" "$arch" patched
	fi
	python3 "$here/shapes.py" compare "$arch" "$rec" "$prec"
fi
pass "snapshot guest test on $arch-$variant"
finish
