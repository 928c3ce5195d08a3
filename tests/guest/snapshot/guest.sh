#!/bin/sh
# Guest side of the snapshot test (run by run.sh through
# "scripts/lab run --script").  Loads tests/kmod/snapshot_workload's two
# modules (snapshot_workload; snapshot_shapes, the vmap() arrays of known
# shape whose prediction run.sh compares across kernels), records
# what the series' tracepoints saw while it mapped (patched kernels), takes
# one snapshot with per-area results, and on x86_64 the kernel's own
# page-table dump; prints everything between @@SNAP markers for check.py.
set -e
snap() { vmapstat --snapshot "$@"; }
# %pK must print real addresses for root (the default 0 hashes them).
echo 1 >/proc/sys/kernel/kptr_restrict
T=/sys/kernel/tracing

# ivshmem BAR2 (lab --ivshmem): physical memory to ioremap with PMDs.
phys=0
for d in /sys/bus/pci/devices/*; do
	[ -e "$d/vendor" ] || continue
	if [ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ]; then
		phys=$(sed -n 3p "$d/resource" | cut -d' ' -f1)
		echo 1 >"$d/enable" 2>/dev/null || true
	fi
done
echo "@@SNAP-INFO arch=$(uname -m) ivshmem_bar2=$phys"

events=0
if [ -d $T/events/vmalloc/vmap_set_ptes ]; then
	events=1
	echo >$T/trace
	for e in vmap_set_ptes vmap_huge_block; do
		echo 1 >$T/events/vmalloc/$e/enable
	done
fi
echo "@@SNAP-INFO tracepoints=$events"

kload /opt/vmapscope/kmod/snapshot_workload.ko ioremap_phys=$phys
kload /opt/vmapscope/kmod/snapshot_shapes.ko

if [ $events = 1 ]; then
	for e in vmap_set_ptes vmap_huge_block; do
		echo 0 >$T/events/vmalloc/$e/enable
	done
	echo "@@SNAP-TRACE-BEGIN"
	grep -E 'vmap_(set_ptes|huge_block):' $T/trace || true
	echo "@@SNAP-TRACE-END"
fi
echo "@@SNAP-DMESG-BEGIN"
dmesg | grep 'snapshot_workload: ' || true
echo "@@SNAP-DMESG-END"
echo "@@SNAP-SHAPES-BEGIN"
dmesg | grep 'snapshot_shapes: ' || true
echo "@@SNAP-SHAPES-END"

echo "@@SNAP-JSON-BEGIN"
snap -j -p --snapshot-areas
echo "@@SNAP-JSON-END"
if [ -r /sys/kernel/debug/page_tables/kernel ]; then
	echo "@@SNAP-PTDUMP-BEGIN"
	cat /sys/kernel/debug/page_tables/kernel
	echo "@@SNAP-PTDUMP-END"
fi
# Areas still there after the dump: anything else changed in between.
echo "@@SNAP-AFTER-BEGIN"
cat /proc/vmallocinfo
echo "@@SNAP-AFTER-END"

# Bounded work per BPF run: with 3 steps per run every area is cut and
# resumed several times; the result must not change.
echo "@@SNAP-STEPS-BEGIN"
snap -j -p -c '[snapshot_workload]' --snapshot-steps 3
echo "@@SNAP-STEPS-END"

# As on a kernel without CONFIG_KALLSYMS_ALL: the fallbacks must find
# (and verify) init_mm and the linear map, or say which one they could not.
echo "@@SNAP-NOKSYMS-BEGIN"
snap -j -p -c '[snapshot_workload]' --kallsyms /dev/null 2>&1 || true
echo "@@SNAP-NOKSYMS-END"

# The text view, for the log.
snap -p -c sw_
snap -p -c ss_

# After unloading, the workload's areas are gone from the snapshot.
rmmod snapshot_workload
rmmod snapshot_shapes
echo "@@SNAP-UNLOADED-BEGIN"
snap -j -p -c '[snapshot_'
echo "@@SNAP-UNLOADED-END"

# Concurrent unmaps: snapshots while test_vmalloc allocates and frees
# areas on both CPUs.  Every snapshot must succeed (the lab fails the run
# on any kernel WARN/BUG/Oops); areas freed under the walk are counted as
# changed, not walked into.
tv=$(find /lib/modules -name test_vmalloc.ko | head -n1)
if [ -n "$tv" ]; then
	kload -e 11 "$tv" run_test_mask=5 test_loop_count=60000 nr_threads=2 >/dev/null &
	kpid=$!
	sleep 1
	echo "@@SNAP-CHURN-BEGIN"
	i=0
	while [ $i -lt 5 ]; do
		snap -j || echo "{\"failed\": $?}"
		i=$((i + 1))
	done
	echo "@@SNAP-CHURN-END"
	kill -0 $kpid 2>/dev/null && echo "@@SNAP-INFO churn_overlapped=1" || echo "@@SNAP-INFO churn_overlapped=0"
	wait $kpid || true
fi
