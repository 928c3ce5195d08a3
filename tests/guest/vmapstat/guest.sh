#!/bin/sh
# Runs inside a lab guest (busybox sh).  Records the workload module's
# mappings twice: vmapstat -p -j --runs (BPF aggregation) and the raw
# tracefs events of the same run; prints both between markers for check.py
# on the host.  A second load runs under the default attach set, which the
# kernel's own list of BPF programs and links shows (bpflinks).  Later runs
# check the caller filter (-c) on a module loaded after vmapstat started;
# the last ones label the rows (--by cgroup, --by comm) of two workloads
# in two cgroups.
. /opt/vmapscope/lib/harness.sh
KO=/opt/vmapscope/kmod/vmapstat_workload.ko
T=/sys/kernel/tracing
rc=0

[ -f "$KO" ] || die "$KO missing (lab kmod not run?)"

# ivshmem-plain (1af4:1110) BAR2 for the ioremap caller, when present.
params=
for d in /sys/bus/pci/devices/*; do
	[ -f "$d/vendor" ] || continue
	if [ "$(cat $d/vendor)" = 0x1af4 ] && [ "$(cat $d/device)" = 0x1110 ]; then
		bar=$(sed -n 3p "$d/resource" | cut -d' ' -f1)
		[ -n "$bar" ] && [ "$bar" != 0x0000000000000000 ] &&
			params="ioremap_phys=$bar ioremap_size=0x400000"
	fi
done
echo "@@VS-PARAMS $params"

echo 0 >$T/tracing_on
echo 8192 >$T/buffer_size_kb
echo >$T/trace
for e in vmap_mapped vmap_set_ptes vmap_huge_block; do
	echo 1 >$T/events/vmalloc/$e/enable || die "no tracefs event $e"
done
echo 1 >$T/tracing_on

vmapstat -p -j --runs -- kload $KO $params >/tmp/vs.json 2>/tmp/vs.err
vrc=$?
echo 0 >$T/tracing_on
echo "@@VS-RC $vrc"
echo "@@VS-JSON"
cat /tmp/vs.json
echo "@@VS-ERR"
cat /tmp/vs.err
echo "@@VS-TRACE"
grep -E ' (vmap_mapped|vmap_set_ptes|vmap_huge_block): ' $T/trace
echo "@@VS-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
echo "@@VS-TRACE-OVERRUN $(grep -c 'LOST' $T/trace)"
[ $vrc = 0 ] || rc=1
rmmod vmapstat_workload || rc=1

# The default attach set, seen from the kernel while vmapstat runs; the
# same workload counted without the per-run events.
vmapstat -p -j -- sh -c "bpflinks >/tmp/links; kload $KO $params" >/tmp/vsd.json 2>/tmp/vsd.err
echo "@@VSD-RC $?"
echo "@@VSD-JSON"
cat /tmp/vsd.json
echo "@@VSD-ERR"
cat /tmp/vsd.err
echo "@@VSD-LINKS"
cat /tmp/links
rmmod vmapstat_workload || rc=1

# --lifetime: every mapping of the workload from its load to its unload.
# The module is gone when vmapstat names its callers: from its .ko there.
mkdir -p /lib/modules/$(uname -r)/extra && cp $KO /lib/modules/$(uname -r)/extra/
vmapstat -p -j --lifetime -- sh -c "kload $KO $params >/dev/null && rmmod vmapstat_workload" \
	>/tmp/vsl.json 2>/tmp/vsl.err
echo "@@VSL-RC $?"
echo "@@VSL-JSON"
cat /tmp/vsl.json
echo "@@VSL-ERR"
cat /tmp/vsl.err
rm /lib/modules/$(uname -r)/extra/vmapstat_workload.ko

# filtered_run TAG CALLER: vmapstat -c CALLER around one load of the
# workload; its status, JSON and stderr under @@TAG-* markers.
filtered_run() {
	vmapstat -p -j -c "$2" -- kload $KO >/tmp/$1.json 2>/tmp/$1.err
	echo "@@$1-RC $?"
	echo "@@$1-JSON"
	cat /tmp/$1.json
	echo "@@$1-ERR"
	cat /tmp/$1.err
}

# Caller filter on symbols that appear only after vmapstat started.
filtered_run VS2 vswl_vmap
rmmod vmapstat_workload || rc=1

# Caller filter on a kernel symbol known at start: applied in BPF.
filtered_run VS3 load_module
# A module that is gone before vmapstat reads its rows: test_vmalloc's init
# returns -EAGAIN, so the kernel unloads it right after the test.  Callers
# are named from its .ko under /lib/modules; without it, as [mod]+0xoff.
tv=$(find /lib/modules/$(uname -r) -name test_vmalloc.ko | head -n 1)
echo "@@VS4-KO $tv"
unloaded_run() {
	vmapstat -p -j -- kload -e 11 "$2" run_test_mask=1 nr_pages=512 use_huge=1 \
		nr_threads=1 test_repeat_count=1 test_loop_count=$3 >/tmp/$1.json 2>/tmp/$1.err
	echo "@@$1-RC $?"
	echo "@@$1-JSON"
	cat /tmp/$1.json
	echo "@@$1-ERR"
	cat /tmp/$1.err
}
if [ -n "$tv" ]; then
	unloaded_run VS4 "$tv" 10
	mv "$tv" /tmp/test_vmalloc.ko
	unloaded_run VS5 /tmp/test_vmalloc.ko 2
	mv /tmp/test_vmalloc.ko "$tv"
fi
echo "@@VS-END"
rmmod vmapstat_workload || rc=1
for e in vmap_mapped vmap_set_ptes vmap_huge_block; do
	echo 0 >$T/events/vmalloc/$e/enable
done

# --by cgroup and --by comm: two cgroups of a cgroup v2 hierarchy mounted
# here, each with a workload of its own started by the same command:
# vs_a loads the workload module (its known callers; the task is kload),
# vs_b forks a burst of NB sleepers alive at once (a vmalloc'ed kernel
# stack each, forked by sh).  check.py wants each workload's rows under
# its own label only.
CG=/sys/fs/cgroup
NB=40
[ -d $CG ] || mkdir -p $CG
if mount -t cgroup2 none $CG && mkdir $CG/vs_a $CG/vs_b; then
	echo "@@VSB-SETUP ok"
else
	echo "@@VSB-SETUP cannot mount cgroup2 or make cgroups (kernel without CONFIG_CGROUPS?)"
	rc=1
fi
echo "@@VSB-NB $NB"
by_run() {	# TAG LABEL
	vmapstat -p -j --by $2 -- sh -c "
		sh -c 'echo \$\$ >$CG/vs_a/cgroup.procs && exec kload $KO $params' &
		sh -c 'echo \$\$ >$CG/vs_b/cgroup.procs && for i in \$(seq $NB); do sleep 4 & done; wait' &
		wait" >/tmp/$1.json 2>/tmp/$1.err
	echo "@@$1-RC $?"
	echo "@@$1-JSON"
	cat /tmp/$1.json
	echo "@@$1-ERR"
	cat /tmp/$1.err
	rmmod vmapstat_workload || rc=1
}
by_run VSB cgroup
by_run VSC comm
echo "@@VSB-END"
rmdir $CG/vs_a $CG/vs_b
exit $rc
