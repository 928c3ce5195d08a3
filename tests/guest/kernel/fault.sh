#!/bin/sh
# Fault injection (debug variant): fail_page_alloc armed for the test
# module's task only (task-filter + make-it-fail set by the module around
# each vmap()/vmalloc()).  Calls must fail cleanly or map correctly, and
# nothing may leak: no vmap area of the module in /proc/vmallocinfo, the
# vmalloc'ed pages outside thread stacks and kprobe slots back to their
# count before the run (after a warm-up run), free memory (MemFree and the per-CPU lists)
# within the KASAN quarantine's bound + 8 MiB.  Then a huge vmalloc()
# whose allocator refuses blocks after the first (vmap_test
# mode=fallback), and one whose allocator then refuses order-0 pages too
# (mode=fallback-fail), inside the same leak accounting.
. "$(dirname "$0")/lib.sh"
F=/sys/kernel/debug/fail_page_alloc
[ -d $F ] || { fail "no $F (kernel without FAIL_PAGE_ALLOC?)"; finish; }

meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }
# Free memory in kB: MemFree plus the pages waiting on the per-CPU lists,
# which MemFree leaves out.  Those lists hold up to tens of MiB (pcp
# "high"), and with THP they also take whole PMD-sized blocks, which
# vfree() of a huge area now gives back whole.
free_kb() {
	awk -v pk=$(($(getconf PAGESIZE 2>/dev/null || echo 4096) / 1024)) -v mf="$(meminfo MemFree)" \
		'$1 == "count:" { n += $2 } END { print mf + n * pk }' /proc/zoneinfo
}
settle() { echo 3 >/proc/sys/vm/drop_caches; sleep 1; }
# Pages of the vmalloc areas in /proc/vmallocinfo, apart from thread
# stacks (CONFIG_VMAP_STACK): kworkers come and go on their own, and each
# takes or frees a stack (32 KiB under KASAN), so VmallocUsed moves
# without any leak (measured: 1516 -> 1484 kB across one run).  The
# stack allocation is inlined into kernel_clone/fork_idle on 6.12;
# naming the whole chain keeps this right if it is not.  Counted with
# them: the kprobes' instruction-slot pages (alloc_insn_page), which the
# slot cache keeps after the module's probes are gone (x86_64: two pages
# after mode=fallback-fail's kretprobe, measured).
STACK_CALLERS='^(kernel_clone|copy_process|dup_task_struct|alloc_thread_stack_node|fork_idle|alloc_insn_page)\+'
vmalloc_pages() {
	awk -v stack="$STACK_CALLERS" '
		{ for (i = 4; i <= NF; i++) if ($i ~ /^pages=/) {
			n = substr($i, 7)
			if ($3 ~ stack) st += n; else other += n
		} }
		END { printf "%d %d\n", other, st }' /proc/vmallocinfo
}

# Warm-up: the same run with injection off first.  Forks and module loads
# leave state behind that is not a leak (cached vmalloc'ed thread stacks
# count in VmallocUsed, the KASAN quarantine holds freed objects), so the
# baseline is taken after one such cycle.
kload "$KMOD" mode=map >/dev/null 2>&1
rmmod vmap_test 2>/dev/null
settle
used0=$(meminfo VmallocUsed); free0=$(free_kb)
set -- $(vmalloc_pages); pages0=$1 stack0=$2
# The areas outside thread stacks and kprobe slots (caller and pages), to
# name what changed.
vmalloc_areas() {
	awk -v stack="$STACK_CALLERS" '$3 !~ stack { for (i = 4; i <= NF; i++) if ($i ~ /^pages=/) print $3, $i }' \
		/proc/vmallocinfo | sort
}
vmalloc_areas >/tmp/vmalloc_areas.0
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

# A huge vmalloc() that runs out of blocks: fail_page_alloc lets this
# task have one block of the area's order (space: 2^order pages + 1),
# then refuses the others; order-0 pages are never refused (min-order).
case $(uname -m) in
aarch64) order=4 ;;	# 64K contiguous PTEs
*) order=9 ;;		# PMD
esac
echo $order >$F/min-order
echo $(((1 << order) + 1)) >$F/space
echo 100 >$F/probability
dmesg -c >/dev/null
kload -e 11 "$KMOD" mode=fallback
krc=$?
echo 0 >$F/probability
echo 0 >$F/space
echo 0 >$F/min-order
dmesg | grep 'vmap_test: ' | sed 's/^\[[^]]*\] //' | grep -E 'vmap_test: (ok|FAIL|summary)'
summary=$(dmesg | grep 'vmap_test: summary')
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "fallback run: $summary" || fail "fallback run: kload failed ($krc)" ;;
*) fail "fallback run: ${summary:-no summary line}" ;;
esac

# The same vmalloc() with __GFP_RETRY_MAYFAIL while order-0 pages are
# refused too (min-order 0; the module marks the task make-it-fail only
# inside its page-allocation passes): it must fail after one order-0
# pass, in one vmap area.
echo 0 >$F/min-order
echo $(((1 << order) + 1)) >$F/space
echo 100 >$F/probability
dmesg -c >/dev/null
kload -e 11 "$KMOD" mode=fallback-fail
krc=$?
echo 0 >$F/probability
echo 0 >$F/space
dmesg | grep 'vmap_test: ' | sed 's/^\[[^]]*\] //' | grep -E 'vmap_test: (ok|FAIL|summary)'
summary=$(dmesg | grep 'vmap_test: summary')
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "fallback-fail run: $summary" || fail "fallback-fail run: kload failed ($krc)" ;;
*) fail "fallback-fail run: ${summary:-no summary line}" ;;
esac

settle
used1=$(meminfo VmallocUsed); free1=$(free_kb)
set -- $(vmalloc_pages); pages1=$1 stack1=$2
echo "VmallocUsed ${used0} -> ${used1} kB (thread stacks and kprobe slots ${stack0} -> ${stack1} pages), free (MemFree + per-CPU lists) ${free0} -> ${free1} kB"
[ "$pages0" -gt 0 ] || fail "no vmalloc pages counted in /proc/vmallocinfo (format changed?)"
[ "$pages1" = "$pages0" ] && pass "vmalloc'ed pages outside thread stacks and kprobe slots unchanged ($pages0)" ||
	{ fail "vmalloc'ed pages outside thread stacks and kprobe slots changed: $pages0 -> $pages1"
	  vmalloc_areas >/tmp/vmalloc_areas.1
	  echo "areas outside thread stacks and kprobe slots, before (<) and after (>):"
	  awk 'NR == FNR { a[$0]++; next } { if (a[$0]) a[$0]--; else print "> " $0 }
	       END { for (k in a) for (; a[k] > 0; a[k]--) print "< " k }' \
		/tmp/vmalloc_areas.0 /tmp/vmalloc_areas.1; }
# Free memory is only a coarse check under KASAN: freed slab objects wait
# in the KASAN quarantine (at most 1/32 of RAM), not counted as free.  The
# page count above is the exact check.
slack=$(( $(meminfo MemTotal) / 32 + 8192 ))
[ $((free0 - free1)) -lt $slack ] && pass "free memory within $slack kB of its value before" ||
	fail "free memory dropped by $((free0 - free1)) kB (slack $slack kB)"
check_lockdep
finish
