#!/bin/sh
# Guest side of the census (make census) and of its short version in make
# check (run.sh): the census workload traced by vmapstat -p -j, then what
# the kernel says about the areas still live: /proc/vmallocinfo, a live
# audit (vmapstat --snapshot) and, for the same areas, the kernel's own
# page-table dump (x86_64) and census-kwalk's walk through /proc/kcore.
# Everything goes to the console between @@CENSUS markers for check.py
# and report.py.  MODE (short|full) comes from the wrapper run.sh makes.
C=/opt/vmapscope/tests/census
OUT=/tmp/census
mkdir -p $OUT
export MODE=${MODE:-short} OUT
# %pK must print real addresses for root (vmallocinfo, kallsyms).
echo 1 >/proc/sys/kernel/kptr_restrict
# census-drive's huge pages: io_uring (3), the USERPTR buffer (1).
echo 16 >/proc/sys/vm/nr_hugepages

patched=0
[ ! -d /sys/kernel/tracing/events/vmalloc/vmap_mapped ] || patched=1
BDF=
for d in /sys/bus/pci/devices/*; do
	[ -e "$d/vendor" ] || continue
	if [ "$(cat $d/vendor)" = 0x1af4 ] && [ "$(cat $d/device)" = 0x1110 ]; then
		BDF=$(basename $d)
	fi
done
export BDF
echo "@@CENSUS-INFO arch=$(uname -m) release=$(uname -r) patched=$patched mode=$MODE ivshmem=${BDF:-none} hugepages=$(cat /proc/sys/vm/nr_hugepages)"

# What vmapstat attaches: the default set (on a stock kernel, areas named
# by their vm_struct), plus the areas on a series kernel so that both
# kernels count areas alike; the census also times whole vmalloc() calls.
opts="-p -j"
[ $patched = 0 ] || opts="$opts --areas"
[ "$MODE" != full ] || opts="$opts --call-latency"
echo "@@CENSUS-INFO vmapstat_options=$(echo $opts | tr ' ' ,)"
vmapstat $opts -- sh $C/phase.sh >$OUT/trace.json 2>$OUT/trace.err
echo "@@CENSUS-INFO trace_rc=$?"

# The snapshot, then the areas again: those listed both times and
# unchanged are the ones the walks below compare.
vmapstat --snapshot -p -j --snapshot-areas >$OUT/snapshot.json 2>$OUT/snapshot.err
echo "@@CENSUS-INFO snapshot_rc=$?"
if [ -r /sys/kernel/debug/page_tables/kernel ]; then
	cat /sys/kernel/debug/page_tables/kernel >$OUT/ptdump
fi
grep -v unpurged /proc/vmallocinfo | sed -n 's/^\(0x[0-9a-f]*\)-\(0x[0-9a-f]*\) .*/\1 \2/p' >$OUT/ranges
census-kwalk <$OUT/ranges >$OUT/kwalk 2>$OUT/kwalk.err
echo "@@CENSUS-INFO kwalk_rc=$?"
cat /proc/vmallocinfo >$OUT/vmallocinfo-end

pid=$(cat $OUT/drive.pid 2>/dev/null)
if [ -n "$pid" ]; then
	kill -TERM $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi

for f in phase.err drive.log trace.json trace.err tracefs-mapped snapshot.json snapshot.err vmallocinfo-before \
	vmallocinfo-after vmallocinfo-end kwalk kwalk.err ptdump; do
	[ -f $OUT/$f ] || continue
	echo "@@CENSUS-BEGIN $f"
	cat $OUT/$f
	echo "@@CENSUS-END $f"
done
