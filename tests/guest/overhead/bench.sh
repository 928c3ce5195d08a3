#!/bin/sh
# Tool-overhead benchmark, inside a patched lab guest (make bench-overhead;
# docs/benchmarks.md "Tool overhead").  Not a test: it fails only if the
# workload cannot run.
#
# The workload module (tests/kmod/overhead_workload) times ROUNDS rounds of
# vmap/vunmap(VMAP_PAGES pages, default 16) + vmalloc/vfree(VMALLOC_SIZE,
# default 64K) in the kernel.  Each repetition
# runs the configurations in turn (interleaved, so that drift of the
# emulator hits all of them alike):
#   off       the series' three events disabled (static branches off)
#   discard   events enabled in tracefs, tracing_on=0: every event calls
#             its tracefs probe, which finds the ring buffer off and drops it
#   record    events enabled, tracing_on=1: recorded into the ring buffer
#             (overwrite mode, 4 MiB per CPU), which nobody reads
#   perfstat  "perf stat -a -e 'vmalloc:*'": the kernel's own counting of
#             the same events, what a user would run instead (when the
#             guest has perf: make perf-tools)
#   floor     vmapscope-floor (bench/floor) on the attach points vmapstat
#             reports with -v, each program one per-CPU increment: the
#             price of attaching at all
#   vmapstat  "vmapstat -j -- sh -c 'echo ROUNDS > run'": the BPF
#             collector with its default probes (series events, stock
#             vmalloc events, latency probe) attached
#   floor-nolat, vmapstat-nolat
#             the same two with vmapstat --no-latency: the tracepoints
#             only, no entry-point probe
#   vmapstat-stack
#             vmapstat --stack-callers: no entry-point probe, each
#             alloc_vmap_area names its caller from the kernel stack
# With VARIANT=stock (a kernel without the series) only off (no tool),
# vmapstat (its stock default: callers by the areas' vm_struct at
# alloc_vmap_area's exit, latency probes), vmapstat-nolat and
# vmapstat-stack run, and neither time to attach nor RSS is measured.
# then, once per repetition, vmapstat's time to attach (see below).
# Afterwards vmapstat and vmaptop run in the background for a while and
# their peak RSS (VmHWM) is read from /proc/PID/status.
#
# Output (host side: scripts/overhead-report):
#   @@OVH cfg=CFG rep=R rounds=N ns=NS [events=E series_events=S]
#   @@FLOOR ARGS (the floor's attach points)
#   @@ATTACH rep=R ns=NS base_ns=B
#   @@RSS tool=T vmhwm_kb=K vmrss_kb=K
#   @@VSJSON {vmapstat -p -j of one run}   @@FEATURE {vmapstat's latency probe}
RUNS=${RUNS:-11}
VARIANT=${VARIANT:-patched}
ROUNDS=${ROUNDS:-2000}
VMAP_PAGES=${VMAP_PAGES:-16}		# module defaults: the "small" profile
VMALLOC_SIZE=${VMALLOC_SIZE:-65536}
KO=/opt/vmapscope/kmod/overhead_workload.ko
P=/sys/module/overhead_workload/parameters
T=/sys/kernel/tracing
EVENTS="vmap_chunk vmap_set_ptes vmap_huge_block"

[ -f $KO ] || { echo "no $KO (lab kmod not run?)"; exit 1; }
kload $KO vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE >/dev/null ||
	{ echo "cannot load $KO"; exit 1; }
if [ "$VARIANT" = stock ]; then
	EVENTS=
	[ ! -d $T/events/vmalloc/vmap_chunk ] || { echo "VARIANT=stock on a patched kernel"; exit 1; }
fi
for e in $EVENTS; do
	[ -d $T/events/vmalloc/$e ] || { echo "kernel lacks vmalloc:$e (not patched?)"; exit 1; }
done
echo "@@INFO kernel=$(uname -r) arch=$(uname -m) cpus=$(grep -c ^processor /proc/cpuinfo) rounds=$ROUNDS runs=$RUNS vmap_pages=$VMAP_PAGES vmalloc_size=$VMALLOC_SIZE"
echo 4096 >$T/buffer_size_kb
echo 1 >$T/tracing_on

events() { for e in $EVENTS; do echo "$1" >$T/events/vmalloc/$e/enable; done; }
# jfeat NAME FILE: "how" of JSON feature NAME
jfeat() { grep -o "\"$1\":{[^}]*}" "$2" | grep -o '"how":"[^"]*"' | head -n 1; }
run() { echo "$ROUNDS" >$P/run || exit 1; cat $P/last_ns; }
# jnum KEY FILE: sum of every "KEY": N in the JSON of FILE
jnum() { grep -o "\"$1\": *[0-9]*" "$2" | awk -F: '{ s += $2 } END { print s + 0 }'; }

# One vmapstat configuration: the workload under "vmapstat -j ARGS", and
# every event its programs counted (series events, the stock vmalloc
# events, timed calls; the area events apart for the stack method's cost).
vmapstat_row() {
	cfg=$1
	shift
	vmapstat -j "$@" -- sh -c "echo $ROUNDS >$P/run" >/tmp/vs.json 2>/tmp/vs.err ||
		{ echo "vmapstat $* failed:"; cat /tmp/vs.err; exit 1; }
	ns=$(cat $P/last_ns)
	s=$(( $(jnum chunk_events /tmp/vs.json) + $(jnum set_ptes_events /tmp/vs.json) + \
		$(jnum huge_block_events /tmp/vs.json) ))
	a=$(jnum alloc_vmap_area_events /tmp/vs.json)
	o=$(( a + $(jnum purge_events /tmp/vs.json) + $(jnum lazy_free_events /tmp/vs.json) + \
		$(jnum calls /tmp/vs.json) ))
	echo "@@OVH cfg=$cfg rep=$r rounds=$ROUNDS ns=$ns events=$((s + o)) series_events=$s area_events=$a"
}

events 0
run >/dev/null			# warm-up: first-touch costs, lazy purge state

if [ "$VARIANT" = stock ]; then
	r=1
	while [ $r -le "$RUNS" ]; do
		echo "@@OVH cfg=off rep=$r rounds=$ROUNDS ns=$(run)"
		vmapstat_row vmapstat
		cp /tmp/vs.json /tmp/vs-default.json
		vmapstat_row vmapstat-nolat --no-latency
		vmapstat_row vmapstat-stack --stack-callers
		r=$((r + 1))
	done
	for f in latency areas callers; do
		echo "@@FEATURE $f $(jfeat $f /tmp/vs-default.json)"
	done
	rmmod overhead_workload
	echo "@@DONE"
	exit 0
fi

# The floor attaches what vmapstat attaches by default: every vmalloc
# tracepoint it finds, and each latency probe by the method vmapstat chose
# ("vmapstat: latency API FUNC fentry|kprobe" lines of -v).
vmapstat -v -j -- true >/dev/null 2>/tmp/vsv.err ||
	{ echo "vmapstat -v failed:"; cat /tmp/vsv.err; exit 1; }
FLOOR_ARGS=$(awk '$1 == "vmapstat:" && $2 == "latency" {
	if ($5 == "fentry") printf "-f %s ", $4; else if ($5 == "kprobe") printf "-k %s ", $4 }' /tmp/vsv.err)
FLOOR_TP_ARGS=
for e in $EVENTS alloc_vmap_area purge_vmap_area_lazy free_vmap_area_noflush; do
	[ ! -d $T/events/vmalloc/$e ] || FLOOR_TP_ARGS="$FLOOR_TP_ARGS -t $e"
done
FLOOR_ARGS="$FLOOR_ARGS$FLOOR_TP_ARGS"
echo "@@FLOOR $FLOOR_ARGS"
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

	echo >$T/trace
	events 1
	ns=$(run)
	events 0
	n=$(grep -cE ' (vmap_chunk|vmap_set_ptes|vmap_huge_block): ' $T/trace)
	echo >$T/trace
	echo "@@OVH cfg=record rep=$r rounds=$ROUNDS ns=$ns events=$n"

	if [ $HAVE_PERF = 1 ]; then
		perf stat -a -x, -o /tmp/ps.txt -e 'vmalloc:*' -- sh -c "echo $ROUNDS >$P/run" ||
			{ echo "perf stat failed"; exit 1; }
		n=$(awk -F, '$3 ~ /^vmalloc:/ { s += $1 } END { print s + 0 }' /tmp/ps.txt)
		echo "@@OVH cfg=perfstat rep=$r rounds=$ROUNDS ns=$(cat $P/last_ns) events=$n"
	fi

	# shellcheck disable=SC2086
	vmapscope-floor $FLOOR_ARGS -- sh -c "echo $ROUNDS >$P/run" >/tmp/fl.out 2>/tmp/fl.err ||
		{ echo "vmapscope-floor failed:"; cat /tmp/fl.err; exit 1; }
	echo "@@OVH cfg=floor rep=$r rounds=$ROUNDS ns=$(cat $P/last_ns) $(cat /tmp/fl.out)"

	vmapstat_row vmapstat
	cp /tmp/vs.json /tmp/vs-default.json

	# shellcheck disable=SC2086
	vmapscope-floor $FLOOR_TP_ARGS -- sh -c "echo $ROUNDS >$P/run" >/tmp/fl.out 2>/tmp/fl.err ||
		{ echo "vmapscope-floor failed:"; cat /tmp/fl.err; exit 1; }
	echo "@@OVH cfg=floor-nolat rep=$r rounds=$ROUNDS ns=$(cat $P/last_ns) $(cat /tmp/fl.out)"

	vmapstat_row vmapstat-nolat --no-latency
	vmapstat_row vmapstat-stack --stack-callers

	# Time to attach: from a clock read just before the shell starts
	# vmapstat to the clock read by the command vmapstat starts, which it
	# does once every probe is attached.  base_ns is the same sequence
	# without vmapstat (the shell starting sh + cat), to subtract.
	t0=$(cat $P/now_ns)
	vmapstat -j -- cat $P/now_ns >/tmp/att.out 2>/tmp/vs.err ||
		{ echo "vmapstat failed:"; cat /tmp/vs.err; exit 1; }
	t1=$(head -n 1 /tmp/att.out)
	b0=$(cat $P/now_ns)
	b1=$(sh -c "cat $P/now_ns")
	echo "@@ATTACH rep=$r ns=$((t1 - t0)) base_ns=$((b1 - b0))"
	r=$((r + 1))
done
grep -o '"latency":{[^}]*}' /tmp/vs-default.json | sed "s/^/@@FEATURE /"
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
