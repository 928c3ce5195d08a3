#!/usr/bin/env bash
# Host driver of the tool-overhead benchmark (make bench-overhead):
#   tests/guest/overhead/run.sh ARCH MODE [RUNS [ROUNDS [PROFILE [VARIANT]]]]
# MODE: icount  QEMU -icount shift=0: guest time is virtual, one ns per
#               instruction, so the figures do not depend on the load of
#               this 2-core host (they count instructions, not time)
#       tcg     plain TCG: guest ktime follows the host's wall clock
# PROFILE: small  vmap of 16 pages + vmalloc(64K) per round (default): many
#                 events for little mapping work, the worst case
#          large  vmap of 512 pages (2 MiB) + vmalloc(1 MiB) per round
#          parts  the small workload under configurations that switch on
#                 one part of the event path at a time: the tally, an
#                 empty program on a per-run event, on vmap_mapped (parts.sh)
#          observer  not the workload: the mapping latency vmapstat reports
#                 for vmap_bench's ioremap_1M, vmalloc_huge_1M and
#                 vmap_o9_100M against vmap_bench's own timing of the same
#                 calls (observer.sh; RUNS interleaved repetitions, ROUNDS
#                 is vmap_bench's iters; patched only)
# VARIANT: patched (default) or stock: the kernel without the series, where
#          the configurations are no tool, the floor of vmapstat's area
#          program, vmapstat's default (callers by the areas' vm_struct)
#          and --stack-callers
# Writes out/bench/overhead/ARCH-MODE[-large|-parts|-observer][-stock].txt: a
# header (date, host, QEMU, kernel artifact) and the guest's @@ lines;
# scripts/overhead-report turns them into tables.
set -euo pipefail
ARCH=${1:?usage: run.sh ARCH icount|tcg [RUNS [ROUNDS [PROFILE]]]}
MODE=${2:?usage: run.sh ARCH icount|tcg [RUNS [ROUNDS [PROFILE]]]}
RUNS=${3:-11}
ROUNDS=${4:-2000}
PROFILE=${5:-small}
VARIANT=${6:-patched}
script=bench.sh kmod=tests/kmod/overhead_workload ivshmem=
case $PROFILE in
small) params="VMAP_PAGES=16 VMALLOC_SIZE=65536"; suffix= ;;
large) params="VMAP_PAGES=512 VMALLOC_SIZE=1048576"; suffix=-large ;;
parts) params=; suffix=-parts; script=parts.sh
	[ "$VARIANT" = patched ] || { echo "run.sh: the parts profile needs the series" >&2; exit 2; } ;;
observer) params="OBS_RUNS=$RUNS ITERS=$ROUNDS"; suffix=-observer
	script=observer.sh kmod=tests/kmod/vmap_bench ivshmem="--ivshmem 64"
	[ "$VARIANT" = patched ] || { echo "run.sh: the observer profile needs the series" >&2; exit 2; } ;;
*) echo "run.sh: profile must be small, large, parts or observer" >&2; exit 2 ;;
esac
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$TOP"
LAB=scripts/lab
OUTDIR=${OUTDIR:-$TOP/out}
case $VARIANT in patched) ;; stock) suffix=$suffix-stock ;; *) echo "run.sh: variant must be patched or stock" >&2; exit 2 ;; esac
out=$OUTDIR/bench/overhead/$ARCH-$MODE$suffix.txt
# bench.sh settles by running the workload SETTLE_RUNS times, unmeasured,
# before each measured run (the work a tool leaves behind, and its first
# run after attaching, land there), and sleeps SETTLE s more before each:
# 0, since an idle guest does not finish that work (docs/benchmarks.md,
# "Tool overhead").  The observer profile sleeps SETTLE s (default 1).
SETTLE_RUNS=${SETTLE_RUNS:-3}
if [ "$PROFILE" = observer ]; then SETTLE=${SETTLE:-1}; else SETTLE=${SETTLE:-0}; fi
case $MODE in icount) icount=--icount ;; tcg) icount= ;; *) echo "run.sh: mode must be icount or tcg" >&2; exit 2 ;; esac

$LAB build --arch "$ARCH" --variant "$VARIANT" >/dev/null
make --no-print-directory OUTDIR="$OUTDIR" "tools-$ARCH" "$OUTDIR/$ARCH/bin/vmapscope-floor" >/dev/null
if [ "$VARIANT" = patched ] && [ "$PROFILE" != observer ]; then
	# perf for the perf-stat row (cached after the first build).
	OUTDIR="$OUTDIR" scripts/build-perf "$ARCH" >/dev/null
fi
[ -n "${SKIP_KMOD:-}" ] || $LAB kmod --arch "$ARCH" --variant "$VARIANT" $kmod >/dev/null
mkdir -p "$(dirname "$out")"
qemu=qemu-system-$ARCH; [ "$ARCH" = arm64 ] && qemu=qemu-system-aarch64
{
	echo "# vmapscope tool-overhead benchmark (tests/guest/overhead)"
	echo "# date=$(date -u +%Y-%m-%dT%H:%M:%SZ) arch=$ARCH mode=$MODE profile=$PROFILE variant=$VARIANT accel=TCG${icount:+ (-icount shift=0)}"
	echo "# host: $(nproc) CPUs, $(uname -r), $($qemu --version | head -n 1)"
	echo "# host load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# kernel artifact: $($LAB path --arch "$ARCH" --variant "$VARIANT")"
	echo "# settle: $SETTLE_RUNS unmeasured runs of the workload and $SETTLE s before each measured run (bench.sh)"
	echo "# vmapscope: $(git describe --always --dirty 2>/dev/null)"
} >"$out.tmp"
set +e
# shellcheck disable=SC2086
$LAB run --arch "$ARCH" --variant "$VARIANT" $icount $ivshmem --timeout 3600 \
	--add tests/guest/overhead/$script:/opt/overhead.sh \
	-- env RUNS="$RUNS" ROUNDS="$ROUNDS" VARIANT="$VARIANT" SETTLE="$SETTLE" SETTLE_RUNS="$SETTLE_RUNS" \
	$params sh /opt/overhead.sh >>"$out.tmp" 2>&1
rc=$?
set -e
echo "# host load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out.tmp"
mv "$out.tmp" "$out"
grep -q '^@@DONE' "$out" || { echo "overhead benchmark failed on $ARCH ($MODE), rc $rc: see $out" >&2; exit 1; }
echo "$out"
