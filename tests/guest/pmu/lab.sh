#!/usr/bin/env bash
# Host side of the PMU guest tests: boots the patched x86_64 and arm64
# kernels (scripts/lab) and runs tests/guest/pmu/guest.sh in each; arm64
# once more with QEMU -icount shift=0, where inst_retired counts.
# Needs out/<arch>/bin/vmapstat (make tools-all); uses out/<arch>/bin/perf
# when scripts/build-perf has put it there.
set -uo pipefail
TOP=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
LAB=$TOP/scripts/lab
# own copy at a fixed guest path (where tests/guest/ lands in /opt/vmapscope
# depends on what out/<arch>/ already holds)
GUEST=$TOP/tests/guest/pmu:/pmu-tests
. "$(dirname "$0")/../../lib/harness.sh"

for arch in x86_64 arm64; do
	if [ ! -x "$TOP/out/$arch/bin/vmapstat" ]; then
		fail "out/$arch/bin/vmapstat missing (make tools-$arch)"
		continue
	fi
	echo "== pmu guest tests, $arch"
	"$LAB" run --arch $arch --variant patched --timeout 900 --add "$GUEST" -- \
		sh /pmu-tests/guest.sh $arch && pass "pmu guest tests, $arch" || fail "pmu guest tests, $arch"
done
echo "== pmu guest tests, arm64 with -icount"
"$LAB" run --arch arm64 --variant patched --icount --timeout 900 --add "$GUEST" -- \
	sh /pmu-tests/guest.sh arm64 icount && pass "pmu guest tests, arm64 -icount" ||
	fail "pmu guest tests, arm64 -icount"
finish
