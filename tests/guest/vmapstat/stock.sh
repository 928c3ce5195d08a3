#!/bin/sh
# Runs inside a STOCK lab guest (no series tracepoints).  vmapstat must
# still run: name the missing columns once, time vmalloc() and count its
# areas per caller from the stock alloc_vmap_area tracepoint; then name
# every caller by kernel stack (--stack-callers).
KO=/opt/vmapscope/kmod/vmapstat_workload.ko
[ -f "$KO" ] || { echo "FAIL: $KO missing (lab kmod not run?)"; exit 1; }
vmapstat -p -j -- kload $KO >/tmp/vs.json 2>/tmp/vs.err
vrc=$?
echo "@@VS-RC $vrc"
echo "@@VS-JSON"
cat /tmp/vs.json
echo "@@VS-ERR"
cat /tmp/vs.err
echo "@@VS-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
rmmod vmapstat_workload
# The same load with the callers named by kernel stack (--stack-callers:
# no entry-point probe), as on a kernel where nothing else names them.
vmapstat -p -j --stack-callers -- kload $KO >/tmp/vs2.json 2>/tmp/vs2.err
vrc2=$?
echo "@@VS2-RC $vrc2"
echo "@@VS2-JSON"
cat /tmp/vs2.json
echo "@@VS2-ERR"
cat /tmp/vs2.err
echo "@@VS2-VMALLOCINFO"
grep vswl_ /proc/vmallocinfo
echo "@@VS-END"
rmmod vmapstat_workload
[ $vrc = 0 ] || exit $vrc
exit $vrc2
