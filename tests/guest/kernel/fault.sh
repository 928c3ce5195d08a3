#!/bin/sh
# Fault injection (debug variant): fail_page_alloc armed for the test
# module's task only (task-filter + make-it-fail set by the module around
# each vmap()/vmalloc()).  Calls must fail cleanly or map correctly, and
# nothing may leak: no vmap area of the module in /proc/vmallocinfo,
# VmallocUsed back to its value before the run (after a warm-up run),
# MemFree within the KASAN quarantine's bound + 8 MiB.
. "$(dirname "$0")/lib.sh"
F=/sys/kernel/debug/fail_page_alloc
[ -d $F ] || { fail "no $F (kernel without FAIL_PAGE_ALLOC?)"; finish; }

meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
settle() { echo 3 >/proc/sys/vm/drop_caches; sleep 1; }

# Warm-up: the same run with injection off first.  Forks and module loads
# leave state behind that is not a leak (cached vmalloc'ed thread stacks
# count in VmallocUsed, the KASAN quarantine holds freed objects), so the
# baseline is taken after one such cycle.
kload "$KMOD" mode=map >/dev/null 2>&1
rmmod vmap_test 2>/dev/null
settle
used0=$(meminfo VmallocUsed); free0=$(meminfo MemFree)
echo 0 >$F/probability
echo 1 >$F/task-filter
echo 0 >$F/min-order
echo N >$F/ignore-gfp-wait
echo N >$F/ignore-gfp-highmem
echo 0 >$F/verbose
echo 1 >$F/interval
echo -1 >$F/times
echo 0 >$F/space
echo 10 >$F/probability

dmesg -c >/dev/null
kload "$KMOD" mode=fault iters=${ITERS:-60}
krc=$?
echo 0 >$F/probability
dmesg | grep 'vmap_test: ' | sed 's/^\[[^]]*\] //' >/tmp/vmap_test.fault.log
grep -E 'vmap_test: (FAIL|summary|ok   fault: injection)' /tmp/vmap_test.fault.log
summary=$(grep 'vmap_test: summary' /tmp/vmap_test.fault.log)
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "fault run: $summary" || fail "fault run: kload failed ($krc)" ;;
*) fail "fault run: ${summary:-no summary line}" ;;
esac

leaked=$(grep -c '\[vmap_test\]' /proc/vmallocinfo)
[ "$leaked" = 0 ] && pass "no vmap area of the module left in /proc/vmallocinfo" || {
	fail "$leaked vmap areas of the module left in /proc/vmallocinfo"
	grep '\[vmap_test\]' /proc/vmallocinfo | head -n 5
}
rmmod vmap_test 2>/dev/null
settle
used1=$(meminfo VmallocUsed); free1=$(meminfo MemFree)
echo "VmallocUsed ${used0} -> ${used1} kB, MemFree ${free0} -> ${free1} kB"
[ "$used1" = "$used0" ] && pass "VmallocUsed unchanged" || fail "VmallocUsed changed: ${used0} -> ${used1} kB"
# MemFree is only a coarse check under KASAN: freed slab objects wait in
# the KASAN quarantine (at most 1/32 of RAM) and freed pages on per-CPU
# lists, neither counted as free.  VmallocUsed above is the exact check.
slack=$(( $(meminfo MemTotal) / 32 + 8192 ))
[ $((free0 - free1)) -lt $slack ] && pass "MemFree within $slack kB of its value before" ||
	fail "MemFree dropped by $((free0 - free1)) kB (slack $slack kB)"
finish
