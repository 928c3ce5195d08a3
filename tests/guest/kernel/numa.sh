#!/bin/sh
# vmalloc()'s node handling on a guest with two NUMA nodes (scripts/lab
# run --numa 2; the debug kernels have CONFIG_NUMA): vmap_numa
# (tests/kmod/vmap_numa) allocates on node NUMA_NID (default 1) with
# vmalloc_node(), __vmalloc_node_range() with VM_ALLOW_HUGE_VMAP and
# kvmalloc_node(), checks every page's node and granule, then does the
# huge ones again with node 1's blocks of order 4 and above taken: below
# 2M every page on node 1 in 4K PTEs, __GFP_THISNODE or not (a block
# below PMD size comes from the named node or not at all); 2M and 6M on
# node 1 with __GFP_THISNODE, and without it the node of each page is
# printed.  Then: the kernel log clean and lockdep still on.
. "$(dirname "$0")/lib.sh"
NUMA_KMOD=/opt/vmapscope/kmod/vmap_numa.ko
need kload
[ -f $NUMA_KMOD ] || die "no $NUMA_KMOD (lab kmod tests/kmod/vmap_numa)"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 2 ] && pass "$nodes NUMA nodes online" ||
	die "$nodes NUMA nodes online: boot with lab run --numa 2"
for n in /sys/devices/system/node/node[0-9]*; do
	note "$(basename $n): cpus [$(cat $n/cpulist)], $(awk '$3 == "MemTotal:" { print $4, $5 }' $n/meminfo)"
done

dmesg | grep -c . >/tmp/numa.dmesg0
kload -e 11 $NUMA_KMOD nid=${NUMA_NID:-1}
krc=$?
dmesg | sed -n "$(($(cat /tmp/numa.dmesg0) + 1)),\$p" | grep 'vmap_numa: ' |
	sed 's/^\[[^]]*\] //' >/tmp/vmap_numa.log
cat /tmp/vmap_numa.log
summary=$(grep 'vmap_numa: summary' /tmp/vmap_numa.log)
case "$summary" in
*" fail=0") [ $krc = 0 ] && pass "$summary" || fail "vmap_numa: kload failed ($krc)" ;;
*) fail "${summary:-vmap_numa: no summary line (kload: $krc)}" ;;
esac
reports=$(dmesg | grep -E 'KASAN|WARNING:|BUG:|Oops|Unable to handle|general protection' | head -n 5)
[ -z "$reports" ] && pass "kernel log clean (no KASAN, WARN, BUG or Oops report)" ||
	fail "kernel log holds a report: $reports"
check_lockdep
finish
