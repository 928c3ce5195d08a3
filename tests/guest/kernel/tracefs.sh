#!/bin/sh
# The vmalloc tracepoints as a standard consumer sees them: tracefs formats
# as documented in docs/tracepoints.md, and trace_pipe-style text holding
# exactly the events the test module recorded through its own probes.
. "$(dirname "$0")/lib.sh"
E=$T/events/vmalloc

# field EVENT DECL: the format file declares the field.
field() {
	grep -q "field:$2;" $E/$1/format && pass "$1 has field '$2'" ||
		fail "$1 lacks field '$2': $(grep field: $E/$1/format | tr '\n' ' ')"
}
for ev in vmap_chunk vmap_set_ptes vmap_huge_block; do
	[ -f $E/$ev/format ] && pass "event vmalloc:$ev exists" || fail "no event vmalloc:$ev"
done
field vmap_chunk	"unsigned long addr"
field vmap_chunk	"unsigned long pfn"
field vmap_chunk	"unsigned long nr_pages"
field vmap_chunk	"const void \* caller"
field vmap_chunk	"unsigned int shift"
field vmap_chunk	"unsigned int api"
field vmap_set_ptes	"unsigned long addr"
field vmap_set_ptes	"unsigned long pfn"
field vmap_set_ptes	"unsigned long size"
field vmap_set_ptes	"unsigned int nr_ptes"
field vmap_set_ptes	"unsigned int shift"
field vmap_huge_block	"unsigned long addr"
field vmap_huge_block	"unsigned long pfn"
field vmap_huge_block	"unsigned long size"
field vmap_huge_block	"unsigned int shift"
grep -q 'print fmt: "addr=0x%lx pfn=0x%lx nr_pages=%lu shift=%u api=%s caller=%pS"' $E/vmap_chunk/format &&
	pass "vmap_chunk print format" || fail "vmap_chunk print format: $(grep 'print fmt' $E/vmap_chunk/format)"

# Trace a run of the test module; it prints how many events its own
# probes recorded ("vmap_test: recorded chunk=A set_ptes=B huge=C").
echo 0 >$T/tracing_on
echo 4096 >$T/buffer_size_kb
echo >$T/trace
for ev in vmap_chunk vmap_set_ptes vmap_huge_block; do echo 1 >$E/$ev/enable; done
echo 1 >$T/tracing_on
# stay=1: the module stays loaded while the trace is read, so that %pS
# still resolves callers inside it; it is removed afterwards.
run_vmap_test map stay=1
echo 0 >$T/tracing_on
for ev in vmap_chunk vmap_set_ptes vmap_huge_block; do echo 0 >$E/$ev/enable; done

cat $T/trace >/tmp/trace.txt
rmmod vmap_test
rec=$(grep 'vmap_test: recorded' /tmp/vmap_test.map.log)
echo "module: $rec"
# The module's events are those of the loading task from its first
# vmap_chunk whose caller is in the module on (module loading itself maps
# memory first, through execmem).
pid=$(grep -m1 'vmap_chunk: .*\[vmap_test\]' /tmp/trace.txt | sed -n 's/^ *kload-\([0-9]*\) .*/\1/p')
if [ -z "$pid" ]; then
	fail "no vmap_chunk from the test module in the trace"
else
	awk -v pid="$pid" '$1 == "kload-" pid && /vmap_chunk: .*\[vmap_test\]/ {on = 1} on && $1 == "kload-" pid' \
		/tmp/trace.txt >/tmp/trace.mod
	c=$(grep -c ' vmap_chunk: ' /tmp/trace.mod)
	s=$(grep -c ' vmap_set_ptes: ' /tmp/trace.mod)
	h=$(grep -c ' vmap_huge_block: ' /tmp/trace.mod)
	echo "trace: chunk=$c set_ptes=$s huge=$h"
	case "$rec" in
	*"recorded chunk=$c set_ptes=$s huge=$h") pass "trace holds exactly the events the module recorded" ;;
	*) fail "trace (chunk=$c set_ptes=$s huge=$h) differs from the module's '$rec'" ;;
	esac
	lost=$(grep -c 'LOST' /tmp/trace.txt)
	[ "$lost" = 0 ] || fail "trace buffer overflowed ($lost LOST lines)"
	echo "example lines:"
	for ev in vmap_chunk vmap_set_ptes vmap_huge_block; do
		grep -m2 " $ev: " /tmp/trace.mod
	done
	grep -m1 ' vmap_set_ptes: .*shift=16' /tmp/trace.mod
	grep -m1 ' vmap_chunk: .*api=vmalloc' /tmp/trace.mod
	grep -m1 ' vmap_chunk: .*api=vm_map_ram' /tmp/trace.mod
fi

# perf, when the guest carries it: the same module run through perf
# record/script must show as many vmap() calls (one vmap_chunk each) and PMD blocks.
if command -v perf >/dev/null 2>&1 && [ -f /tmp/trace.mod ]; then
	want_c=$(grep -c ' vmap_chunk: .*api=vmap ' /tmp/trace.mod)
	want_h=$(grep -c ' vmap_huge_block: ' /tmp/trace.mod)
	perf record -q -a -o /tmp/perf.data -e vmalloc:vmap_chunk -e vmalloc:vmap_set_ptes \
		-e vmalloc:vmap_huge_block -- kload -e 11 "$KMOD" mode=map events=0 >/dev/null 2>&1
	perf script -i /tmp/perf.data 2>/dev/null | grep '^ *kload ' >/tmp/perf.txt
	got_c=$(grep -c 'vmap_chunk: .*api=vmap ' /tmp/perf.txt)
	got_h=$(grep -c 'vmap_huge_block: ' /tmp/perf.txt)
	grep -m1 'vmap_huge_block: ' /tmp/perf.txt
	[ "$got_c" = "$want_c" ] && [ "$got_h" = "$want_h" ] &&
		pass "perf script: $got_c vmap() chunks and $got_h PMD blocks, as in tracefs" ||
		fail "perf script: $got_c vmap() chunks / $got_h PMD blocks, tracefs had $want_c / $want_h"
else
	echo "SKIP: perf not in the guest (scripts/build-perf)"
fi
finish
