#!/bin/sh
# vmap/vmalloc/vm_map_ram mappings: pages, data, granules, exact events;
# and what vfree() of a huge vmalloc() gives back, whole blocks or page by
# page (VMAP_MODE=vfree: those vfree() cases alone); then, with no free
# block of the order of arm64's 64K blocks left, a huge vmalloc() of two.
#
# On a kernel with the memory controller (the debug kernels), the module
# is loaded from a cgroup v2 group of its own with +memory (unless
# VMAP_MEMCG=0), for its memcg-charged vfree() cases; the group's vmalloc
# counter (memory.stat) must be back where it was after the run,
# memory.current within a charge batch per CPU.  With
# sysctl.vm.mem_profiling=1 on the command line, the module must have
# seen profiling on, and a second run that stays loaded must leave its
# vmalloc_huge() call site in /proc/allocinfo at 0 bytes and 0 calls.
# With page_owner=on, the module must have seen it, and
# /sys/kernel/debug/page_owner and page_owner_stacks/show_stacks must
# read; only without the memory cgroup: on 6.12 reading page_owner once a
# task has run in a memory cgroup below the root oopses in
# print_page_owner_memcg(), with or without this module.
# With nohugevmalloc on the command line, the module is told (nohuge=1)
# and expects vmap() and huge vmalloc() with 4K PTEs only; VMAP_NOHUGE=1
# says the run was booted for that, and fails it if the parameter did not
# reach the kernel.
# VMAP_PATCHES=N: the kernel carries patches 1..N of the series (0: stock
# 6.12), and the module expects that prefix's behaviour (lib.sh).
. "$(dirname "$0")/lib.sh"
MODE=${VMAP_MODE:-map}
CG=/sys/fs/cgroup
cmdline=$(cat /proc/cmdline)
nohuge=
case " $cmdline " in
*" nohugevmalloc "*) nohuge=nohuge=1; echo "nohugevmalloc: 4K PTEs only expected" ;;
*) [ "${VMAP_NOHUGE:-0}" = 0 ] || fail "VMAP_NOHUGE=1 but no nohugevmalloc in /proc/cmdline" ;;
esac

memcg=
[ "${VMAP_MEMCG:-1}" = 0 ] ||
if grep -q "^[^ ]* $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG 2>/dev/null; then
	if grep -qw memory $CG/cgroup.controllers; then
		if echo +memory >$CG/cgroup.subtree_control && mkdir -p $CG/vmap_test &&
			echo $$ >$CG/vmap_test/cgroup.procs; then
			memcg=$CG/vmap_test
		else
			fail "cannot move this shell into a memory cgroup ($CG/vmap_test)"
		fi
	else
		echo "no memory controller: the module skips its memcg cases"
	fi
fi
memstat() { awk -v k="$1" '$1 == k { print $2 }' $memcg/memory.stat; }
if [ -n "$memcg" ]; then
	vmalloc0=$(memstat vmalloc); current0=$(cat $memcg/memory.current)
fi

run_vmap_test "$MODE" $nohuge
# A huge vmalloc() while no block of its order is free (arm64; the module
# says "skipped" on x86_64).
[ "$MODE" != map ] || run_vmap_test nofree $nohuge

if [ -n "$memcg" ]; then
	vmalloc1=$(memstat vmalloc); current1=$(cat $memcg/memory.current)
	echo "memory cgroup: vmalloc $vmalloc0 -> $vmalloc1 bytes, memory.current $current0 -> $current1"
	[ -n "$vmalloc1" ] && [ "$vmalloc1" = "$vmalloc0" ] &&
		pass "the cgroup's vmalloc counter is back ($vmalloc1 bytes)" ||
		fail "the cgroup's vmalloc counter: $vmalloc0 -> $vmalloc1 bytes"
	# The module checks the charge page by page; this is the group as a
	# whole, where per-CPU charge stocks (64 pages each) may remain, and
	# where this script's own files in /tmp (tmpfs) are charged.
	slack=$(( 512 * 1024 + 64 * 4096 * $(grep -c '^processor' /proc/cpuinfo) ))
	d=$((current1 - current0))
	[ ${d#-} -le $slack ] && pass "memory.current within $slack bytes of its value before ($d)" ||
		fail "memory.current moved by $d bytes (slack $slack)"
	# (With nohugevmalloc the module skips its vfree() cases.)
	[ -n "$nohuge" ] ||
	grep -q 'vmap_test: ok   vfree .*memcg charged.*: vfree() freed' /tmp/vmap_test.$MODE.log ||
		fail "no memcg-charged vfree() case ran"
fi

case " $cmdline " in
*" sysctl.vm.mem_profiling=1 "*)
	[ "$(cat /proc/sys/vm/mem_profiling)" = 1 ] && pass "allocation profiling is on" ||
		fail "allocation profiling is off despite sysctl.vm.mem_profiling=1"
	grep -q 'vmap_test: ok   vfree .*(allocation profiling on).*: vfree() freed' \
		/tmp/vmap_test.$MODE.log && pass "the vfree() cases ran with profiling on" ||
		fail "no vfree() case ran with allocation profiling on"
	# The module's tags in /proc/allocinfo exist while it is loaded.
	run_vmap_test vfree stay=1
	grep '\[vmap_test\] func:run_vfree_case' /proc/allocinfo >/tmp/allocinfo.vfree
	cat /tmp/allocinfo.vfree
	if [ ! -s /tmp/allocinfo.vfree ]; then
		fail "no allocation tag of run_vfree_case() in /proc/allocinfo"
	elif awk '$1 != 0 || $2 != 0 { bad = 1 } END { exit !bad }' /tmp/allocinfo.vfree; then
		fail "run_vfree_case()'s allocations are not back to 0 bytes, 0 calls"
	else
		pass "run_vfree_case()'s allocations back to 0 bytes, 0 calls in /proc/allocinfo"
	fi
	rmmod vmap_test || fail "rmmod vmap_test"
	;;
esac

case " $cmdline " in
*" page_owner=on "*)
	if [ -n "$memcg" ]; then
		fail "page_owner=on with a memory cgroup: page_owner is not read (VMAP_MEMCG=0)"
		finish
	fi
	grep -q 'vmap_test: ok   vfree .*(page_owner on).*: vfree() freed' \
		/tmp/vmap_test.$MODE.log && pass "the vfree() cases ran with page_owner on" ||
		fail "no vfree() case ran with page_owner on"
	PO=/sys/kernel/debug/page_owner
	n=$(grep -c '^Page allocated via order' $PO)
	[ "${n:-0}" -gt 0 ] && pass "$PO reads: $n allocated blocks" ||
		fail "$PO: no allocated block read"
	n=$(grep -c '^nr_base_pages:' ${PO}_stacks/show_stacks)
	[ "${n:-0}" -gt 0 ] && pass "${PO}_stacks/show_stacks reads: $n stacks" ||
		fail "${PO}_stacks/show_stacks: no stack read"
	;;
esac
check_lockdep
finish
