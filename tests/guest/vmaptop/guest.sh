#!/bin/sh
# vmaptop guest test, inside the lab guest (busybox sh): vmaptop -b -z runs
# while the vmaptop_load module maps memory through five known callers;
# the last frame is printed between @@FRAME markers for run.sh to check.
KO=/opt/vmapscope/kmod/vmaptop_load.ko
OUT=/tmp/vmaptop.out
ERR=/tmp/vmaptop.err
LOOPS=${1:-50}

frames() { grep -c '^vmaptop [0-9]' $OUT; }
. /opt/vmapscope/lib/harness.sh
on_fail() {
	echo "---- vmaptop stderr:"; cat $ERR
	echo "---- vmaptop stdout:"; cat $OUT
}

[ -e $KO ] || die "$KO missing (lab kmod tests/guest/vmaptop/kmod)"
# -z: totals since start; -f: only the module's rows; frames every second
vmaptop -b -z -d 1 -n 120 -f vmaptop_load >$OUT 2>$ERR &
pid=$!

# The first frame means the collector is attached.
i=0
while [ "$(frames)" -lt 1 ]; do
	kill -0 $pid 2>/dev/null || die "vmaptop exited before its first frame"
	i=$((i + 1))
	[ $i -lt 600 ] || die "no first frame in 120 s"
	sleep 0.2
done

kload $KO loops=$LOOPS || die "loading vmaptop_load failed"

# Two complete frames after the load, so the last one holds everything.
want=$(($(frames) + 2))
i=0
while [ "$(frames)" -lt $want ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || die "vmaptop stopped printing frames"
	sleep 0.2
done
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] || die "vmaptop exited $rc after SIGINT"
[ ! -s $ERR ] || die "vmaptop wrote to stderr"

echo "@@FRAME-BEGIN"
awk '/^vmaptop [0-9]/ { n = 0 } { f[n++] = $0 } END { for (i = 0; i < n; i++) print f[i] }' $OUT
echo "@@FRAME-END"

# Removing the module frees its kept areas: nothing of it stays live.
rmmod vmaptop_load || die "rmmod vmaptop_load failed"
grep -q '\[vmaptop_load\]' /proc/vmallocinfo && die "areas of vmaptop_load still live after rmmod"
pass "vmaptop ran beside vmaptop_load, and its areas went with the module"
echo "@@GUEST-DONE"
finish
