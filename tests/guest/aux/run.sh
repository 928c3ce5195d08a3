#!/usr/bin/env bash
# Host side of the AUX guest tests: for each ARCH (default: both), boot the
# stock and the patched kernel with aux_test_pmu.ko and aux-record, run
# guest.sh, check its output (check.py), then put the two --repeat 5 runs
# side by side with vmapstat compare.
#   tests/guest/aux/run.sh [ARCH...]
# Needs out/<arch>/bin/vmapstat (make tools-all) and
# out/aux/<arch>/aux-record (mk/aux.mk).
set -uo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
TOP=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
cd "$TOP"
LAB=scripts/lab
export OUTDIR=${OUTDIR:-$TOP/out}
HOST_ARCH=$(uname -m | sed 's/aarch64/arm64/')
LOGS=$OUTDIR/test-logs
mkdir -p "$LOGS"
[ $# -gt 0 ] || set -- x86_64 arm64

for arch in "$@"; do
	for variant in stock patched; do
		echo "== AUX guest test: $arch $variant"
		log=$LOGS/aux-$arch-$variant.log
		if ! $LAB build --arch "$arch" --variant "$variant" >/dev/null ||
			! $LAB kmod --arch "$arch" --variant "$variant" tests/kmod/aux_test_pmu >/dev/null; then
			fail "kernel or module for $arch-$variant"
			continue
		fi
		$LAB run --arch "$arch" --variant "$variant" --timeout 900 \
			--add "$OUTDIR/aux/$arch/aux-record:/opt/vmapscope/bin/aux-record" \
			--add "$TOP/tests/guest/aux/guest.sh:/aux/guest.sh" \
			-- sh /aux/guest.sh "$arch" >"$log" 2>&1
		rc=$?
		echo "guest exit $rc (log: $log)"
		[ "$rc" = 0 ] || { tail -n 20 "$log"; fail "guest run $arch-$variant exited $rc"; }
		python3 tests/guest/aux/check.py "$arch" "$variant" "$log" "$LOGS/aux-$arch-$variant.json" ||
			fail "checks of $arch-$variant"
	done
	cmp=$LOGS/aux-compare-$arch.txt
	if "$OUTDIR/$HOST_ARCH/bin/vmapstat" compare "$LOGS/aux-$arch-stock.json" \
		"$LOGS/aux-$arch-patched.json" >"$cmp" 2>&1 && grep -q '^| wall time ' "$cmp"; then
		cat "$cmp"
		pass "vmapstat compare of the $arch runs"
	else
		fail "vmapstat compare of the $arch runs"
		cat "$cmp"
	fi
done
finish
