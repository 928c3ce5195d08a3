#!/bin/sh
# lib/test_vmalloc on the debug variant (KASAN + DEBUG_VM): every sub-test
# that passes on stock 6.12 (mask 0x7bf: align_shift_alloc_test asks for
# alignments up to 2^63 and fails by construction), plain and with huge
# vmalloc at 16, 256 and 512 pages.  The lab fails the run on any
# WARN/BUG/KASAN report in the kernel log.
. "$(dirname "$0")/lib.sh"
TV=$(find /lib/modules -name test_vmalloc.ko | head -n 1)
[ -n "$TV" ] || { fail "test_vmalloc.ko not found"; finish; }
LOOPS=${LOOPS:-1000}

# tv DESC PARAMS...: one test_vmalloc run; every "Summary:" line must say
# "failed: 0" and there must be as many as sub-tests were asked for.
tv() {
	desc=$1; shift
	dmesg -c >/dev/null
	kload -e 11 "$TV" nr_threads=2 test_repeat_count=1 test_loop_count=$LOOPS "$@" >/dev/null
	dmesg | grep 'Summary:' >/tmp/tv.sum
	n=$(wc -l </tmp/tv.sum)
	bad=$(grep -vc 'failed: 0' /tmp/tv.sum)
	if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
		pass "test_vmalloc $desc: $n sub-test summaries, none failed"
	else
		fail "test_vmalloc $desc: $n summaries, $bad with failures"
		cat /tmp/tv.sum
	fi
}
tv "mask 0x7bf" run_test_mask=0x7bf
for np in 16 256 512; do
	tv "mask 0x7bf use_huge=1 nr_pages=$np" run_test_mask=0x7bf use_huge=1 nr_pages=$np
done
check_lockdep
finish
