#!/bin/sh
# memory_failure() racing vfree() of the blocks of huge vmalloc() areas
# (debug kernels: KASAN, DEBUG_VM, lockdep).  vmap_poison
# (tests/kmod/vmap_poison) vfree()s vmalloc_huge() areas (2M: order-9
# blocks; arm64 also 1M: order-4 blocks) on CPU 0 while CPU 1 poisons a
# page of the block being freed with memory_failure(MF_SW_SIMULATED):
# after vfree(), after a random delay, or held by kprobes at the block's
# test in free_split_page_block() or between that test and the free.
# POISON_MAX pages (default 64) are poisoned, each lost to the guest.
# Passes when: the module's checks held (every poisoned page HWPoison and
# in no free buddy block once the per-CPU lists are drained, after each
# shot and at the end; no poisoned page in a later area or in a burst of
# order-9, -4 and -0 allocations down to the low watermark); every shot
# was made; the poison landed before the test, between the test and the
# free (with two CPUs), and after the free at least once each, and every
# held shot where it was aimed; HardwareCorrupted grew by the pages poisoned; the kernel
# log holds memory_failure()'s own lines and no report; lockdep is on;
# every window shot that memory_failure() ignored (it gave up before the
# free) was taken off the free lists, with its line, by the free path
# (free_split_page_block() tests the pages again after the free).
# POISON_ARGS: more module parameters (inject=1 frees a block with a
# poisoned page whole, inject=2 also with the allocator's new-page check
# off: each must fail the run; inject=3 holds the window shots' free
# until memory_failure() returned, so that it ignores every one of them:
# the run must pass, every such page taken off by the free path).
. "$(dirname "$0")/lib.sh"
POISON_KMOD=/opt/vmapscope/kmod/vmap_poison.ko
MAX=${POISON_MAX:-64}
need kload
[ -f $POISON_KMOD ] || die "no $POISON_KMOD (lab kmod tests/kmod/vmap_poison)"

# The value of KEY=N in the line $1.
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
corrupted_kb() { awk '$1 == "HardwareCorrupted:" { print $2 }' /proc/meminfo; }

kb0=$(corrupted_kb)
[ -n "$kb0" ] || die "no HardwareCorrupted in /proc/meminfo (kernel without MEMORY_FAILURE?)"
dmesg -c >/dev/null
start=$(date +%s)
kload -e 11 $POISON_KMOD max_poison=$MAX $POISON_ARGS
krc=$?
secs=$(($(date +%s) - start))
kb1=$(corrupted_kb)

dmesg >/tmp/poison_race.dmesg
grep 'vmap_poison: ' /tmp/poison_race.dmesg | sed 's/^\[[^]]*\] //' >/tmp/vmap_poison.log
grep -v 'vmap_poison: start' /tmp/vmap_poison.log
summary=$(grep 'vmap_poison: summary' /tmp/vmap_poison.log | tail -n 1)
[ -n "$summary" ] || die "no summary line from vmap_poison (kload: $krc)"
note "vmap_poison ran $secs s"
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "vmap_poison: no poisoned page free in the buddy allocator or handed out" ||
	fail "vmap_poison: kload failed ($krc)" ;;
*) fail "vmap_poison: checks failed: $summary" ;;
esac
for k in in_buddy handed_out; do
	n=$(field "$summary" $k)
	[ "$n" = 0 ] && pass "vmap_poison: $k=0" || fail "vmap_poison: $k=${n:-?}"
done
shots=$(field "$summary" shots)
[ "$shots" = "$MAX" ] && pass "vmap_poison made all $MAX shots" ||
	fail "vmap_poison made ${shots:-no} of $MAX shots"
# One CPU (the x86_64 debug guest) makes no shot between the test and
# the free: that needs the poisoner on a second CPU.
cpus=$(field "$summary" cpus)
landings="landed_check landed_after"
[ "$cpus" = 1 ] && skip "one CPU: no shot held at the test or between the test and the free" ||
	landings="$landings landed_window"
for k in $landings; do
	n=$(field "$summary" $k)
	[ "${n:-0}" -gt 0 ] && pass "vmap_poison: $k=$n" || fail "vmap_poison: $k=${n:-?}, none"
done

# A held shot lands where it was aimed: "SIZE aim=A: landed check=N
# window=N after=N other=N", every one of them under A's own name.
missed=$(sed -n -E 's/.* aim=(check|window|after): landed /\1 /p' /tmp/vmap_poison.log |
	awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] != $1) n += kv[2] } }
	     END { print n + 0 }')
[ "$missed" = 0 ] && pass "every held shot landed where it was aimed" ||
	fail "$missed held shots landed elsewhere"

# num_poisoned_pages counts every page memory_failure() marked (4 kB
# pages on the lab kernels).
injected=0
case " $POISON_ARGS " in *" inject="[12]" "*) injected=1 ;; esac
want=$(((${shots:-0} + injected) * 4))
[ $((kb1 - kb0)) = "$want" ] && pass "HardwareCorrupted grew by $want kB" ||
	fail "HardwareCorrupted grew by $((kb1 - kb0)) kB, want $want"

# memory_failure()'s own lines are no report; any other of its lines is
# one this test did not expect.
mf=$(grep -c 'Memory failure: ' /tmp/poison_race.dmesg)
other=$(grep 'Memory failure: ' /tmp/poison_race.dmesg |
	grep -v -E 'Memory failure: 0x[0-9a-f]+: (unhandlable page\.|taken off the free lists after its block was freed|recovery action for (get hwpoison page|free buddy page|high order kernel page): (Ignored|Recovered))$' |
	head -n 5)
[ -z "$other" ] && pass "kernel log: $mf lines of memory_failure(), all expected" ||
	fail "kernel log: unexpected memory_failure() lines: $other"
# A window shot that memory_failure() ignored gave up before the block
# was free: the free path's second test must have taken the page off,
# and said so, once per such page.
window_ignored=$(sed -n -E 's/^vmap_poison: landed window: memory_failure\(\) recovered=[0-9]+ ignored=([0-9]+) .*/\1/p' \
	/tmp/vmap_poison.log)
freed_off=$(grep -c 'taken off the free lists after its block was freed' /tmp/poison_race.dmesg)
[ -n "$window_ignored" ] || die "no 'landed window' line from vmap_poison"
# inject=3 holds the free of every shot aimed at the window past
# memory_failure(): each of those that landed there must be ignored by it,
# or the free path's recovery went untested.  A random shot that lands in
# the window is not held, and memory_failure() may recover it.
case " $POISON_ARGS " in *" inject=3 "*)
	aimed=$(sed -n -E 's/^vmap_poison: [0-9]+[KM] aim=window: landed check=[0-9]+ window=([0-9]+) .*/\1/p' \
		/tmp/vmap_poison.log | awk '{ n += $1 } END { print n + 0 }')
	if [ "$aimed" -gt 0 ]; then
		[ "$window_ignored" -ge "$aimed" ] &&
			pass "inject=3: the $aimed aimed window landings ignored by memory_failure() ($window_ignored of $(field "$summary" landed_window) window landings)" ||
			fail "inject=3: memory_failure() ignored $window_ignored window landings, fewer than the $aimed aimed ones"
	elif [ "$cpus" != 1 ]; then
		fail "inject=3: no shot aimed at the window landed there"
	fi ;;
esac
[ "$freed_off" = "$window_ignored" ] &&
	pass "window shots ignored by memory_failure(): $window_ignored, each taken off by the free path" ||
	fail "window shots ignored by memory_failure(): $window_ignored, taken off by the free path: $freed_off"
reports=$(grep -E 'KASAN|WARNING:|BUG:|Oops|Unable to handle|general protection|Bad page' /tmp/poison_race.dmesg | head -n 5)
[ -z "$reports" ] && pass "kernel log clean (no KASAN, WARN, BUG, bad page or Oops report)" ||
	fail "kernel log holds a report: $reports"
check_lockdep
finish
