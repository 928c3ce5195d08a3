#!/bin/sh
# Runs inside a STOCK lab guest (no series tracepoints).  vmapstat must
# still run: name the missing columns once, count the areas per caller,
# named by each area's vm_struct at alloc_vmap_area()'s exit, with one
# program (bpflinks lists what the kernel holds: VSD), and time vmalloc()
# whole with --call-latency; then name every caller by kernel stack
# (--stack-callers); then join the traced rows with the snapshot's (VS3).
. /opt/vmapscope/lib/harness.sh
KO=/opt/vmapscope/kmod/vmapstat_workload.ko
[ -f "$KO" ] || die "$KO missing (lab kmod not run?)"
vmapstat -p -j -- sh -c "bpflinks >/tmp/links; kload $KO" >/tmp/vsd.json 2>/tmp/vsd.err
vrcd=$?
echo "@@VSD-RC $vrcd"
echo "@@VSD-JSON"
cat /tmp/vsd.json
echo "@@VSD-ERR"
cat /tmp/vsd.err
echo "@@VSD-LINKS"
cat /tmp/links
echo "@@VSD-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
rmmod vmapstat_workload
vmapstat -p -j --call-latency -- kload $KO >/tmp/vs.json 2>/tmp/vs.err
vrc=$?
echo "@@VS-RC $vrc"
echo "@@VS-JSON"
cat /tmp/vs.json
echo "@@VS-ERR"
cat /tmp/vs.err
echo "@@VS-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
rmmod vmapstat_workload
# The same load with the callers named by kernel stack (--stack-callers),
# as on a kernel where nothing else names them.
vmapstat -p -j --stack-callers -- kload $KO >/tmp/vs2.json 2>/tmp/vs2.err
vrc2=$?
echo "@@VS2-RC $vrc2"
echo "@@VS2-JSON"
cat /tmp/vs2.json
echo "@@VS2-ERR"
cat /tmp/vs2.err
echo "@@VS2-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
rmmod vmapstat_workload
# The traced and the live view join on caller.  Traced by default (the
# callers of the areas' vm_struct): the module load and a burst of 20
# children that stay alive (each needs a vmalloc'ed thread stack); then,
# while they live, the snapshot lists the same areas from
# /proc/vmallocinfo.
echo 1 >/proc/sys/kernel/kptr_restrict
vmapstat -v -p -j -- sh -c "kload $KO >/dev/null; for i in \$(seq 20); do sleep 120 & done" \
	>/tmp/vs3.json 2>/tmp/vs3.err
vrc3=$?
echo "@@VS3-RC $vrc3"
echo "@@VS3-JSON"
cat /tmp/vs3.json
echo "@@VS3-ERR"
cat /tmp/vs3.err
vmapstat --snapshot -p -j >/tmp/vs3-live.json 2>/tmp/vs3-live.err
echo "@@VS3-LIVE-RC $?"
echo "@@VS3-LIVE"
cat /tmp/vs3-live.json
cat /tmp/vs3-live.err
echo "@@VS3-VMALLOCINFO"
grep -E 'vswl_|kernel_clone|copy_process' /proc/vmallocinfo
echo "@@VS3-CPUS $(grep -c ^processor /proc/cpuinfo)"
echo "@@VS-END"
pkill sleep 2>/dev/null || killall sleep 2>/dev/null
rmmod vmapstat_workload
[ $vrcd = 0 ] || exit $vrcd
[ $vrc = 0 ] || exit $vrc
[ $vrc2 = 0 ] || exit $vrc2
exit $vrc3
