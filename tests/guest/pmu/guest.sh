#!/bin/sh
# PMU counting, --repeat and compare inside a lab guest (busybox sh).
#   sh guest.sh x86_64|arm64 [icount]     (tests/guest/pmu/lab.sh boots the guests)
# x86_64 (QEMU TCG, no PMU): software events count, every hardware event
# gets one clear ENOENT line and the rest still reports.  arm64 (QEMU's
# PMUv3): cpu_cycles counts, the TLB events open but read 0 over a busy
# period and must be flagged, more events than counters are scaled and
# marked.  With "icount" (QEMU -icount shift=0): inst_retired counts too.
arch=$1 mode=${2:-}
T=/tmp/pmu-test
mkdir -p $T

. /opt/vmapscope/lib/harness.sh
# run DESC WANT_RC CMD...: stdout in $T/out, stderr in $T/err
run() {
	desc=$1 want=$2
	shift 2
	"$@" >$T/out 2>$T/err
	rc=$?
	if [ "$rc" = "$want" ]; then pass "$desc (exit $rc)"; else
		fail "$desc: exit $rc, wanted $want"; tail -n 15 $T/out $T/err; fi
}
has() {	# has FILE REGEX DESC
	if grep -qE -- "$2" "$1"; then pass "$3"; else
		fail "$3: $(basename $1) lacks /$2/"; tail -n 20 "$1"; fi
}
hasnt() {
	if grep -qE -- "$2" "$1"; then fail "$3: $(basename $1) has /$2/"; grep -E -- "$2" "$1"; else
		pass "$3"; fi
}
# count EVENT: the scaled count printed for EVENT (commas removed; the
# clock events print "12.34 msec  task-clock")
count() {
	awk -v e="$1" '$2 == e || ($2 == "msec" && $3 == e) { gsub(",", "", $1); print $1; exit }' $T/out
}
# above VALUE LIMIT: VALUE is a number (decimals allowed) > LIMIT
above() {
	[ -n "$1" ] && awk -v v="$1" -v l="$2" 'BEGIN { exit !(v + 0 > l + 0) }'
}
busy='dd if=/dev/zero of=/dev/null bs=64k count=20000'

# ---- common: software events, repeat, failing commands, compare ----------
run "software events around a busy command" 0 \
	vmapstat --pmu task-clock,context-switches:k,page-faults -- sh -c "$busy 2>/dev/null"
has $T/out "PMU counts of the command and its children" "report header: the command is counted"
tc=$(count task-clock)
above "$tc" 10 && pass "task-clock counted ($tc msec)" ||
	fail "task-clock not counted: '$tc'"
pf=$(count page-faults)
[ -n "$pf" ] && [ "$pf" -gt 0 ] && pass "page-faults counted ($pf)" || fail "page-faults: '$pf'"

run "-C 1 counts one CPU" 0 vmapstat --pmu task-clock --pmu-per-cpu -C 1 -- sh -c "$busy 2>/dev/null"
has $T/out "PMU counts, CPUs 1," "-C 1 selects CPU 1 only"
has $T/out "CPU1 " "per-CPU line for CPU 1"
hasnt $T/out "CPU0 " "no line for CPU 0"

run "--repeat 3 -j" 0 vmapstat --pmu task-clock --repeat 3 -j -- sh -c "$busy 2>/dev/null"
has $T/out '"pmu_runs":\{"version":1,"command":"sh -c dd' "pmu_runs JSON line with the command"
has $T/out '"runs":3,"status":\[0,0,0\]' "three runs, all exit 0"
has $T/out '"name":"task-clock","unit":"msec","values":\[[0-9.]+,[0-9.]+,[0-9.]+\]' "task-clock value per run"
cp $T/out $T/before.json

run "--repeat 3 table" 0 vmapstat --pmu task-clock --repeat 3 -- sh -c "$busy 2>/dev/null"
has $T/out "^3 runs of: sh -c dd" "table title"
has $T/out '^\| Metric +\| Run1 +\| Run2 +\| Run3 +\| Avg\. +\|$' "Arm-style header"
has $T/out '^\| task-clock \(msec\) +\| [0-9.]+ +\| [0-9.]+ +\| [0-9.]+ +\| [0-9.]+ +\|$' "task-clock row"
has $T/out '^\| vmap bytes mapped ' "vmap figures of each run (patched kernel)"

run "a failing command: its status, non-zero exit" 3 \
	vmapstat --pmu task-clock --repeat 2 -- sh -c 'exit 3'
has $T/err "vmapstat: run 1: command exited with status 3" "run 1 status reported"
has $T/err "vmapstat: run 2: command exited with status 3" "run 2 status reported"
run "a command that does not exist" 127 vmapstat --pmu task-clock -- /no/such/command
has $T/err "cannot run '/no/such/command'" "exec failure named"
has $T/err "run 1: command exited with status 127" "its status reported"

run "second run set for compare" 0 vmapstat --pmu task-clock --repeat 2 -j -- sh -c "$busy 2>/dev/null; $busy 2>/dev/null"
cp $T/out $T/after.json
run "compare" 0 vmapstat compare $T/before.json $T/after.json
has $T/out '^\| Metric +\| Runs +\| Before avg\. +\| After avg\. +\| Diff\. +\|$' "compare header"
has $T/out '^\| task-clock \(msec\) +\| 3/2 +\| [0-9.]+ +\| [0-9.]+ +\| [+-][0-9]+\.[0-9][0-9]% +\|$' "task-clock diff row"
run "compare with a missing file" 1 vmapstat compare $T/before.json /nonexistent.json
has $T/err "vmapstat compare: /nonexistent.json: No such file or directory" "one clear line"

run "unknown event" 2 vmapstat --pmu no_such_event -- true
has $T/err "no_such_event: unknown event" "unknown event named"
run "CPU that does not exist" 2 vmapstat --pmu task-clock -C 7 -- true
has $T/err "CPU 7 does not exist" "bad CPU named"
run "--repeat without --pmu" 2 vmapstat --repeat 2 -- true
has $T/err "--repeat tabulates --pmu counts per run" "one clear line"
run "-a: every CPU, not only the command" 0 vmapstat -a --pmu task-clock -- sh -c "$busy 2>/dev/null"
has $T/out "PMU counts, CPUs 0-1" "report header names the CPUs"

# ---- tracepoints as events, against the collector, with known vmallocs -----
# test_vmalloc's fix_size_alloc_test: test_loop_count vmalloc(PAGE_SIZE) in
# one thread: each is one alloc_vmap_area and one vmap_mapped (one page).
tv=$(find /lib/modules -name test_vmalloc.ko | head -n 1)
if [ -n "$tv" ]; then
	load="kload -e 11 $tv run_test_mask=1 test_loop_count=1000 nr_threads=1 >/dev/null"
	run "tracepoint events around 1000 vmallocs" 0 \
		vmapstat -a --pmu vmalloc:alloc_vmap_area,vmalloc:vmap_mapped -- sh -c "$load"
	a=$(count vmalloc:alloc_vmap_area); c=$(count vmalloc:vmap_mapped)
	[ -n "$a" ] && [ "$a" -ge 1000 ] && [ "$a" -lt 1100 ] &&
		pass "alloc_vmap_area counted $a (1000 vmallocs + module load)" || fail "alloc_vmap_area: '$a'"
	[ -n "$c" ] && [ "$c" -ge 1000 ] && [ "$c" -lt 1100 ] &&
		pass "vmap_mapped counted $c" || fail "vmap_mapped: '$c'"
	run "--repeat 3: tracepoint counts beside the collector's" 0 \
		vmapstat -a --pmu vmalloc:vmap_mapped --repeat 3 -- sh -c "$load"
	awk -F'|' '
		function trim(s) { gsub(/^ +| +$/, "", s); return s }
		trim($2) == "vmalloc:vmap_mapped" { for (i = 3; i <= 5; i++) tp[i] = trim($i) }
		trim($2) == "vmap chunks" { for (i = 3; i <= 5; i++) co[i] = trim($i) }
		END {
			bad = 0
			for (i = 3; i <= 5; i++) {
				d = tp[i] - co[i]; if (d < 0) d = -d
				if (tp[i] < 1000 || co[i] < 1000 || d > 10) bad = 1
				printf "run %d: tracepoint %s, collector %s\n", i - 2, tp[i], co[i]
			}
			exit bad
		}' $T/out >$T/cmp && pass "each run: PMU tracepoint count = collector chunk count ($(tr '\n' ';' <$T/cmp))" ||
		{ fail "tracepoint vs collector per run"; cat $T/cmp; cat $T/out; }
	# the sampler's area tracking sees the same 1000 areas come and go
	run "sampler tracks the areas of 1000 vmallocs" 0 \
		vmapstat --pmu-sample page-faults --pmu-period 1000 -- sh -c "$load"
	tr=$(sed -n 's/.*areas tracked: \([0-9]*\) (freed again: \([0-9]*\)).*/\1 \2/p' $T/out)
	set -- $tr
	[ "${1:-0}" -ge 1000 ] && [ "${2:-0}" -ge 1000 ] &&
		pass "areas tracked $1, freed again $2" || fail "area tracking: '$tr'"
else
	fail "test_vmalloc.ko not in the guest"
fi

# ---- per arch -------------------------------------------------------------
case $arch in
x86_64)
	run "hardware events on a machine without PMU" 0 \
		vmapstat --pmu task-clock,cycles,instructions,dTLB-load-misses,r003c -- sh -c "$busy 2>/dev/null"
	for e in cycles instructions dTLB-load-misses r003c; do
		has $T/err "vmapstat: pmu: $e \(PMU no core PMU, .*\): not counted: no hardware PMU on this machine counts it \(ENOENT\)" \
			"clear line for $e"
		has $T/out "<not counted> +$e" "$e shown as not counted"
	done
	tc=$(count task-clock)
	above "$tc" 0 && pass "the rest still reports (task-clock $tc msec)" || fail "task-clock lost"
	run "sampling page faults: addresses, outside vmap areas" 0 \
		vmapstat --pmu-sample page-faults:u --pmu-period 1 -- sh -c "$busy 2>/dev/null"
	has $T/out "PMU samples of page-faults:u by vmap caller: ([0-9]+) samples, \1 with a data address" \
		"every page-fault sample carries its address"
	has $T/out "^ +[1-9][0-9]* +100\.0%  -  +\[outside tracked vmap areas\]" "user faults land outside vmap areas"
	hasnt $T/out "callers unknown" "callers come from vmalloc:vmap_mapped on the patched kernel"
	run "Arm TLB names need an Arm PMU" 2 vmapstat --pmu dtlb_walk -- true
	has $T/err "dtlb_walk: Arm PMUv3 event 0x34, but no armv8_\*/armv9_\* PMU" "clear reason"
	;;
arm64)
	run "cycles and the TLB events around a busy command" 0 \
		vmapstat --pmu cpu_cycles,dtlb_walk,l1d_tlb_refill,l2d_tlb_refill,l1d_tlb:k -- sh -c "$busy 2>/dev/null"
	cy=$(count cpu_cycles)
	[ -n "$cy" ] && [ "$cy" -gt 1000000 ] && pass "cpu_cycles counted ($cy)" || fail "cpu_cycles: '$cy'"
	for e in dtlb_walk l1d_tlb_refill l2d_tlb_refill l1d_tlb:k; do
		has $T/out "^ +0  $e +# not counted by this PMU\? \(0 over [0-9.]+ s busy CPU time\)" \
			"$e reads 0 and is flagged"
	done
	hasnt $T/out "cpu_cycles .*not counted by this PMU" "cpu_cycles is not flagged"

	# 6 programmable counters + the cycle counter: 10 events multiplex
	ev=r11; for i in 1 2 3 4 5 6 7 8 9; do ev="$ev,r11"; done
	run "more events than counters" 0 vmapstat --pmu $ev -- sh -c "$busy 2>/dev/null; $busy 2>/dev/null"
	n=$(grep -cE '^ +[0-9,]+  r11 +\(scaled, counted [0-9.]+%\)' $T/out)
	[ "$n" -ge 1 ] && pass "multiplexed counts are scaled and marked ($n of 10)" ||
		fail "no scaled marks"; grep r11 $T/out

	run "--repeat 2 with cycles" 0 vmapstat --pmu cpu_cycles:u,dtlb_walk:u --repeat 2 -- sh -c "$busy 2>/dev/null"
	has $T/out '^\| cpu_cycles:u +\| [0-9]+ +\| [0-9]+ +\|' "cpu_cycles:u per run"
	has $T/out '^\| dtlb_walk:u +\| 0\? +\| 0\? +\| 0\.0 +\|$' "dtlb_walk:u flagged in the table"
	has $T/out "dtlb_walk:u: not counted by this PMU\?" "note under the table"

	run "sampling cycles: PMUv3 gives no data address" 0 \
		vmapstat --pmu-sample cpu_cycles --pmu-period 100000 -- sh -c "$busy 2>/dev/null"
	has $T/out "cpu_cycles: the PMU gave no data address with its samples" "said so"
	has $T/out "PMU samples of cpu_cycles by vmap caller: [1-9][0-9]* samples, 0 with a data address" \
		"samples were taken"

	if [ "$mode" = icount ]; then
		run "inst_retired with -icount" 0 vmapstat --pmu inst_retired,instructions -- sh -c "$busy 2>/dev/null"
		ir=$(count inst_retired)
		[ -n "$ir" ] && [ "$ir" -gt 1000000 ] && pass "inst_retired counted ($ir)" || fail "inst_retired: '$ir'"
	fi
	;;
esac

# ---- a real perf record, when the guest carries perf ----------------------
if command -v perf >/dev/null 2>&1; then
	pev=task-clock; [ "$arch" = arm64 ] && pev=cpu_cycles
	run "--repeat 2 around perf record" 0 vmapstat --pmu $pev,page-faults --repeat 2 -- \
		perf record -o $T/perf.data -e $pev -a -- sh -c "$busy 2>/dev/null"
	has $T/out '^\| page-faults +\| [0-9]+ +\| [0-9]+ +\|' "counts per perf record run"
	has $T/err "perf record: Captured and wrote" "perf record ran"
	[ -s $T/perf.data ] && perf report -i $T/perf.data --stdio >$T/report 2>&1 &&
		grep -q "Samples" $T/report && pass "perf.data of the last run reads back" ||
		{ fail "perf.data unreadable"; tail -n 5 $T/report; }
	# each run's mappings are in the table (the ring buffer itself is not
	# vmap()ed here: no AUX PMU in QEMU)
	has $T/out '^\| vmap bytes mapped +\| [0-9]+ +\| [0-9]+ ' "mapping figures per perf record run"
else
	skip "no perf in this guest (scripts/build-perf)"
fi

HARNESS_NAME="pmu-guest-$arch${mode:+-$mode}"
finish
