#!/bin/sh
# Misuse of the internal mapping API (vmap_test mode=misuse), in a guest
# run of its own with "lab run --expect-warn": each step must produce
# exactly the number of WARNINGs it announces ("vmap_test: step NAME
# expect-warn N" ... "vmap_test: step NAME end"), no WARNING may appear
# outside a step, and no other kernel report (BUG, Oops, KASAN, UBSAN)
# anywhere.  The module's own checks (mappings after each misuse) must
# all pass.  With VMAP_PATCHES=N (a prefix of the series) the module
# announces that prefix's counts, and says "vmap_test: step NAME skipped:
# ..." for a step the prefix cannot run; every step runs or is skipped.
. "$(dirname "$0")/lib.sh"
dmesg -c >/dev/null
# tracefs sees the busy-block step's call too (from patch 8, which adds
# the events): vmap_mapped of a 64K vmap_page_range() with ret=-16, after
# the per-run events of what it wrote.  (Not in tracefs.sh: the step must
# warn, which only a --expect-warn run allows.)
ev=$T/events/vmalloc/vmap_mapped
EVENTS=
if [ -f $ev/enable ]; then
	for e in vmap_set_ptes vmap_huge_block vmap_granule vmap_mapped; do
		[ -f $T/events/vmalloc/$e/enable ] && EVENTS="$EVENTS $e"
	done
	echo >$T/trace
	for e in $EVENTS; do echo 1 >$T/events/vmalloc/$e/enable; done
fi
kload -e 11 "$KMOD" mode=misuse $VMAP_PATCHES_ARG
krc=$?
if [ -f $ev/enable ]; then
	for e in $EVENTS; do echo 0 >$T/events/vmalloc/$e/enable; done
	cat $T/trace >/tmp/misuse.trace
fi
dmesg >/tmp/misuse.dmesg
grep 'vmap_test: ' /tmp/misuse.dmesg | sed 's/^\[[^]]*\] //' >/tmp/vmap_test.misuse.log
grep -v '^vmap_test: ok  ' /tmp/vmap_test.misuse.log
echo "($(grep -c '^vmap_test: ok  ' /tmp/vmap_test.misuse.log) checks passed)"
summary=$(grep 'vmap_test: summary' /tmp/vmap_test.misuse.log)
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "vmap_test mode=misuse: $summary" ||
	fail "vmap_test mode=misuse: kload failed ($krc)" ;;
*) fail "vmap_test mode=misuse: ${summary:-no summary line}" ;;
esac

awk '
/vmap_test: step [a-z-]+ expect-warn [0-9]+$/ { step = $(NF - 2); want = $NF; n = 0; steps++; next }
/vmap_test: step [a-z-]+ skipped: / {
	sub(/^.*vmap_test: step /, ""); sub(/ skipped: /, ": "); print "SKIP: step " $0
	skipped++; next
}
/vmap_test: step [a-z-]+ end$/ {
	print (n == want ? "PASS" : "FAIL") ": step " step ": " n " WARNING(s), want " want
	step = ""; next
}
/WARNING:/ {
	if (step == "") print "FAIL: WARNING outside a step: " $0
	else { n++; print "  " $0 }
	next
}
/BUG:|kernel BUG|KASAN:|UBSAN:|Oops|Unable to handle|general protection/ { print "FAIL: kernel report: " $0 }
END { if (steps + skipped != 5) print "FAIL: " steps + 0 " steps ran and " skipped + 0 " skipped, want 5" }
' /tmp/misuse.dmesg >/tmp/misuse.steps
while IFS= read -r line; do
	case "$line" in
	"PASS: "*) pass "${line#PASS: }" ;;
	"FAIL: "*) fail "${line#FAIL: }" ;;
	"SKIP: "*) skip "${line#SKIP: }" ;;
	*) echo "$line" ;;
	esac
done </tmp/misuse.steps

# What the failed call wrote, not what the page tables held after it: on
# x86_64 the two 4K PTEs before the page in use at +8K, on arm64 nothing
# (the 64K block is refused whole).  v12 read the range back and counted
# the page at +8K, which was there before the call.
if [ -f /tmp/misuse.trace ]; then
	line=$(grep ' vmap_mapped: .* size=65536 api=ioremap .* ret=-16 ' /tmp/misuse.trace)
	echo "$line"
	case "$(uname -m)" in aarch64) want="pte=0 pte_block=0 pmd=0 pud=0 nr_runs=0" ;;
	*) want="pte=8192 pte_block=0 pmd=0 pud=0 nr_runs=1" ;; esac
	case "$line" in
	*" $want "*) pass "tracefs: busy-block's vmap_mapped reports ret=-EBUSY and what it wrote ($want)" ;;
	*) fail "tracefs: busy-block's vmap_mapped with ret=-16 and $want not found" ;;
	esac
	# The per-run events of that call (those of its task since the
	# task's previous vmap_mapped): exactly what it wrote, one run of
	# two 4K PTEs at the start of the range on x86_64, nothing on arm64;
	# no block, and no vmap_granule (the walk decided nothing it finished).
	runs=$(awk '
		{ task = $1 }
		/ vmap_mapped: / {
			if ($0 ~ / size=65536 api=ioremap .* ret=-16 /) {
				for (i = 1; i <= n[task]; i++) print held[task, i]
				exit
			}
			n[task] = 0; next
		}
		/ vmap_set_ptes: | vmap_huge_block: | vmap_granule: / {
			sub(/^.*: vmap_/, "vmap_"); held[task, ++n[task]] = $0
		}' /tmp/misuse.trace)
	addr=$(echo "$line" | sed -n 's/.* addr=\(0x[0-9a-f]*\) .*/\1/p')
	case "$(uname -m)" in aarch64) want_runs="" ;;
	*) want_runs=$(awk -v a="$addr" 'BEGIN { printf "vmap_set_ptes: addr=%s pfn=", a }') ;; esac
	nruns=$(printf '%s' "$runs" | grep -c .)
	if [ -z "$want_runs" ]; then
		[ "$nruns" = 0 ] && pass "tracefs: busy-block wrote no run, and no run or decision event precedes its vmap_mapped" ||
			fail "tracefs: busy-block's per-run events on arm64: $runs"
	else
		case "$nruns:$runs" in
		"1:$want_runs"*" nr_ptes=2 shift=12")
			pass "tracefs: busy-block's one run event: $runs" ;;
		*) fail "tracefs: busy-block's per-run events, want one 'vmap_set_ptes: addr=$addr ... nr_ptes=2 shift=12': ${runs:-none}" ;;
		esac
	fi
elif [ "${VMAP_PATCHES:-15}" -ge 8 ]; then
	fail "tracefs: no vmalloc:vmap_mapped event"
fi
check_lockdep
finish
