#!/usr/bin/env bash
# vmapstat on this machine's own kernel (no series tracepoints expected):
# it loads, attaches what exists, reports, names what is missing, keeps
# JSON whole, propagates a command's exit status and rejects bad input
# with exit 2 and one stderr line.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

V=${VMAPSTAT:-out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$V" ] || die "$V not built"
if [ "$(id -u)" != 0 ]; then
	skip "vmapstat host test needs root (BPF)"; finish
fi

# Which series tracepoints does this kernel have?  BTF names them.
have_tp() { bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	grep -q "TYPEDEF 'btf_trace_$1'"; }

# 1. vmapstat 1 1: loads, reports, exit 0, names missing columns once.
"$V" 1 1 >"$tmp/out" 2>"$tmp/err" || die "vmapstat 1 1 exited $?: $(cat "$tmp/err")"
[ -s "$tmp/out" ] || die "vmapstat 1 1 printed no report"
if have_tp vmap_mapped; then
	grep -q "lacks vmalloc:vmap_mapped" "$tmp/err" && die "claims vmap_mapped missing"
else
	[ "$(grep -c 'granule: kernel lacks vmalloc:vmap_mapped' "$tmp/err")" = 1 ] ||
		die "missing granule column not named exactly once: $(cat "$tmp/err")"
	grep -q "latency: the mapping time comes from vmalloc:vmap_mapped" "$tmp/err" ||
		die "missing mapping latency not named"
fi
pass "vmapstat 1 1 ($(wc -l <"$tmp/out") lines, $(wc -l <"$tmp/err") notes)"

# 2. Command mode + JSON: fork 100 concurrent processes (each needs a
#    vmap'ed kernel stack, more than the per-CPU stack cache holds) and
#    check the stock alloc_vmap_area tracepoint was attached and counted.
"$V" -j -p -- sh -c 'for i in $(seq 100); do /bin/true & done; wait' \
	>"$tmp/j" 2>"$tmp/err" || die "command mode exited $?: $(cat "$tmp/err")"
python3 - "$tmp/j" <<'PY' || die "JSON check"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"expected one JSON line, got {len(lines)}"
o = json.loads(lines[0])
assert o["schema"] == "vmapstat/1" and o["mode"] == "per_caller"
a = o["features"]["areas"]
assert a["available"] and a["how"] in ("raw_tp", "fexit", "kretprobe"), a
n = o["counters"]["alloc_vmap_area_events"]
assert n > 0, "no alloc_vmap_area events while forking 100 processes"
rows = sum(r["areas"] for r in o["rows"])
assert rows > 0, "areas not charged to any row"
for f in ("granule", "latency"):
    st = o["features"][f]
    assert st["available"] or st["why"], f"{f}: unavailable without a reason"
for f, opt in (("runs", "--runs"), ("call_latency", "--call-latency")):
    st = o["features"][f]
    assert st == {"available": False, "how": f"off ({opt})", "why": ""}, f"{f}: not asked for: {st}"
print(f"ok: JSON: {n} alloc_vmap_area events, {rows} areas in rows")
PY

# 2b. --pid filters in BPF: a shell that forks 100 children when told to.
#     Traced by its pid, its stack areas are counted; traced by the pid of
#     an idle process, nothing is, though the kernel saw the events.
forker() {
	mkfifo "$tmp/go.$1"
	sh -c "read x <'$tmp/go.$1'; for i in \$(seq 100); do /bin/true & done; wait" \
		>/dev/null 2>&1 &
	fp=$!
}
forker a
"$V" -j --pid "$fp" -- sh -c "echo go >'$tmp/go.a'; while kill -0 $fp 2>/dev/null; do sleep 0.05; done" \
	>"$tmp/pa" 2>/dev/null || die "--pid run (forker) failed"
sleep 30 >/dev/null 2>&1 &
idle=$!
forker b
"$V" -j --pid "$idle" -- sh -c "echo go >'$tmp/go.b'; while kill -0 $fp 2>/dev/null; do sleep 0.05; done" \
	>"$tmp/pb" 2>/dev/null || die "--pid run (idle) failed"
kill "$idle" 2>/dev/null || true
python3 - "$tmp/pa" "$tmp/pb" <<'PY' || die "--pid check"
import json, sys
a = json.loads(open(sys.argv[1]).read())
b = json.loads(open(sys.argv[2]).read())
na = sum(r["areas"] for r in a["rows"])
nb = sum(r["areas"] for r in b["rows"])
assert na > 0, "forker traced by --pid: no areas"
assert nb == 0, f"idle process traced by --pid: {nb} areas"
cb = b["counters"]
seen = cb["alloc_vmap_area_events"] - cb["alloc_vmap_area_failed"]
assert seen > 0, "kernel saw no events during the idle run"
# every event --pid dropped is counted (granule/chunk events too, where the
# kernel has them; latency probes count a call once)
assert cb["filtered_events"] >= seen, \
    f"--pid dropped {seen} areas but filtered_events is {cb['filtered_events']}"
print(f"ok: --pid: {na} areas for the forker, 0 of {seen} for an idle pid, "
      f"filtered_events {cb['filtered_events']}")
PY

# 2c. Callers named by kernel stack: without vmap_mapped and where
#     alloc_vmap_area() can be neither fentry- nor kprobe-traced (this
#     host: stock kernel, no kprobes, fentry refused) vmapstat names them
#     by stack by itself; --stack-callers forces it anywhere.  The fork burst's thread stacks must be charged to
#     the fork path's caller (copy_process / kernel_clone / dup_task_struct
#     / alloc_thread_stack_node, as inlining left it), not [unattributed].
for mode in auto forced; do
	opt=; [ $mode = forced ] && opt=--stack-callers
	# shellcheck disable=SC2086
	# the children live 1 s, all at once: each needs a stack of its own
	# (with /bin/true, a loaded host reuses the stacks of those that ended)
	"$V" -j -p $opt -- sh -c 'for i in $(seq 100); do sleep 1 & done; wait' \
		>"$tmp/s" 2>"$tmp/err" || die "$mode stack run exited $?: $(cat "$tmp/err")"
	python3 - "$tmp/s" $mode <<'PY' || die "stack callers ($mode)"
import json, re, sys
o = json.loads(open(sys.argv[1]).read())
mode, f = sys.argv[2], o["features"]
if mode == "auto" and f["callers"]["how"] != "stack":
    print(f"ok: stack callers (auto): not needed here, callers named by {f['callers']['how']}")
    sys.exit(0)
assert f["callers"] == {"available": True, "how": "stack", "why": ""}, f["callers"]
fork = re.compile(r"^(copy_process|kernel_clone|dup_task_struct|alloc_thread_stack_node)\+")
named = sum(r["areas"] for r in o["rows"] if fork.match(r["caller"]) and r["api"] == "vmalloc")
unattr = sum(r["areas"] for r in o["rows"] if r["caller"] == "[unattributed]")
assert named >= 50, f"fork burst: {named} areas under the fork path; rows: " + \
    str([(r["caller"], r["api"], r["areas"]) for r in o["rows"]])
assert unattr < named, f"{unattr} unattributed areas vs {named} named"
assert o["counters"]["stack_unnamed_areas"] == unattr, o["counters"]
print(f"ok: stack callers ({mode}): fork burst {named} areas under the fork path, {unattr} unattributed")
PY
done

# 2d. Interval mode, -j with --pmu: one JSON object per interval, the PMU
#     counts inside it as "pmu" (not an object of their own before it).
"$V" -j --pmu page-faults 0.5 2 >"$tmp/pj" 2>"$tmp/err" ||
	die "-j --pmu 0.5 2 exited $?: $(cat "$tmp/err")"
python3 - "$tmp/pj" <<'PY' || die "-j --pmu intervals: $(cat "$tmp/pj")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, f"expected two JSON lines (two intervals), got {len(lines)}"
for n, line in enumerate(lines, 1):
    o = json.loads(line)
    assert o["schema"] == "vmapstat/1", f"interval {n}: not vmapstat's object: {line[:200]}"
    p = o["pmu"]
    ev = [e for e in p["events"] if e["name"] == "page-faults"]
    assert len(ev) == 1 and ev[0]["counted"], f"interval {n}: page-faults: {p['events']}"
    assert p["period_s"] > 0.3, f"interval {n}: period_s {p['period_s']}"
print("ok: -j --pmu page-faults 0.5 2: two objects, each with its interval's \"pmu\"")
PY

# 2e. The PMU counts reach the exporter through the run: with --prometheus
#     stdout holds the exposition only, page-faults counted in it, in
#     interval mode and in command mode; -j's PMU object goes to stderr.
"$V" -j --pmu page-faults --prometheus 0.5 2 >"$tmp/pp" 2>"$tmp/err" ||
	die "--pmu --prometheus 0.5 2 exited $?: $(cat "$tmp/err")"
grep -q '^vmapscope_pmu_events_total{event="page-faults",.*} [0-9]' "$tmp/pp" ||
	die "--pmu --prometheus: no page-faults count: $(grep pmu "$tmp/pp")"
! grep -qv '^#\|^vmapscope_\|^$' "$tmp/pp" || die "--prometheus: stdout holds more than the exposition"
[ "$(grep -c '"pmu"' "$tmp/err")" = 2 ] || die "-j --prometheus: the PMU objects are not on stderr"
"$V" --pmu page-faults --prometheus -- sh -c 'for i in 1 2 3; do /bin/true; done' \
	>"$tmp/pp" 2>"$tmp/err" || die "--pmu --prometheus -- CMD exited $?: $(cat "$tmp/err")"
grep -q '^vmapscope_pmu_events_total{event="page-faults",.*cpu="command".*} [1-9]' "$tmp/pp" ||
	die "--pmu --prometheus -- CMD: no page-faults count: $(grep pmu "$tmp/pp")"
pass "--pmu with --prometheus: the counts in the exposition (interval and command mode)"

# 3. Exit status of the command is vmapstat's.
set +e
"$V" -- sh -c 'exit 7' >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 7 ] || die "command exit 7 gave $rc"
set +e
"$V" -- /nonexistent/cmd >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 127 ] || die "missing command gave $rc"
grep -q "cannot run '/nonexistent/cmd'" "$tmp/err" || die "no message for missing command"
pass "command exit status propagated (7, 127)"

# 4. Bad input: exit 2, exactly one line on stderr, nothing on stdout.
bad() {
	set +e
	"$V" "$@" >"$tmp/o" 2>"$tmp/e"; rc=$?
	set -e
	[ "$rc" = 2 ] || die "'$*' exited $rc, want 2"
	[ "$(wc -l <"$tmp/e")" = 1 ] || die "'$*': want one stderr line, got: $(cat "$tmp/e")"
	[ ! -s "$tmp/o" ] || die "'$*' wrote to stdout"
}
bad --bogus
bad -x
bad 0
bad -1
bad abc
bad 1 0
bad 1 2 3
bad --api nosuchapi
bad --api vmalloc,
bad --pid notapid
bad --max-callers 1
bad 1 -- true
bad --
pass "bad arguments: exit 2, one line"

# 5. Not root: one clear line, exit 1 (a runtime error: tests/host/tools/exit_status.sh).
if command -v setpriv >/dev/null; then
	set +e
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$V" 1 1 >/dev/null 2>"$tmp/e"; rc=$?
	set -e
	[ "$rc" = 1 ] || die "unprivileged run exited $rc"
	[ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "need root" "$tmp/e" ||
		die "unprivileged message: $(cat "$tmp/e")"
	pass "unprivileged: $(cat "$tmp/e")"
fi
finish
