#!/usr/bin/env bash
# Host driver of vmapstat's guest tests: build the tools and the workload
# module for ARCH, boot the kernel, run the guest script, check its output.
#   patched: guest.sh (with an ivshmem BAR for the ioremap caller) + check.py
#   stock:   stock.sh + check_stock.py (no series tracepoints)
# usage: tests/guest/vmapstat/run.sh ARCH [patched|stock]
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
ARCH=${1:?usage: run.sh x86_64|arm64 [patched|stock]}
VARIANT=${2:-patched}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$TOP"
LAB=scripts/lab
export OUTDIR=${OUTDIR:-$TOP/out}
case "$VARIANT" in
patched) script=guest.sh checker=check.py extra=(--ivshmem 64) ;;
stock) script=stock.sh checker=check_stock.py extra=() ;;
*) echo "run.sh: unknown variant '$VARIANT'" >&2; exit 2 ;;
esac

$LAB build --arch "$ARCH" --variant "$VARIANT" >/dev/null
make --no-print-directory OUTDIR="$OUTDIR" "tools-$ARCH" >/dev/null
$LAB kmod --arch "$ARCH" --variant "$VARIANT" tests/kmod/vmapstat_workload >/dev/null
mkdir -p "$OUTDIR/test-logs"
log=$OUTDIR/test-logs/vmapstat-guest-$ARCH-$VARIANT.log
set +e
$LAB run --arch "$ARCH" --variant "$VARIANT" --timeout 300 --mem 1024 "${extra[@]}" \
	--script "tests/guest/vmapstat/$script" >"$log" 2>&1
rc=$?
set -e
echo "guest exit $rc (log: $log)"
python3 "tests/guest/vmapstat/$checker" "$ARCH" "$log" || rc=1
[ "$rc" = 0 ] || die "vmapstat guest test on $ARCH-$VARIANT"
pass "vmapstat guest test on $ARCH-$VARIANT"
finish
