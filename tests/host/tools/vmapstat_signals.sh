#!/usr/bin/env bash
# vmapstat in command mode (vmapstat ... -- CMD) when it is told to stop:
# SIGTERM, SIGINT and SIGHUP sent to vmapstat alone are passed on to the
# command; vmapstat then reports what it saw and exits with the command's
# status, instead of waiting for a command nobody told to end.  A command
# that ignores the signal is given 2 s, then vmapstat reports without it.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

V=${VMAPSTAT:-out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}
tmp=$(mktemp -d)
kids=()
cleanup() {
	local p
	for p in "${kids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$V" ] || die "$V not built"
if [ "$(id -u)" != 0 ]; then
	skip "vmapstat signal test needs root (BPF)"; await_vmapstat
fi

# start ARGS...: vmapstat -j ARGS in the background, back once
# its command runs (it writes its pid to $tmp/cmd.pid)
start() {
	rm -f "$tmp/cmd.pid"
	"$V" -j "$@" >"$tmp/out" 2>"$tmp/err" &
	vpid=$!
	kids+=("$vpid")
	for i in $(seq 300); do [ -s "$tmp/cmd.pid" ] && break; sleep 0.1; done
	[ -s "$tmp/cmd.pid" ] || die "the command never started: $(cat "$tmp/err")"
	cpid=$(cat "$tmp/cmd.pid")
	kids+=("$cpid")
}
# await_vmapstat: vmapstat's status, and the seconds it took after the signal
await_vmapstat() {
	local t0=$SECONDS
	rc=0
	# bounded: a vmapstat that waits for its command would sit here 60 s
	for i in $(seq 200); do kill -0 "$vpid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$vpid" 2>/dev/null && die "vmapstat still runs 20 s after the signal"
	wait "$vpid" || rc=$?
	took=$((SECONDS - t0))
}
report_ok() {
	python3 - "$tmp/out" <<'PY' || die "no complete report after the signal: $(cat "$tmp/out")"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, f"{len(lines)} lines"
assert json.loads(lines[0])["schema"] == "vmapstat/1"
PY
}

# 1. The signal reaches the command: sleep dies of it, vmapstat reports and
#    exits 128+N, the command's own status.
for sig in TERM INT HUP; do
	start -- sh -c "echo \$\$ >'$tmp/cmd.pid'; exec sleep 60"
	kill -"$sig" "$vpid"
	await_vmapstat
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || die "SIG$sig: vmapstat exited $rc, want $want: $(cat "$tmp/err")"
	kill -0 "$cpid" 2>/dev/null && die "SIG$sig: the command still runs"
	report_ok
	pass "SIG$sig to vmapstat: passed on, command ended, report written, exit $rc"
done

# 2. A command that handles the signal ends its own way; vmapstat exits
#    with that status.
start -- sh -c "echo \$\$ >'$tmp/cmd.pid'; trap 'kill \$!; exit 3' TERM; sleep 60 & wait"
kill -TERM "$vpid"
await_vmapstat
[ "$rc" = 3 ] || die "trapping command: vmapstat exited $rc, want 3: $(cat "$tmp/err")"
report_ok
pass "a command that traps SIGTERM exits 3, and so does vmapstat"

# 3. A command that ignores it: vmapstat reports after the 2 s grace,
#    says so in one line, exits 143; the command is left running.
start -- sh -c "trap '' TERM; echo \$\$ >'$tmp/cmd.pid'; exec sleep 60"
kill -TERM "$vpid"
await_vmapstat
[ "$rc" = 143 ] || die "ignoring command: vmapstat exited $rc, want 143"
[ "$took" -le 6 ] || die "ignoring command: vmapstat took ${took}s"
grep -q "^vmapstat: 'sh' still runs 2 s after Terminated; reporting without it$" "$tmp/err" ||
	die "no line about the command left running: $(cat "$tmp/err")"
kill -0 "$cpid" 2>/dev/null || die "the command that ignores SIGTERM was killed"
report_ok
pass "a command that ignores SIGTERM: report after ${took}s, exit 143, command left running"
finish
