#!/bin/sh
# Runs inside a lab guest (busybox sh): the AUX buffer path end to end.
#   sh guest.sh ARCH
# The aux_test PMU's setup_aux() vmap()s a 64M perf AUX buffer that
# aux-record (a small "perf record -m ,64M") asks for; vmapstat -p
# records that mapping while the PMU streams through it.  Each run prints
# vmapstat's JSON, a live snapshot of the buffer's mapping taken while
# aux-record holds it, aux-record's summary and the module's own report
# (dmesg) between @@AUX-<run>-* markers for check.py on the host.
. /opt/vmapscope/lib/harness.sh
arch=$1
KO=/opt/vmapscope/kmod/aux_test_pmu.ko
SIZE=64M
# vmapstat counts CPU 0, where the event and its writer run (as Arm's
# recipe counts the CPU it traces); Arm's six events on arm64.
pmu=cycles,instructions
[ "$arch" = arm64 ] && pmu=$pmu,dtlb_walk,l1d_tlb,l1d_tlb_refill,l2d_tlb_refill
rc=0

[ -f "$KO" ] || die "$KO missing (lab kmod not run?)"
command -v aux-record >/dev/null || die "aux-record missing"

load() {
	rmmod aux_test_pmu 2>/dev/null
	kload $KO "$@" >/dev/null || die "kload $KO $*"
}

# one TAG NRUNS VMAPSTAT-OPTIONS -- AUX-RECORD-OPTIONS: NRUNS runs of
# aux-record under vmapstat; the workload takes the live snapshot.
one() {
	tag=$1 n=$2
	shift 2
	vs=
	while [ "$1" != -- ]; do vs="$vs $1"; shift; done
	shift
	vmapstat -p -j -C 0 --pmu $pmu $vs -- \
		aux-record -C 0 -m $SIZE -b $SIZE "$@" -- \
		sh -c "vmapstat --snapshot -p -j -c aux_test_setup_aux >/tmp/snap-$tag.json 2>/tmp/snap-$tag.err;
			dd if=/dev/zero of=/tmp/dd bs=1M count=16 2>/dev/null; rm -f /tmp/dd" \
		>/tmp/$tag.out 2>/tmp/$tag.err
	echo "@@AUX-$tag-RC $?"
	echo "@@AUX-$tag-OUT"
	cat /tmp/$tag.out
	echo "@@AUX-$tag-ERR"
	cat /tmp/$tag.err
	echo "@@AUX-$tag-SNAP"
	cat /tmp/snap-$tag.json
	cat /tmp/snap-$tag.err
	echo "@@AUX-$tag-DMESG"
	dmesg | grep 'aux_test: setup_aux' | tail -n $n
}

# The live snapshot reads /proc/vmallocinfo, whose addresses are only
# real (not hashed) with kptr_restrict=1 for root.
echo 1 >/proc/sys/kernel/kptr_restrict
echo "@@AUX-KERNEL $(uname -r) $(uname -m)"
load prefer_large=1
# the perf core's default watermark (half the buffer): order-10 chunks
one large 1 --
# a 64K watermark: order-4 chunks
one order4 1 -- -w 64K
# the same five times: the before/after table
one repeat 5 --repeat 5 --
load prefer_large=0
one single 1 --
rmmod aux_test_pmu || rc=1
echo "@@AUX-END"
exit $rc
