# Helpers for the guest-side kernel tests (busybox sh).  Sourced.
# pass, fail, finish: the harness every test script shares
. /opt/vmapscope/lib/harness.sh
KMOD=/opt/vmapscope/kmod/vmap_test.ko
T=/sys/kernel/tracing
# VMAP_PATCHES=N: the kernel carries patches 1..N of the series (0: stock
# 6.12); the module then expects that prefix's behaviour (its parameter
# "patches", default the whole series).
VMAP_PATCHES_ARG=${VMAP_PATCHES:+patches=$VMAP_PATCHES}

# run_vmap_test MODE [PARAMS...]: load the test module once (it unloads
# itself with -EAGAIN when every check passed; with stay=1 it stays
# loaded), show its log lines, and fail unless its summary line reports no
# failure.
run_vmap_test() {
	mode=$1; shift
	dmesg -c >/dev/null
	case " $* " in
	*" stay=1 "*) kload "$KMOD" mode="$mode" $VMAP_PATCHES_ARG "$@" ;;
	*) kload -e 11 "$KMOD" mode="$mode" $VMAP_PATCHES_ARG "$@" ;;
	esac
	krc=$?
	dmesg | grep 'vmap_test: ' | sed 's/^\[[^]]*\] //' >/tmp/vmap_test.$mode.log
	grep -v '^vmap_test: ok  ' /tmp/vmap_test.$mode.log
	echo "($(grep -c '^vmap_test: ok  ' /tmp/vmap_test.$mode.log) checks passed)"
	summary=$(grep 'vmap_test: summary' /tmp/vmap_test.$mode.log)
	case "$summary" in
	*" fail=0") [ $krc = 0 ] && pass "vmap_test mode=$mode: $summary" ||
		fail "vmap_test mode=$mode: kload failed ($krc)" ;;
	*) fail "vmap_test mode=$mode: ${summary:-no summary line}" ;;
	esac
}

# check_lockdep: on a kernel with lockdep (the debug kernels), lockdep must
# still be on when the run ends.  Every lockdep report turns it off for
# good: circular or recursive locking, a bad unlock balance, an
# inconsistent lock state, and a lock with a non-static key, which only
# says "INFO: trying to register non-static key." (the reports that say
# "WARNING:" or "BUG:", and DEBUG_ATOMIC_SLEEP's "BUG: sleeping function
# called from invalid context", fail the lab's log scan as well).
check_lockdep() {
	[ -r /proc/lockdep_stats ] || return 0
	on=$(awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats)
	if [ "$on" = 1 ]; then
		pass "lockdep is still on: no lock report"
	else
		dmesg | grep -E -m3 'WARNING: .*(lock|dependency)|INFO: .*(lock|key)|BUG: .*(lock|context)'
		fail "lockdep turned itself off (debug_locks=${on:-?}): a lockdep report in the kernel log"
	fi
}
