#!/usr/bin/env bash
# Host driver of the tool-overhead benchmark (make bench-overhead):
#   tests/guest/overhead/run.sh ARCH MODE [RUNS [ROUNDS]]
# MODE: icount  QEMU -icount shift=0: guest time is virtual, one ns per
#               instruction, so the figures do not depend on the load of
#               this 2-core host (they count instructions, not time)
#       tcg     plain TCG: guest ktime follows the host's wall clock
# Writes out/bench/overhead/ARCH-MODE.txt: a header (date, host, QEMU,
# kernel artifact) and the guest's @@ lines; scripts/overhead-report turns
# them into tables.
set -euo pipefail
ARCH=${1:?usage: run.sh ARCH icount|tcg [RUNS [ROUNDS]]}
MODE=${2:?usage: run.sh ARCH icount|tcg [RUNS [ROUNDS]]}
RUNS=${3:-11}
ROUNDS=${4:-2000}
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$TOP"
LAB=scripts/lab
OUTDIR=${OUTDIR:-$TOP/out}
out=$OUTDIR/bench/overhead/$ARCH-$MODE.txt
case $MODE in icount) icount=--icount ;; tcg) icount= ;; *) echo "run.sh: mode must be icount or tcg" >&2; exit 2 ;; esac

$LAB build --arch "$ARCH" --variant patched >/dev/null
make --no-print-directory OUTDIR="$OUTDIR" "tools-$ARCH" >/dev/null
[ -n "${SKIP_KMOD:-}" ] || $LAB kmod --arch "$ARCH" --variant patched tests/kmod/overhead_workload >/dev/null
mkdir -p "$(dirname "$out")"
qemu=qemu-system-$ARCH; [ "$ARCH" = arm64 ] && qemu=qemu-system-aarch64
{
	echo "# vmapscope tool-overhead benchmark (tests/guest/overhead)"
	echo "# date=$(date -u +%Y-%m-%dT%H:%M:%SZ) arch=$ARCH mode=$MODE accel=TCG${icount:+ (-icount shift=0)}"
	echo "# host: $(nproc) CPUs, $(uname -r), $($qemu --version | head -n 1)"
	echo "# host load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# kernel artifact: $($LAB path --arch "$ARCH" --variant patched)"
	echo "# vmapscope: $(git describe --always --dirty 2>/dev/null)"
} >"$out.tmp"
set +e
$LAB run --arch "$ARCH" --variant patched $icount --timeout 3600 \
	--add tests/guest/overhead/bench.sh:/opt/overhead.sh \
	-- env RUNS="$RUNS" ROUNDS="$ROUNDS" sh /opt/overhead.sh >>"$out.tmp" 2>&1
rc=$?
set -e
echo "# host load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out.tmp"
mv "$out.tmp" "$out"
grep -q '^@@DONE' "$out" || { echo "overhead benchmark failed on $ARCH ($MODE), rc $rc: see $out" >&2; exit 1; }
echo "$out"
