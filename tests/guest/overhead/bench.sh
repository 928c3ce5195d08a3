#!/bin/sh
# Tool-overhead benchmark, inside a lab guest (make bench-overhead,
# make bench-overhead-stock; docs/benchmarks.md "Tool overhead").  Not a
# test: it fails only if the workload cannot run.
#
# The workload module (tests/kmod/overhead_workload) times ROUNDS rounds of
# vmap/vunmap(VMAP_PAGES pages, default 16) + vmalloc/vfree(VMALLOC_SIZE,
# default 64K) in the kernel: two mapping calls per round.  Each repetition
# runs the configurations in turn (interleaved, so that drift of the
# emulator hits all of them alike).  On a series kernel:
#   off       no tool; the series' events disabled (static branches off)
#   discard   vmalloc:vmap_mapped enabled in tracefs, tracing_on=0: the
#             event's probe runs (and the kernel reads its clock) and the
#             ring buffer, off, drops the record
#   record    the same, tracing_on=1: recorded into the ring buffer
#             (overwrite mode, 4 MiB per CPU), which nobody reads
#   perfstat  "perf stat -a -e vmalloc:vmap_mapped": the kernel's own
#             counting of the one event per call (when the guest has perf:
#             make perf-tools)
#   floor     vmapscope-floor (bench/floor) on the attach points vmapstat's
#             default reports (-v: its feature and latency lines), each
#             program one per-CPU increment: one empty program on
#             vmap_mapped, one run per mapping call (and module_load)
#   vmapstat  "vmapstat -j -- sh -c 'echo ROUNDS > run'": the default
#   floor-runs, vmapstat-runs
#             the same two for vmapstat --runs (vmap_set_ptes and
#             vmap_huge_block too: per-run detail)
#   floor-calllat, vmapstat-calllat
#             the same two for vmapstat --call-latency (the entry-point
#             probes: whole-call latency)
# then, once per repetition, vmapstat's time to attach (see below).
# Afterwards vmapstat and vmaptop run in the background for a while and
# their peak RSS (VmHWM) is read from /proc/PID/status.
# With VARIANT=stock (a kernel without the series): off, floor (the area
# program at alloc_vmap_area()'s exit, fexit or kretprobe, as vmapstat
# attaches it), vmapstat (its stock default: callers by the areas'
# vm_struct) and vmapstat-stack (--stack-callers: callers by kernel stack);
# neither time to attach nor RSS is measured.
#
# Output (host side: scripts/overhead-report):
#   @@OVH cfg=CFG rep=R rounds=N ns=NS [events=E calls=C series_events=S area_events=A]
#         (calls: vmap_mapped events, i.e. mapping calls, that vmapstat saw,
#         per run of the workload: the tool's count over its settling runs
#         and the measured one, divided by their number)
#   @@FLOOR CFG ARGS (the floor's attach points for that configuration)
#   @@ATTACH rep=R ns=NS base_ns=B
#   @@RSS tool=T vmhwm_kb=K vmrss_kb=K
#   @@VSJSON {vmapstat -p -j of one run}   @@FEATURE NAME HOW (vmapstat's default)
RUNS=${RUNS:-11}
VARIANT=${VARIANT:-patched}
ROUNDS=${ROUNDS:-2000}
VMAP_PAGES=${VMAP_PAGES:-16}		# module defaults: the "small" profile
VMALLOC_SIZE=${VMALLOC_SIZE:-65536}
KO=/opt/vmapscope/kmod/overhead_workload.ko
P=/sys/module/overhead_workload/parameters
T=/sys/kernel/tracing
EVENTS=vmap_mapped

[ -f $KO ] || { echo "no $KO (lab kmod not run?)"; exit 1; }
kload $KO vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE >/dev/null ||
	{ echo "cannot load $KO"; exit 1; }
if [ "$VARIANT" = stock ]; then
	EVENTS=
	[ ! -d $T/events/vmalloc/vmap_mapped ] || { echo "VARIANT=stock on a patched kernel"; exit 1; }
fi
for e in $EVENTS; do
	[ -d $T/events/vmalloc/$e ] || { echo "kernel lacks vmalloc:$e (not patched?)"; exit 1; }
done
echo "@@INFO kernel=$(uname -r) arch=$(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo) rounds=$ROUNDS runs=$RUNS vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE"
echo 4096 >$T/buffer_size_kb
echo 1 >$T/tracing_on

events() { for e in $EVENTS; do echo "$1" >$T/events/vmalloc/$e/enable; done; }
# feat NAME FILE: "how" of JSON feature NAME when available
feat() {
	grep -o "\"$1\":{[^}]*}" "$2" | grep '"available":true' | grep -o '"how":"[^"]*"' |
		head -n 1 | cut -d'"' -f4
}
# Under -icount virtual time advances with the instructions of every vCPU,
# so work that a configuration leaves behind (a tool's exit: links,
# trampolines and maps freed after RCU grace periods, from workqueues, and
# the purge of the vmap areas they vfree()d, which the next vfree()s set
# off) lands in the next configuration's run.  Measured on x86_64
# (docs/benchmarks.md, "Tool overhead"): the runs after a vmapstat exit
# are +2 to +9 % for two or three runs of the workload, and sleeping in
# between does not help there (an idle guest does nothing; the purge waits
# for the next vfree()s).  So every measured run follows SETTLE_RUNS runs
# of the same workload that are not measured: before each configuration,
# and inside each tool once it is attached.  SETTLE seconds of sleep may
# be added before each.  The settling runs and the measured one come from
# the same process ("sh -c WORK" under a tool or perf, "$(run)" here):
# measured in a subshell after settling runs in this shell, a run with no
# tool came out 4 % slower on x86_64 (about 240 instructions per mapping
# call).
SETTLE_RUNS=${SETTLE_RUNS:-3}
SETTLE=${SETTLE:-0}
settle() {
	i=0
	while [ $i -lt "$SETTLE_RUNS" ]; do echo "$ROUNDS" >$P/run || exit 1; i=$((i + 1)); done
	[ "$SETTLE" = 0 ] || sleep "$SETTLE"
}
WORK="i=0; while [ \$i -lt $SETTLE_RUNS ]; do echo $ROUNDS >$P/run; i=\$((i + 1)); done; echo $ROUNDS >$P/run"
[ "$SETTLE" = 0 ] || WORK="sleep $SETTLE; $WORK"
# the tools count the events of the settling runs too: per run, divide
CMD_RUNS=$((SETTLE_RUNS + 1))
measure() { echo "$ROUNDS" >$P/run || exit 1; cat $P/last_ns; }
run() { settle; measure; }
# jnum KEY FILE: sum of every "KEY": N in the JSON of FILE
jnum() { grep -o "\"$1\": *[0-9]*" "$2" | awk -F: '{ s += $2 } END { print s + 0 }'; }

# vfeat NAME: what vmapstat -v (in /tmp/fa.err) says feature NAME comes from
vfeat() { awk -v f="$1" '$1 == "vmapstat:" && $2 == "feature" && $3 == f { print $4 }' /tmp/fa.err; }

# floor_args VMAPSTAT-ARGS...: the floor's options for what vmapstat attaches
# with these arguments, from what its -v says ("feature" lines: vmap_mapped,
# the per-run events, the area program or tracepoint; "latency" lines: each
# entry-point probe and its method).
floor_args() {
	vmapstat -v -j "$@" -- true >/tmp/fa.json 2>/tmp/fa.err ||
		{ echo "vmapstat -v $* failed:"; cat /tmp/fa.err; exit 1; } >&2
	grep -q '^vmapstat: feature ' /tmp/fa.err ||
		{ echo "vmapstat -v names no features:"; cat /tmp/fa.err; exit 1; } >&2
	a=
	[ "$(vfeat granule)" != vmap_mapped ] || a="$a -t vmap_mapped"
	[ "$(vfeat runs)" != raw_tp ] || a="$a -t vmap_set_ptes -t vmap_huge_block"
	case $(vfeat areas) in
	fexit) a="$a -x alloc_vmap_area" ;;
	kretprobe) a="$a -r alloc_vmap_area" ;;
	raw_tp) a="$a -t alloc_vmap_area" ;;
	esac
	case " $* " in *" --areas "*) a="$a -t purge_vmap_area_lazy -t free_vmap_area_noflush" ;; esac
	a="$a$(awk '$1 == "vmapstat:" && $2 == "latency" {
		if ($5 == "fentry") printf " -f %s", $4; else if ($5 == "kprobe") printf " -k %s", $4 }' /tmp/fa.err)"
	[ ! -d $T/events/module/module_load ] || a="$a -t module_load"
	echo "$a"
}

# floor_row CFG ARGS...: the workload under vmapscope-floor ARGS
floor_row() {
	cfg=$1
	shift
	settle
	vmapscope-floor "$@" -- sh -c "$WORK" >/tmp/fl.out 2>/tmp/fl.err ||
		{ echo "vmapscope-floor $* failed:"; cat /tmp/fl.err; exit 1; }
	echo "@@OVH cfg=$cfg rep=$r rounds=$ROUNDS ns=$(cat $P/last_ns)" \
		"events=$(( $(sed -n 's/^events=//p' /tmp/fl.out) / CMD_RUNS ))"
}

# One vmapstat configuration: the workload under "vmapstat -j ARGS", and
# every event its programs counted (series events, the stock vmalloc
# events, timed calls; the mapping calls and the area events apart).
vmapstat_row() {
	cfg=$1
	shift
	settle
	vmapstat -j "$@" -- sh -c "$WORK" >/tmp/vs.json 2>/tmp/vs.err ||
		{ echo "vmapstat $* failed:"; cat /tmp/vs.err; exit 1; }
	ns=$(cat $P/last_ns)
	m=$(( $(jnum mapped_events /tmp/vs.json) / CMD_RUNS ))
	s=$(( m + ($(jnum set_ptes_events /tmp/vs.json) + $(jnum huge_block_events /tmp/vs.json)) / CMD_RUNS ))
	a=$(( $(jnum alloc_vmap_area_events /tmp/vs.json) / CMD_RUNS ))
	o=$(( a + ($(jnum purge_events /tmp/vs.json) + $(jnum lazy_free_events /tmp/vs.json) + \
		$(jnum calls /tmp/vs.json)) / CMD_RUNS ))
	echo "@@OVH cfg=$cfg rep=$r rounds=$ROUNDS ns=$ns events=$((s + o)) calls=$m series_events=$s area_events=$a"
}

features() {
	for f in granule latency runs call_latency areas callers; do
		echo "@@FEATURE $f $(feat $f "$1")"
	done
}

events 0
run >/dev/null			# warm-up: first-touch costs, lazy purge state

if [ "$VARIANT" = stock ]; then
	FLOOR=$(floor_args) || exit 1
	echo "@@FLOOR floor$FLOOR"
	r=1
	while [ $r -le "$RUNS" ]; do
		echo "@@OVH cfg=off rep=$r rounds=$ROUNDS ns=$(run)"
		# shellcheck disable=SC2086
		floor_row floor $FLOOR
		vmapstat_row vmapstat
		cp /tmp/vs.json /tmp/vs-default.json
		vmapstat_row vmapstat-stack --stack-callers
		r=$((r + 1))
	done
	features /tmp/vs-default.json
	rmmod overhead_workload
	echo "@@DONE"
	exit 0
fi

# The floors attach what vmapstat attaches with the same options.
FLOOR=$(floor_args) || exit 1
FLOOR_RUNS=$(floor_args --runs) || exit 1
FLOOR_CALLLAT=$(floor_args --call-latency) || exit 1
echo "@@FLOOR floor$FLOOR"
echo "@@FLOOR floor-runs$FLOOR_RUNS"
echo "@@FLOOR floor-calllat$FLOOR_CALLLAT"
HAVE_PERF=0
command -v perf >/dev/null && HAVE_PERF=1

r=1
while [ $r -le "$RUNS" ]; do
	events 0
	echo "@@OVH cfg=off rep=$r rounds=$ROUNDS ns=$(run)"

	echo 0 >$T/tracing_on
	events 1
	ns=$(run)
	events 0
	echo 1 >$T/tracing_on
	echo "@@OVH cfg=discard rep=$r rounds=$ROUNDS ns=$ns"

	events 1
	ns=$(settle; echo >$T/trace; measure)
	events 0
	n=$(grep -c ' vmap_mapped: ' $T/trace)
	echo >$T/trace
	echo "@@OVH cfg=record rep=$r rounds=$ROUNDS ns=$ns events=$n"

	if [ $HAVE_PERF = 1 ]; then
		settle
		perf stat -a -x, -o /tmp/ps.txt -e vmalloc:vmap_mapped -- sh -c "$WORK" ||
			{ echo "perf stat failed"; exit 1; }
		n=$(awk -F, -v k=$CMD_RUNS '$3 ~ /^vmalloc:/ { s += $1 } END { print int(s / k) }' /tmp/ps.txt)
		echo "@@OVH cfg=perfstat rep=$r rounds=$ROUNDS ns=$(cat $P/last_ns) events=$n"
	fi

	# shellcheck disable=SC2086
	floor_row floor $FLOOR
	vmapstat_row vmapstat
	cp /tmp/vs.json /tmp/vs-default.json
	# shellcheck disable=SC2086
	floor_row floor-runs $FLOOR_RUNS
	vmapstat_row vmapstat-runs --runs
	# shellcheck disable=SC2086
	floor_row floor-calllat $FLOOR_CALLLAT
	vmapstat_row vmapstat-calllat --call-latency

	# Time to attach: from a clock read just before the shell starts
	# vmapstat to the clock read by the command vmapstat starts, which it
	# does once every probe is attached.  base_ns is the same sequence
	# without vmapstat (the shell starting sh + cat), to subtract.
	settle
	t0=$(cat $P/now_ns)
	vmapstat -j -- cat $P/now_ns >/tmp/att.out 2>/tmp/vs.err ||
		{ echo "vmapstat failed:"; cat /tmp/vs.err; exit 1; }
	t1=$(head -n 1 /tmp/att.out)
	b0=$(cat $P/now_ns)
	b1=$(sh -c "cat $P/now_ns")
	echo "@@ATTACH rep=$r ns=$((t1 - t0)) base_ns=$((b1 - b0))"
	r=$((r + 1))
done
features /tmp/vs-default.json
# One per-caller record of the workload, for the latency histogram plot.
vmapstat -p -j -- sh -c "echo $ROUNDS >$P/run" >/tmp/vsp.json 2>/tmp/vs.err &&
	echo "@@VSJSON $(cat /tmp/vsp.json)"

# Peak RSS: the tool runs for 4 intervals of 1 s while the workload maps;
# VmHWM is read from /proc/PID/status before it is stopped.
rss() {	# rss TOOL CMD...
	tool=$1; shift
	"$@" >/dev/null 2>/tmp/rss.err &
	pid=$!
	sleep 1
	run >/dev/null; sleep 1; run >/dev/null; sleep 2
	echo "@@RSS tool=$tool vmhwm_kb=$(awk '/^VmHWM/ { print $2 }' /proc/$pid/status)" \
		"vmrss_kb=$(awk '/^VmRSS/ { print $2 }' /proc/$pid/status)"
	kill -INT $pid; wait $pid
}
r=1
while [ $r -le 3 ]; do
	rss vmapstat vmapstat -j 1
	rss vmapstat-p vmapstat -p -j 1
	rss vmaptop vmaptop -b -d 1
	r=$((r + 1))
done
rmmod overhead_workload
echo "@@DONE"
