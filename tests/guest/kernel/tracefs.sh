#!/bin/sh
# The vmalloc tracepoints as a standard consumer sees them: tracefs formats
# as documented in docs/tracepoints.md, and trace_pipe-style text holding
# exactly the events the test module recorded through its own probes; each
# vmap_mapped the sum of the runs of its call (and of the reasons of its
# vmap_granule events) and equal to the module's walk of the page tables,
# also when it is the only event enabled; the reasons of the module's
# calls built to fall back.
. "$(dirname "$0")/lib.sh"
E=$T/events/vmalloc

# field EVENT DECL: the format file declares the field.
field() {
	grep -q "field:$2;" $E/$1/format && pass "$1 has field '$2'" ||
		fail "$1 lacks field '$2': $(grep field: $E/$1/format | tr '\n' ' ')"
}
EVENTS="vmap_set_ptes vmap_huge_block vmap_granule vmap_mapped"
for ev in $EVENTS; do
	[ -f $E/$ev/format ] && pass "event vmalloc:$ev exists" || fail "no event vmalloc:$ev"
done
# v8's patch 12 added vmap_chunk; v9 dropped it (docs/tracepoints.md).
[ ! -e $E/vmap_chunk ] && pass "no event vmalloc:vmap_chunk" || fail "vmalloc:vmap_chunk exists (v8's patch 12)"
field vmap_set_ptes	"unsigned long addr"
field vmap_set_ptes	"unsigned long pfn"
field vmap_set_ptes	"unsigned int nr_ptes"
field vmap_set_ptes	"unsigned int shift"
field vmap_huge_block	"unsigned long addr"
field vmap_huge_block	"unsigned long pfn"
field vmap_huge_block	"unsigned int shift"
field vmap_granule	"unsigned long addr"
field vmap_granule	"unsigned long size"
field vmap_granule	"unsigned int shift"
field vmap_granule	"unsigned int fallback"
for f in "unsigned long addr" "unsigned long size" "const void \* caller" "unsigned long pte" \
	"unsigned long pte_block" "unsigned long pmd" "unsigned long pud" "u64 ns" "unsigned int nr_runs" \
	"unsigned int fallbacks" "unsigned int api" "int ret"; do
	field vmap_mapped "$f"
done
# v12 read the runs back and counted them in size / cont fields (gone).
for ev in vmap_set_ptes vmap_huge_block; do
	! grep -q 'field:unsigned long size;' $E/$ev/format && pass "$ev has no size field (v12's)" ||
		fail "$ev still has v12's size field"
done
grep -q 'print fmt: "addr=0x%lx size=%lu api=%s pte=%lu pte_block=%lu pmd=%lu pud=%lu nr_runs=%u fallbacks=%s ret=%d ns=%llu caller=%pS"' $E/vmap_mapped/format &&
	pass "vmap_mapped print format" || fail "vmap_mapped print format: $(grep 'print fmt' $E/vmap_mapped/format)"
grep -q 'print fmt: "addr=0x%lx size=%lu shift=%u fallback=%s"' $E/vmap_granule/format &&
	pass "vmap_granule print format" || fail "vmap_granule print format: $(grep 'print fmt' $E/vmap_granule/format)"
# The reasons by name, as docs/tracepoints.md lists them.
for r in none limit discontig align occupied; do
	grep -q "\"$r\"" $E/vmap_granule/format && pass "vmap_granule names the reason '$r'" ||
		fail "vmap_granule's format lacks the reason '$r'"
done

# v(NAME): the value of " NAME=" in the current line (awk).
AWKV='function v(k) { return match($0, " " k "=[^ ]+") ? substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : "" }'

# Trace a run of the test module; it prints how many events its own
# probes recorded ("vmap_test: recorded set_ptes=A huge=B granule=C
# mapped=D"), and for each vmap_mapped event it checked, the bytes per
# granule a walk of the page tables found in what the call wrote
# ("vmap_test: walk addr= ns= pte= pte_block= pmd= pud=").
echo 0 >$T/tracing_on
echo 8192 >$T/buffer_size_kb
echo >$T/trace
for ev in $EVENTS; do echo 1 >$E/$ev/enable; done
echo 1 >$T/tracing_on
# stay=1: the module stays loaded while the trace is read, so that %pS
# still resolves callers inside it; it is removed afterwards.
run_vmap_test map stay=1
echo 0 >$T/tracing_on
for ev in $EVENTS; do echo 0 >$E/$ev/enable; done

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
	g=$(grep -c ' vmap_granule: ' /tmp/trace.mod)
	m=$(grep -c ' vmap_mapped: ' /tmp/trace.mod)
	echo "trace: set_ptes=$s huge=$h granule=$g mapped=$m"
	case "$rec" in
	*"recorded set_ptes=$s huge=$h granule=$g mapped=$m") pass "trace holds exactly the events the module recorded" ;;
	*) fail "trace (set_ptes=$s huge=$h granule=$g mapped=$m) differs from the module's '$rec'" ;;
	esac
	# The per-run events sum to the per-call event: each vmap_mapped
	# carries the bytes per granule and the number of the vmap_set_ptes /
	# vmap_huge_block events of its call, which come just before it in the
	# same task, and the reasons of its vmap_granule events, each of which
	# covers the runs since the previous one or block; a call that
	# succeeded maps its whole range.
	r=$(awk "$AWKV"'
		function reset() { b[0] = b[1] = b[2] = b[3] = 0; runs = 0; split("", fb); nfb = 0; part = 0 }
		BEGIN { reset() }
		/ vmap_set_ptes: / {
			n = v("nr_ptes") * 4096; b[v("shift") == 12 ? 0 : 1] += n; runs++
			if (!part) start = v("addr")
			part += n
		}
		/ vmap_huge_block: / {
			# 1 << shift (busybox awk has no ^): PMD 2M, PUD 1G
			if (v("shift") == 21) b[2] += 2097152; else b[3] += 1073741824
			runs++; part = 0
		}
		/ vmap_granule: / {
			granules++
			if (v("addr") != start || v("size") != part) {
				bad++
				print "PART (runs from " start ", " part " bytes): " $0 >"/dev/stderr"
			}
			if (v("fallback") != "none" && !(v("fallback") in fb)) { fb[v("fallback")] = 1; nfb++ }
			part = 0
		}
		/ vmap_mapped: / {
			calls++
			want = ""
			for (r in fb) want = want (want == "" ? "" : "|") r
			have = v("fallbacks")
			nf = split(have == "none" ? "" : have, hf, "|")
			ok = nf == nfb
			for (i = 1; i <= nf; i++) if (!(hf[i] in fb)) ok = 0
			if (v("pte") + 0 != b[0] || v("pte_block") + 0 != b[1] || v("pmd") + 0 != b[2] ||
			    v("pud") + 0 != b[3] || v("nr_runs") + 0 != runs || !ok) {
				bad++
				print "MISMATCH (runs " b[0] "/" b[1] "/" b[2] "/" b[3] " in " runs ", reasons " want "): " $0 >"/dev/stderr"
			}
			if (v("ret") == 0 && v("pte") + v("pte_block") + v("pmd") + v("pud") != v("size")) {
				bad++
				print "NOT WHOLE: " $0 >"/dev/stderr"
			}
			if (v("ret") != 0 || v("ns") == 0 || v("api") == "") {
				bad++
				print "RESULT/TIME: " $0 >"/dev/stderr"
			}
			if (v("pte_block") > 0) cont++
			if (v("pmd") > 0) pmd++
			if (have != "none") fell++
			reset()
		}
		END { print calls + 0, bad + 0, cont + 0, pmd + 0, granules + 0, fell + 0 }' /tmp/trace.mod)
	set -- $r
	echo "vmap_mapped: $1 calls, $3 with PTE-level blocks, $4 with PMD blocks; $5 vmap_granule; $6 calls fell back"
	[ "$1" -gt 0 ] && [ "$2" = 0 ] &&
		pass "vmap_mapped: bytes per granule, runs and reasons equal its vmap_set_ptes/vmap_huge_block/vmap_granule events, whole range, ret 0, ns > 0 ($1 calls)" ||
		fail "vmap_mapped: $2 of $1 calls inconsistent with their runs"
	# The module's calls built to fall back (vmap_test, "vmap fallback:"):
	# a whole PMD of 1M-aligned contiguous pages (ALIGN), one of
	# scattered pages (DISCONTIG), on both arches.
	grep -m1 ' vmap_granule: .* fallback=align$' /tmp/trace.mod
	grep -m1 ' vmap_granule: .* fallback=discontig$' /tmp/trace.mod
	[ "$(grep -c ' vmap_mapped: .* api=vmap .* fallbacks=align ret=0 ' /tmp/trace.mod)" -ge 1 ] &&
		pass "tracefs: a vmap() that fell back for alignment (fallbacks=align)" ||
		fail "tracefs: no vmap() with fallbacks=align"
	[ "$(grep -c ' vmap_mapped: .* api=vmap .* fallbacks=discontig ret=0 ' /tmp/trace.mod)" -ge 1 ] &&
		pass "tracefs: a vmap() that fell back for scattered pages (fallbacks=discontig)" ||
		fail "tracefs: no vmap() with fallbacks=discontig"
	# Contiguous memory misaligned by its place in the array, in an area
	# aligned for no block (vmap_test's tails of a block from its second
	# page, as the BPF ring buffer's data pages after its header): 4K
	# PTEs only, and the walk says why no block.
	n=$(awk "$AWKV"'/ vmap_mapped: .* api=vmap / && v("pte") == v("size") &&
		v("fallbacks") == "align" { n++ } END { print n + 0 }' /tmp/trace.mod)
	[ "$n" -ge 1 ] &&
		pass "tracefs: vmap() of contiguous pages misaligned by their place in the array: 4K PTEs only, fallbacks=align ($n calls)" ||
		fail "tracefs: no vmap() mapped with 4K PTEs only that says fallbacks=align"
	[ "$4" -gt 0 ] && pass "vmap_mapped: PMD blocks reported" || fail "vmap_mapped: no call with PMD blocks"
	if [ "$(uname -m)" = aarch64 ]; then
		[ "$3" -gt 0 ] && pass "vmap_mapped: contiguous-PTE blocks reported" ||
			fail "vmap_mapped: no call with contiguous-PTE blocks"
	fi
	# The module's own walk of the page tables, per vmap_mapped it checked.
	r=$(awk "$AWKV"'
		FNR == NR {
			if (/ walk addr=/) { w[v("addr") " " v("ns")] = v("pte") " " v("pte_block") " " v("pmd") " " v("pud"); nw++ }
			next
		}
		/ vmap_mapped: / {
			k = v("addr") " " v("ns")
			if (!(k in w)) next
			seen++
			if (w[k] != v("pte") " " v("pte_block") " " v("pmd") " " v("pud")) {
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
	for ev in $EVENTS; do
		grep -m2 " $ev: " /tmp/trace.mod
	done
	grep -m1 ' vmap_set_ptes: .*shift=16' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*api=vmalloc' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*api=vm_map_ram' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*pte_block=[1-9]' /tmp/trace.mod
	grep -m1 ' vmap_mapped: .*pmd=[1-9]' /tmp/trace.mod
fi

# One event per call: vmap_mapped alone (no per-run event enabled), the
# module's own probes off.  The bytes come from the same tally, which the
# walk fills while any of the events is on; every call of the module maps
# its whole range, with at least one run.
echo >$T/trace
echo 1 >$E/vmap_mapped/enable
echo 1 >$T/tracing_on
run_vmap_test map events=0 stay=1
echo 0 >$T/tracing_on
echo 0 >$E/vmap_mapped/enable
cat $T/trace >/tmp/trace2.txt
rmmod vmap_test
r=$(awk "$AWKV"'
	/ vmap_set_ptes: | vmap_huge_block: | vmap_granule: / { other++ }
	/ vmap_mapped: .*\[vmap_test\]/ {
		calls++
		if (v("ret") != 0 || v("nr_runs") == 0 || v("ns") == 0 ||
		    v("pte") + v("pte_block") + v("pmd") + v("pud") != v("size")) {
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
		-e vmalloc:vmap_huge_block -e vmalloc:vmap_granule \
		-- kload -e 11 "$KMOD" mode=map events=1 >/dev/null 2>&1
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
