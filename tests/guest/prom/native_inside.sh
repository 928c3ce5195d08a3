#!/bin/sh
# Runs inside a patched lab guest (busybox sh), driven by native.sh: the
# vmap_test workload while vmapstat -p -j --web.listen-address serves the
# same intervals it prints; then one GET /metrics asking for the protobuf
# exposition (Prometheus' Accept header with native histograms) and one
# asking for nothing, and the kernel's own vmap_mapped lines of the
# workload's calls (tracefs: each call's size and mapping time).  Prints
# everything between @@@ markers for the host side, the protobuf body in
# base64.
KMOD=/opt/vmapscope/kmod/vmap_test.ko
T=/sys/kernel/tracing
PORT=9798
URL=http://127.0.0.1:$PORT/metrics
PROTO='application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited'

ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

echo 0 >$T/tracing_on
echo 8192 >$T/buffer_size_kb
echo >$T/trace
echo 1 >$T/events/vmalloc/vmap_mapped/enable
echo 1 >$T/tracing_on

vmapstat -p -j --top-callers 1000 --web.listen-address 127.0.0.1:$PORT 1 >/tmp/n.json 2>/tmp/n.err &
pid=$!
i=0
while ! grep -q 'serving http' /tmp/n.err && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done

# stay=1: the module stays loaded while the trace is read, so that %pS
# still names its callers as vmapstat does.
kload $KMOD mode=map stay=1 >/tmp/kload.out 2>&1
echo "kload rc=$?"
dmesg | grep 'vmap_test: summary'

# Every call of the workload in the intervals the exposition holds: wait
# until the interval open when it ended has been printed, and one more.
n=$(grep -c '^{' /tmp/n.json)
i=0
while [ "$(grep -c '^{' /tmp/n.json)" -lt $((n + 2)) ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

wget -q -S --header "Accept: $PROTO" -O /tmp/m.pb $URL 2>/tmp/m.pb.hdr
echo "protobuf rc=$?"
wget -q -S -O /tmp/m.txt $URL 2>/tmp/m.txt.hdr
echo "text rc=$?"

echo 0 >$T/tracing_on
echo 0 >$T/events/vmalloc/vmap_mapped/enable
# api size ns caller, for the workload's calls (callers in vmap_test)
sed -n 's/.* vmap_mapped: .* size=\([0-9]*\) api=\([a-z_]*\) .* ns=\([0-9]*\) caller=\(.*\[vmap_test\]\)$/\2 \1 \3 \4/p' \
	$T/trace >/tmp/trace.txt
echo "trace overrun=$(sed -n 's/^overrun: //p' $T/per_cpu/cpu*/stats | tr '\n' '+')0 lines=$(grep -c ' vmap_mapped: ' $T/trace)"
echo >$T/trace

kill -INT $pid
wait $pid
echo "vmapstat rc=$?"
rmmod vmap_test

echo "@@@ JSON"; cat /tmp/n.json
echo "@@@ PB"; base64 /tmp/m.pb
echo "@@@ PBHDR"; cat /tmp/m.pb.hdr
echo "@@@ TEXTHDR"; cat /tmp/m.txt.hdr
echo "@@@ TEXT"; cat /tmp/m.txt
echo "@@@ TRACE"; cat /tmp/trace.txt
echo "@@@ ERR"; cat /tmp/n.err /tmp/kload.out
echo "@@@ END"
