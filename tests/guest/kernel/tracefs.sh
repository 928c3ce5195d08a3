#!/bin/sh
# The vmalloc tracepoints as a standard consumer sees them: tracefs formats
# as documented in docs/tracepoints.md, and trace_pipe-style text holding
# exactly the events the test module recorded through its own probes; each
# vmap_mapped consistent with the runs of its call and with the module's
# walk of the page tables, also when it is the only event enabled.
. "$(dirname "$0")/lib.sh"
E=$T/events/vmalloc

# field EVENT DECL: the format file declares the field.
field() {
	grep -q "field:$2;" $E/$1/format && pass "$1 has field '$2'" ||
		fail "$1 lacks field '$2': $(grep field: $E/$1/format | tr '\n' ' ')"
}
for ev in vmap_set_ptes vmap_huge_block vmap_mapped; do
	[ -f $E/$ev/format ] && pass "event vmalloc:$ev exists" || fail "no event vmalloc:$ev"
done
# v8's patch 12 added vmap_chunk; v9 dropped it (docs/tracepoints.md).
[ ! -e $E/vmap_chunk ] && pass "no event vmalloc:vmap_chunk" || fail "vmalloc:vmap_chunk exists (v8's patch 12)"
field vmap_set_ptes	"unsigned long addr"
field vmap_set_ptes	"unsigned long pfn"
field vmap_set_ptes	"unsigned long size"
field vmap_set_ptes	"unsigned int nr_ptes"
field vmap_set_ptes	"unsigned int shift"
field vmap_huge_block	"unsigned long addr"
field vmap_huge_block	"unsigned long pfn"
field vmap_huge_block	"unsigned long size"
field vmap_huge_block	"unsigned int shift"
for f in "unsigned long addr" "unsigned long size" "const void \* caller" "unsigned long pte" \
	"unsigned long cont" "unsigned long pmd" "unsigned long pud" "u64 ns" "unsigned int nr_runs" \
	"unsigned int api" "int ret"; do
	field vmap_mapped "$f"
done
grep -q 'print fmt: "addr=0x%lx size=%lu api=%s pte=%lu cont=%lu pmd=%lu pud=%lu nr_runs=%u ret=%d ns=%llu caller=%pS"' $E/vmap_mapped/format &&
	pass "vmap_mapped print format" || fail "vmap_mapped print format: $(grep 'print fmt' $E/vmap_mapped/format)"

# v(NAME): the value of " NAME=" in the current line (awk).
AWKV='function v(k) { return match($0, " " k "=[^ ]+") ? substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "" }'

# Trace a run of the test module; it prints how many events its own
# probes recorded ("vmap_test: recorded set_ptes=A huge=B mapped=C"),
# and for each vmap_mapped event it checked, the bytes per granule a walk
# of the page tables found in its range ("vmap_test: walk addr= ns= pte=
# cont= pmd= pud=").
echo 0 >$T/tracing_on
echo 4096 >$T/buffer_size_kb
echo >$T/trace
for ev in vmap_set_ptes vmap_huge_block vmap_mapped; do echo 1 >$E/$ev/enable; done
echo 1 >$T/tracing_on
# stay=1: the module stays loaded while the trace is read, so that %pS
# still resolves callers inside it; it is removed afterwards.
run_vmap_test map stay=1
echo 0 >$T/tracing_on
for ev in vmap_set_ptes vmap_huge_block vmap_mapped; do echo 0 >$E/$ev/enable; done

cat $T/trace >/tmp/trace.txt
rmmod vmap_test
rec=$(grep 'vmap_test: recorded' /tmp/vmap_test.map.log)
echo "module: $rec"
# The module's events are those of the loading task from the first call
# whose vmap_mapped names a caller in the module on: that call's runs and
# blocks come before its vmap_mapped, after the vmap_mapped of the task's
# previous call (module loading itself maps memory first, through execmem).
pid=$(grep -m1 'vmap_mapped: .*\[vmap_test\]' /tmp/trace.txt | sed -n 's/^ *kload-\([0-9]*\) .*/\1/p')
if [ -z "$pid" ]; then
	fail "no vmap_mapped from the test module in the trace"
else
	awk -v pid="$pid" '$1 != "kload-" pid { next }
		on { print; next }
		{ held = held $0 "\n" }
		/ vmap_mapped: .*\[vmap_test\]/ { on = 1; printf "%s", held; next }
		/ vmap_mapped: / { held = "" }' /tmp/trace.txt >/tmp/trace.mod
	s=$(grep -c ' vmap_set_ptes: ' /tmp/trace.mod)
	h=$(grep -c ' vmap_huge_block: ' /tmp/trace.mod)
	m=$(grep -c ' vmap_mapped: ' /tmp/trace.mod)
	echo "trace: set_ptes=$s huge=$h mapped=$m"
	case "$rec" in
	*"recorded set_ptes=$s huge=$h mapped=$m") pass "trace holds exactly the events the module recorded" ;;
	*) fail "trace (set_ptes=$s huge=$h mapped=$m) differs from the module's '$rec'" ;;
	esac
	# Each vmap_mapped carries the bytes per granule and the number of the
	# vmap_set_ptes / vmap_huge_block events of its call, which come just
	# before it in the same task; a call that succeeded maps its whole range.
	r=$(awk "$AWKV"'
		/ vmap_set_ptes: / { b[v("shift") == 12 ? 0 : 1] += v("size"); runs++ }
		/ vmap_huge_block: / { b[v("shift") == 21 ? 2 : 3] += v("size"); runs++ }
		/ vmap_mapped: / {
			calls++
			if (v("pte") + 0 != b[0] || v("cont") + 0 != b[1] || v("pmd") + 0 != b[2] ||
			    v("pud") + 0 != b[3] || v("nr_runs") + 0 != runs) {
				bad++
				print "MISMATCH (runs " b[0] "/" b[1] "/" b[2] "/" b[3] " in " runs "): " $0 >"/dev/stderr"
			}
			if (v("ret") == 0 && v("pte") + v("cont") + v("pmd") + v("pud") != v("size")) {
				bad++
				print "NOT WHOLE: " $0 >"/dev/stderr"
			}
			if (v("ret") != 0 || v("ns") == 0 || v("api") == "") {
				bad++
				print "RESULT/TIME: " $0 >"/dev/stderr"
			}
			if (v("cont") > 0) cont++
			if (v("pmd") > 0) pmd++
			b[0] = b[1] = b[2] = b[3] = 0
			runs = 0
		}
		END { print calls + 0, bad + 0, cont + 0, pmd + 0 }' /tmp/trace.mod)
	set -- $r
	echo "vmap_mapped: $1 calls, $3 with PTE-level blocks, $4 with PMD blocks"
	[ "$1" -gt 0 ] && [ "$2" = 0 ] &&
		pass "vmap_mapped: bytes per granule and runs equal its vmap_set_ptes/vmap_huge_block events, whole range, ret 0, ns > 0 ($1 calls)" ||
		fail "vmap_mapped: $2 of $1 calls inconsistent with their runs"
	[ "$4" -gt 0 ] && pass "vmap_mapped: PMD blocks reported" || fail "vmap_mapped: no call with PMD blocks"
	if [ "$(uname -m)" = aarch64 ]; then
		[ "$3" -gt 0 ] && pass "vmap_mapped: contiguous-PTE blocks reported" ||
			fail "vmap_mapped: no call with contiguous-PTE blocks"
	fi
	# The module's own walk of the page tables, per vmap_mapped it checked.
	r=$(awk "$AWKV"'
		FNR == NR {
			if (/ walk addr=/) { w[v("addr") " " v("ns")] = v("pte") " " v("cont") " " v("pmd") " " v("pud"); nw++ }
			next
		}
		/ vmap_mapped: / {
			k = v("addr") " " v("ns")
			if (!(k in w)) next
			seen++
			if (w[k] != v("pte") " " v("cont") " " v("pmd") " " v("pud")) {
				bad++
				print "WALK " w[k] ": " $0 >"/dev/stderr"
			}
		}
		END { print nw + 0, seen + 0, bad + 0 }' /tmp/vmap_test.map.log /tmp/trace.mod)
	set -- $r
	[ "$1" -gt 0 ] && [ "$2" = "$1" ] && [ "$3" = 0 ] &&
		pass "vmap_mapped: bytes per granule in tracefs equal the module's page-table walk ($1 calls)" ||
		fail "vmap_mapped: $1 walks, $2 found in the trace, $3 differ"
	lost=$(grep -c 'LOST' /tmp/trace.txt)
	[ "$lost" = 0 ] || fail "trace buffer overflowed ($lost LOST lines)"
	echo "example lines:"
	for ev in vmap_set_ptes vmap_huge_block vmap_mapped; do
		grep -m2 " $ev: " /tmp/trace.mod
	done
	grep -m1 ' vmap_set_ptes: .*shift=16' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*api=vmalloc' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*api=vm_map_ram' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*cont=[1-9]' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*pmd=[1-9]' /tmp/trace.mod
fi

# One event per call: vmap_mapped alone (no per-run event enabled), the
# module's own probes off.  The bytes come from the same read-back; every
# call of the module maps its whole range, with at least one run.
echo >$T/trace
echo 1 >$E/vmap_mapped/enable
echo 1 >$T/tracing_on
run_vmap_test map events=0 stay=1
echo 0 >$T/tracing_on
echo 0 >$E/vmap_mapped/enable
cat $T/trace >/tmp/trace2.txt
rmmod vmap_test
r=$(awk "$AWKV"'
	/ vmap_set_ptes: | vmap_huge_block: / { other++ }
	/ vmap_mapped: .*\[vmap_test\]/ {
		calls++
		if (v("ret") != 0 || v("nr_runs") == 0 || v("ns") == 0 ||
		    v("pte") + v("cont") + v("pmd") + v("pud") != v("size")) {
			bad++
			print "BAD: " $0 >"/dev/stderr"
		}
	}
	END { print calls + 0, bad + 0, other + 0 }' /tmp/trace2.txt)
set -- $r
[ "$1" -gt 0 ] && [ "$2" = 0 ] && [ "$3" = 0 ] &&
	pass "vmap_mapped alone: $1 calls of the module, each whole, ret 0, runs and time, no other event" ||
	fail "vmap_mapped alone: $1 calls, $2 bad, $3 other events"
n1=$(grep -c ' vmap_mapped: .*\[vmap_test\]' /tmp/trace.mod 2>/dev/null)
[ "$1" = "$n1" ] && pass "vmap_mapped alone: as many module calls as with every event on ($n1)" ||
	fail "vmap_mapped alone: $1 module calls, $n1 with every event on"

# perf, when the guest carries it: the same module run through perf
# record/script must show the loading task's PMD blocks exactly as the module
# recorded them in that run (how many aligned 2M runs the allocator hands
# out differs from one run to the next), and as many vmap() calls (one
# vmap_mapped each) as the tracefs run.  perf gets 16M per CPU: the map mode
# emits thousands of vmap_set_ptes events in bursts.
if command -v perf >/dev/null 2>&1 && [ -f /tmp/trace.mod ]; then
	want_c=$(grep -c ' vmap_mapped: .*api=vmap ' /tmp/trace.mod)
	dmesg -c >/dev/null
	perf record -q -a -m 16M -o /tmp/perf.data -e vmalloc:vmap_mapped -e vmalloc:vmap_set_ptes \
		-e vmalloc:vmap_huge_block -- kload -e 11 "$KMOD" mode=map events=1 >/dev/null 2>&1
	want_h=$(dmesg | sed -n 's/.*vmap_test: recorded .* huge=\([0-9]*\) .*/\1/p' | tail -n 1)
	perf script -i /tmp/perf.data 2>/dev/null | grep '^ *kload ' >/tmp/perf.txt
	got_c=$(grep -c 'vmap_mapped: .*api=vmap ' /tmp/perf.txt)
	got_h=$(grep -c 'vmap_huge_block: ' /tmp/perf.txt)
	grep -m1 'vmap_huge_block: ' /tmp/perf.txt
	[ -n "$want_h" ] && [ "$got_c" = "$want_c" ] && [ "$got_h" = "$want_h" ] &&
		pass "perf script: $got_c vmap() calls and $got_h PMD blocks, as in tracefs and the module" ||
		fail "perf script: $got_c vmap() calls / $got_h PMD blocks, tracefs had $want_c calls, the module recorded ${want_h:-no count of} blocks"
else
	skip "perf not in the guest (scripts/build-perf)"
fi
finish
