#!/bin/sh
# Runs inside a patched lab guest (busybox sh), driven by run.sh: the
# vmap_test workload (vmap/vmalloc/vm_map_ram mappings with known granules)
# under vmapstat -p -j --textfile, then under vmapstat --prometheus in
# command mode; then snapshot_workload, which stays loaded, under
# --prometheus --live-bytes (traced and live bytes of the same callers).
# Prints the outputs between @@@ markers for the host side.
KMOD=/opt/vmapscope/kmod/vmap_test.ko

vmapstat -p -j --top-callers 1000 --textfile /tmp/vmapscope.prom 1 \
	>/tmp/v.json 2>/tmp/v.err &
pid=$!
i=0
while [ ! -s /tmp/vmapscope.prom ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kload -e 11 $KMOD mode=map >/tmp/kload.out 2>&1
echo "kload rc=$?"
sleep 1.5
kill -INT $pid
wait $pid
echo "vmapstat rc=$?"

# the command shares vmapstat's stdout: keep its own output apart
vmapstat -p --prometheus --top-callers 3 -- \
	sh -c "kload -e 11 $KMOD mode=map >/tmp/kload2.out 2>&1" \
	>/tmp/cmd.prom 2>/tmp/cmd.err
echo "command mode rc=$?"

# --live-bytes needs real addresses in /proc/vmallocinfo
echo 1 >/proc/sys/kernel/kptr_restrict
vmapstat -p --live-bytes --prometheus --top-callers 1000 -- \
	sh -c "kload /opt/vmapscope/kmod/snapshot_workload.ko >/tmp/kload3.out 2>&1" \
	>/tmp/join.prom 2>/tmp/join.err
echo "join rc=$?"

echo "@@@ JSON"; cat /tmp/v.json
echo "@@@ PROM"; cat /tmp/vmapscope.prom
echo "@@@ CMD"; cat /tmp/cmd.prom
echo "@@@ JOIN"; cat /tmp/join.prom
echo "@@@ ERR"; cat /tmp/v.err /tmp/cmd.err /tmp/join.err
echo "@@@ END"
