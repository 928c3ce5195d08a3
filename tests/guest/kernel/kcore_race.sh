#!/bin/sh
# /proc/kcore read while vmalloc areas of every granule are mapped and
# freed (debug kernels: KASAN, lockdep).  kcore-reader reads every area
# /proc/vmallocinfo lists through /proc/kcore in a loop while vmap_race
# (tests/kmod/vmap_race) maps order-9 and order-4 pages with vmap(),
# small areas with vmalloc() and 2M ones with vmalloc_huge() for
# RACE_SECS seconds (default 30), frees them and purges the lazily freed
# ranges, so that the reader's vread_iter() meets areas being mapped
# (VM_UNINITIALIZED), unmapped and reused at another granule.
# Passes when: the module checked every page of every area and ran at
# least RACE_MIN_ITERS iterations (default 100) with areas of each kind
# and pages at each granule (PMD, 4K, and on arm64 contiguous PTEs); the
# reader made at least RACE_MIN_PASSES passes (default 10) with no failed
# read and read bytes of the module's live areas; no area of the module
# is left; the kernel log holds no KASAN, WARN, BUG or Oops report (the
# lab's scan fails the run on one as well) and lockdep is still on.
# RACE_ARGS: more module parameters (inject_oob=1 shows that a KASAN
# report fails the run).
. "$(dirname "$0")/lib.sh"
RACE_KMOD=/opt/vmapscope/kmod/vmap_race.ko
SECS=${RACE_SECS:-30}
MIN_ITERS=${RACE_MIN_ITERS:-100}
MIN_PASSES=${RACE_MIN_PASSES:-10}
need kload kcore-reader
[ -r /proc/kcore ] || die "no /proc/kcore (kernel without PROC_KCORE?)"
[ -f $RACE_KMOD ] || die "no $RACE_KMOD (lab kmod tests/kmod/vmap_race)"

# The value of KEY=N in the line $1.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# /proc/vmallocinfo prints its addresses with %pK: hashed unless
# kptr_restrict is 1 (real addresses for a reader with CAP_SYSLOG).
echo 1 >/proc/sys/kernel/kptr_restrict || die "cannot set kernel.kptr_restrict"
stop=/tmp/kcore_race.stop
rm -f $stop
kcore-reader '[vmap_race]' $stop >/tmp/kcore_reader.out 2>/tmp/kcore_reader.err &
rpid=$!
sleep 1
kload -e 11 $RACE_KMOD secs=$SECS $RACE_ARGS
krc=$?
touch $stop
wait $rpid
rrc=$?
cat /tmp/kcore_reader.err

dmesg | grep 'vmap_race: ' | sed 's/^\[[^]]*\] //' >/tmp/vmap_race.log
grep -v 'vmap_race: start' /tmp/vmap_race.log
summary=$(grep 'vmap_race: summary' /tmp/vmap_race.log | tail -n 1)
[ -n "$summary" ] || die "no summary line from vmap_race (kload: $krc)"
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "vmap_race checked every page of every area ($SECS s)" ||
	fail "vmap_race: kload failed ($krc)" ;;
*) fail "vmap_race: page checks failed: $summary" ;;
esac
iters=$(field "$summary" iters)
[ "$iters" -ge "$MIN_ITERS" ] && pass "vmap_race ran $iters iterations (at least $MIN_ITERS)" ||
	fail "vmap_race ran $iters iterations, fewer than $MIN_ITERS"
for k in vmap9 vmap4 vmalloc huge purges pages_pmd pages_pte; do
	n=$(field "$summary" $k)
	[ "${n:-0}" -gt 0 ] && pass "vmap_race: $k=$n" || fail "vmap_race: $k=${n:-?}, none"
done
if [ "$(uname -m)" = aarch64 ]; then
	n=$(field "$summary" pages_cont)
	[ "${n:-0}" -gt 0 ] && pass "vmap_race: pages_cont=$n (arm64 contiguous PTEs)" ||
		fail "vmap_race: no page mapped with contiguous PTEs"
fi

reader=$(grep '^kcore-reader: ' /tmp/kcore_reader.out)
echo "$reader"
[ $rrc = 0 ] && [ -n "$reader" ] || fail "kcore-reader failed ($rrc)"
passes=$(field "$reader" passes)
[ "${passes:-0}" -ge "$MIN_PASSES" ] && pass "kcore-reader made $passes passes (at least $MIN_PASSES)" ||
	fail "kcore-reader made ${passes:-no} passes, fewer than $MIN_PASSES"
n=$(field "$reader" errors)
[ "$n" = 0 ] && pass "kcore-reader: no read failed" || fail "kcore-reader: $n reads failed"
n=$(field "$reader" live_bytes)
[ "${n:-0}" -gt 0 ] && pass "kcore-reader read $n bytes of vmap_race's live areas" ||
	fail "kcore-reader read nothing of vmap_race's live areas"

left=$(grep -c '\[vmap_race\]' /proc/vmallocinfo)
[ "$left" = 0 ] && pass "no vmap_race area left" || fail "$left vmap_race areas left in /proc/vmallocinfo"
reports=$(dmesg | grep -E 'KASAN|WARNING:|BUG:|Oops|Unable to handle|general protection' | head -n 5)
[ -z "$reports" ] && pass "kernel log clean (no KASAN, WARN, BUG or Oops report)" ||
	fail "kernel log holds a report: $reports"
check_lockdep
finish
