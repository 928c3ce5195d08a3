#!/usr/bin/env bash
# Host driver of vmapstat's guest test: build the tools and the workload
# module for ARCH, boot the patched kernel (with an ivshmem BAR for the
# ioremap caller), run guest.sh, and check its output with check.py.
# usage: tests/guest/vmapstat/run.sh ARCH   (x86_64 | arm64)
set -euo pipefail
ARCH=${1:?usage: run.sh x86_64|arm64}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$TOP"
LAB=scripts/lab
export OUTDIR=${OUTDIR:-$TOP/out}

$LAB build --arch "$ARCH" --variant patched >/dev/null
make --no-print-directory OUTDIR="$OUTDIR" "tools-$ARCH" >/dev/null
$LAB kmod --arch "$ARCH" --variant patched tests/kmod/vmapstat_workload >/dev/null
mkdir -p "$OUTDIR/test-logs"
log=$OUTDIR/test-logs/vmapstat-guest-$ARCH.log
set +e
$LAB run --arch "$ARCH" --variant patched --timeout 300 --mem 1024 --ivshmem 64 \
	--script tests/guest/vmapstat/guest.sh >"$log" 2>&1
rc=$?
set -e
echo "guest exit $rc (log: $log)"
python3 tests/guest/vmapstat/check.py "$ARCH" "$log" || rc=1
[ "$rc" = 0 ] || { echo "vmapstat guest test FAILED on $ARCH"; exit 1; }
echo "vmapstat guest test passed on $ARCH"
