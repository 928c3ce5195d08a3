#!/usr/bin/env bash
# Every output form of the exporter passes "promtool check metrics":
# --prometheus on stdout (interval and command mode), GET /metrics from
# --listen, and the --textfile file; and the three carry the same metric
# families.  Bad options fail with one line and exit 2 (1 at run time).
. "$(dirname "$0")/lib.sh"
need promtool curl python3

check_metrics() {	# FILE WHAT
	local out
	[ -s "$1" ] || die "$2: empty exposition"
	out=$(promtool check metrics <"$1" 2>&1) || die "$2: promtool: $out"
	[ -z "$out" ] || die "$2: promtool lint: $out"
	grep -q '^vmapscope_build_info{' "$1" || die "$2: no vmapscope_build_info"
	grep -q '^vmapscope_intervals_total ' "$1" || die "$2: no vmapscope_intervals_total"
}

families() { grep '^# TYPE ' "$1" | sort; }

# --prometheus, interval mode: one exposition after 2 intervals
"$VMAPSTAT" -p --prometheus 0.5 2 >"$T/stdout.prom" 2>"$T/err" ||
	die "--prometheus: exit $? $(cat "$T/err")"
check_metrics "$T/stdout.prom" "--prometheus"
[ "$(grep -c '^# TYPE vmapscope_build_info ' "$T/stdout.prom")" = 1 ] ||
	die "--prometheus printed more than one exposition"
grep -q '^vmapscope_intervals_total 2$' "$T/stdout.prom" ||
	die "--prometheus 0.5 2: intervals_total is not 2"
pass "--prometheus (interval mode) passes promtool"

# --prometheus, command mode: the command's lifetime
"$VMAPSTAT" --prometheus -- /bin/sh -c 'for i in 1 2 3 4 5; do /bin/true; done' \
	>"$T/cmd.prom" 2>"$T/err" || die "--prometheus -- cmd: exit $? $(cat "$T/err")"
check_metrics "$T/cmd.prom" "--prometheus -- COMMAND"
grep -q '^vmapscope_intervals_total 1$' "$T/cmd.prom" ||
	die "command mode: intervals_total is not 1"
pass "--prometheus (command mode) passes promtool"

# --pmu: the PMU counts of the period become vmapscope_pmu_events_total
# per event and CPU (task-clock: a software event every kernel has).
"$VMAPSTAT" --pmu task-clock --prometheus 0.5 1 >"$T/pmu.prom" 2>"$T/err" ||
	die "--pmu --prometheus: exit $? $(cat "$T/err")"
check_metrics "$T/pmu.prom" "--pmu --prometheus"
awk '/^vmapscope_pmu_events_total\{event="task-clock",pmu="software",cpu="[0-9]+"\} [0-9]+$/ { if ($2 > 0) n++ }
	END { exit !(n >= 1) }' "$T/pmu.prom" ||
	die "--pmu: no positive vmapscope_pmu_events_total for task-clock: $(grep pmu_events "$T/pmu.prom")"
pass "--pmu counts are exported per event and CPU"

# --listen and --textfile from one run
start_vmapstat -p --listen 127.0.0.1:0 --textfile "$T/vmapscope.prom" 0.5
wait_for 10 grep -q '^vmapscope_intervals_total [1-9]' "$T/vmapscope.prom" ||
	die "--textfile: no interval written"
workload 20
sleep 1
curl -sf "$VS_URL" -o "$T/http.prom" || die "GET $VS_URL failed"
cp "$T/vmapscope.prom" "$T/file.prom"
check_metrics "$T/http.prom" "--listen"
check_metrics "$T/file.prom" "--textfile"
pass "GET /metrics and --textfile pass promtool"
# the scrape carries the exporter's own families after the exposition
self='^# TYPE (process_|promhttp_metric_handler_|vmapscope_http_requests_total |vmapscope_scrape_duration_seconds )'
[ "$(families "$T/http.prom" | grep -Ev "$self")" = "$(families "$T/stdout.prom")" ] ||
	die "--listen and --prometheus expose different families"
[ "$(families "$T/stdout.prom" | grep -Ec "$self")" = 0 ] &&
	[ "$(families "$T/file.prom" | grep -Ec "$self")" = 0 ] ||
	die "--prometheus or --textfile carries the exporter's own families"
[ "$(families "$T/http.prom" | grep -Ec "$self")" = 10 ] ||
	die "the scrape lacks some of the exporter's own families: $(families "$T/http.prom" | grep -E "$self")"
[ "$(families "$T/file.prom")" = "$(families "$T/stdout.prom")" ] ||
	die "--textfile and --prometheus expose different families"
pass "all output forms carry the same metric families"
[ "$(stat -c %a "$T/vmapscope.prom")" = 644 ] || die "--textfile mode is not 0644"
stop_vmapstat || die "vmapstat --listen exited with $?"
STARTED_PIDS=()
# Only once the writer is gone: while it runs, a write in progress owns
# a temporary file for a moment.
ls -la "$T" | grep -q '\.vmapscope\.prom\.' && die "--textfile left a temporary file"
pass "--textfile leaves no temporary file, mode 0644; vmapstat exits 0 on SIGINT"

# --listen without INTERVAL: every scrape reads the counters from the maps.
# A second vmapstat in between allocates its BPF maps with vmalloc: the
# second scrape must see those alloc_vmap_area events with no interval.
start_vmapstat --listen 127.0.0.1:0
curl -sf "$VS_URL" -o "$T/scrape1.prom" || die "GET $VS_URL failed"
"$VMAPSTAT" -- /bin/true >/dev/null 2>&1 || die "second vmapstat failed"
curl -sf "$VS_URL" -o "$T/scrape2.prom" || die "GET $VS_URL failed"
check_metrics "$T/scrape1.prom" "--listen, no INTERVAL"
check_metrics "$T/scrape2.prom" "--listen, no INTERVAL"
areas() { awk '$1 == "vmapscope_alloc_vmap_area_events_total" { print $2 }' "$1"; }
a1=$(areas "$T/scrape1.prom"); a2=$(areas "$T/scrape2.prom")
[ -n "$a1" ] && [ -n "$a2" ] && [ "$a2" -gt "$a1" ] ||
	die "--listen without INTERVAL: alloc_vmap_area '$a1' then '$a2', want growth"
grep -q '^vmapscope_intervals_total 2$' "$T/scrape2.prom" ||
	die "--listen without INTERVAL: second scrape is not the second reading"
# service mode, stopped as systemd stops it: SIGTERM, exit 0, nothing on
# stdout (the journal), and on stderr only the startup lines
kill -TERM "$VS_PID"
rc=0; wait "$VS_PID" || rc=$?
[ $rc = 0 ] || die "vmapstat --listen (no INTERVAL) exited with $rc on SIGTERM"
STARTED_PIDS=()
[ ! -s "$T/vmapstat.out" ] || die "service mode wrote to stdout: $(head -c 300 "$T/vmapstat.out")"
if grep -v -e '^vmapstat: \(granule\|chunk\|latency\|areas\): ' -e '^vmapstat: serving ' \
	"$T/vmapstat.err" | grep -q .; then
	die "service mode: unexpected stderr: $(cat "$T/vmapstat.err")"
fi
pass "service mode (no INTERVAL): SIGTERM exits 0, nothing on stdout, only the startup lines on stderr"
pass "--listen without INTERVAL: each scrape reads the maps ($a1 then $a2 alloc_vmap_area events)"

# --live-bytes: needs real addresses in /proc/vmallocinfo (kptr_restrict=1
# as root); otherwise it must say so and stop
if [ "$(cat /proc/sys/kernel/kptr_restrict)" = 1 ]; then
	"$VMAPSTAT" --live-bytes --prometheus 0.5 1 >"$T/live.prom" 2>"$T/err" ||
		die "--live-bytes: exit $? $(cat "$T/err")"
	check_metrics "$T/live.prom" "--live-bytes"
	grep -q '^vmapscope_live_bytes{caller=".*",api="[a-z_]*",granule="4K"} [1-9]' "$T/live.prom" ||
		die "--live-bytes: no 4K live bytes"
	pass "--live-bytes exports vmapscope_live_bytes, passes promtool"
else
	rc=0
	"$VMAPSTAT" --live-bytes --prometheus 0.5 1 >"$T/live.prom" 2>"$T/err" || rc=$?
	[ $rc = 1 ] && tail -1 "$T/err" | grep -q 'live-bytes: .*kptr_restrict' ||
		die "--live-bytes with kptr_restrict=$(cat /proc/sys/kernel/kptr_restrict): rc $rc, $(cat "$T/err")"
	[ ! -s "$T/live.prom" ] || die "--live-bytes failed but printed an exposition"
	pass "--live-bytes with hashed /proc/vmallocinfo: one clear line, exit 1"
fi

# Bad input: one line on stderr, exit 2 (options) or 1 (run time)
bad() {	# EXPECTED_RC NEEDLE ARGS...
	local want=$1 needle=$2 rc=0; shift 2
	"$VMAPSTAT" "$@" >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = "$want" ] || die "vmapstat $*: exit $rc, want $want ($(cat "$T/bad.err"))"
	if [ "$want" = 2 ]; then
		[ "$(wc -l <"$T/bad.err")" = 1 ] || die "vmapstat $*: not one line: $(cat "$T/bad.err")"
	else
		# run-time errors come after the collector attached, which may
		# have said which columns this kernel lacks: the error is last
		grep -q '^vmapstat: ' "$T/bad.err" || die "vmapstat $*: no error line"
		sed -i '$!d' "$T/bad.err"
	fi
	grep -q -- "$needle" "$T/bad.err" || die "vmapstat $*: '$needle' not in $(cat "$T/bad.err")"
	[ ! -s "$T/bad.out" ] || die "vmapstat $*: wrote to stdout"
}
bad 2 "bad port" --listen abc 1 1
bad 2 "bad port" --web.listen-address 127.0.0.1:x 1 1
bad 2 "bad port" --listen 127.0.0.1:99999 1 1
bad 2 "bad IPv4 address" --listen 1.2.3:80 1 1
bad 2 "must end in .prom" --textfile "$T/x.txt" 1 1
bad 1 "does not exist" --textfile /nonexistent-vmapscope/x.prom 1 1
bad 2 "invalid --top-callers" --top-callers -1 --prometheus 1 1
bad 2 "invalid --top-callers" --top-callers 10x --prometheus 1 1
bad 2 "invalid --listen-timeout" --listen 0 --listen-timeout 0 1 1
bad 2 "not -- COMMAND" --listen 0 -- /bin/true
port=$(free_port)
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(30)' "$port" &
STARTED_PIDS+=($!)
wait_for 20 python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])))' "$port" ||
	die "could not occupy port $port"
bad 1 "Address already in use" --listen "127.0.0.1:$port" 1 1
pass "bad options and a busy port: one line, exit 2 / 1"

# A textfile that cannot be written at start: one line, exit 1, at once
rc=0
timeout 20 "$VMAPSTAT" --textfile /proc/vmapscope-test.prom 0.2 3 >"$T/tf.out" 2>"$T/tf.err" || rc=$?
[ $rc = 1 ] || die "--textfile /proc/...: exit $rc, want 1 ($(cat "$T/tf.err"))"
[ "$(grep -c -- '--textfile' "$T/tf.err")" = 1 ] && tail -1 "$T/tf.err" | grep -q -- '--textfile /proc/vmapscope-test.prom: cannot create' ||
	die "--textfile /proc/...: not one clear last line: $(cat "$T/tf.err")"
! grep -q 'will retry' "$T/tf.err" || die "--textfile /proc/...: still says it will retry"
pass "a textfile that cannot be written at start: one line, exit 1"

# Written, then its directory vanishes: retried; exit 1 if the last write
# failed, 0 if a later write worked again
textfile_gone() {	# RECREATE(0/1)
	local d="$T/tfdir" rc=0
	mkdir -p "$d"
	"$VMAPSTAT" --textfile "$d/v.prom" 0.3 12 >/dev/null 2>"$T/tf.err" &
	local pid=$!
	wait_for 10 test -s "$d/v.prom" || die "textfile never written"
	rm -rf "$d"
	wait_for 10 grep -q 'will retry' "$T/tf.err" || die "no retry line: $(cat "$T/tf.err")"
	[ "$1" = 1 ] && mkdir -p "$d"
	wait "$pid" || rc=$?
	echo $rc
}
rc=$(textfile_gone 0)
[ "$rc" = 1 ] || die "textfile whose last write failed: exit $rc, want 1 ($(cat "$T/tf.err"))"
tail -1 "$T/tf.err" | grep -q 'the last write failed' || die "no final line: $(cat "$T/tf.err")"
rc=$(textfile_gone 1)
[ "$rc" = 0 ] || die "textfile written again: exit $rc, want 0 ($(cat "$T/tf.err"))"
grep -q 'written again' "$T/tf.err" || die "no 'written again': $(cat "$T/tf.err")"
pass "a textfile failing mid-run is retried; exit 1 only if its last write failed"

# --listen :PORT: every address, IPv4 and IPv6 (in a network namespace of
# our own, where the only addresses are loopback ones)
if command -v unshare >/dev/null && unshare -n true 2>/dev/null; then
	unshare -n bash -c '
		ip link set lo up
		"$1" --listen :0 0.5 8 >/dev/null 2>"$2/any.err" &
		for _ in $(seq 50); do grep -q "serving " "$2/any.err" && break; sleep 0.2; done
		port=$(sed -n "s|.*serving http://\[::\]:\([0-9]*\)/metrics (every address)|\1|p" "$2/any.err")
		[ -n "$port" ] || { echo "no serving line: $(cat "$2/any.err")"; exit 1; }
		curl -sf "http://127.0.0.1:$port/metrics" | grep -q "^vmapscope_build_info" || { echo "IPv4 scrape failed"; exit 1; }
		curl -sf "http://[::1]:$port/metrics" | grep -q "^vmapscope_build_info" || { echo "IPv6 scrape failed"; exit 1; }
		kill -INT %1; wait %1' _ "$VMAPSTAT" "$T" >"$T/any.out" 2>&1 ||
		die "--listen :0: $(cat "$T/any.out")"
	pass "--listen :PORT serves IPv4 and IPv6 (private network namespace)"
fi
finish
