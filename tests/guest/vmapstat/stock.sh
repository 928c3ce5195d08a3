#!/bin/sh
# Runs inside a STOCK lab guest (no series tracepoints).  vmapstat must
# still run: name the missing columns once, time vmalloc() and count its
# areas per caller from the stock alloc_vmap_area tracepoint.
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
echo "@@VS-END"
rmmod vmapstat_workload
exit $vrc
