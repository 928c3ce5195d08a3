#!/usr/bin/env bash
# The exit-status table of every tool (man/vmapstat.8, man/vmaptop.8 and
# docs/vmapstat.md, docs/vmaptop.md, "Exit status"), row by row, for
# vmapstat and vmaptop:
#   0  success
#   1  runtime error: a valid command line that failed here (not root, no
#      BTF, no usable terminal, a write to standard output)
#   2  usage error: the command line itself is wrong
# Every error is one line on stderr naming the tool; a failed write to
# standard output names it and the write's errno.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
BIN=$TOPDIR/out/$(uname -m | sed s/aarch64/arm64/)/bin
V=${VMAPSTAT:-$BIN/vmapstat}
T=${VMAPTOP:-$(dirname "$V")/vmaptop}
tmp=$(mktemp -d)
sock=exit-status-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
kr_saved=$(cat /proc/sys/kernel/kptr_restrict)
cleanup() {
	echo "$kr_saved" >/proc/sys/kernel/kptr_restrict 2>/dev/null || true
	tm kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$V" ] && [ -x "$T" ] || die "$V or $T not built"
if [ "$(id -u)" != 0 ]; then
	skip "the exit-status test needs root (BPF, setpriv, mount namespaces)"; finish
fi

# expect STATUS DESCRIPTION -- COMMAND...: the status, and for an error
# exactly one stderr line that is not one of the notes on missing kernel
# features (those precede a report, they are not errors).
expect() {
	local want=$1 what=$2 rc=0
	shift 3
	"$@" >"$tmp/o" 2>"$tmp/e" </dev/null || rc=$?
	[ "$rc" = "$want" ] || die "$what: exit $rc, want $want ($(cat "$tmp/e"))"
	grep -v -e ': granule: kernel lacks' -e ': chunk: kernel lacks' -e ': latency: ' \
		-e ': callers: ' "$tmp/e" >"$tmp/errors" || true
	if [ "$want" = 0 ]; then
		[ ! -s "$tmp/errors" ] || die "$what: exit 0 but stderr says: $(cat "$tmp/errors")"
	else
		[ "$(wc -l <"$tmp/errors")" = 1 ] ||
			die "$what: want one error line, got: $(cat "$tmp/errors")"
		grep -q '^vmap\(stat\|top\)\( compare\)\?: ' "$tmp/errors" ||
			die "$what: the error line does not name the tool: $(cat "$tmp/errors")"
	fi
}
# the one error line must be exactly this
says() { [ "$(cat "$tmp/errors")" = "$1" ] || die "stderr '$(cat "$tmp/errors")', want '$1'"; }
# kptr1 CHECK...: run the check (a subshell) with kernel.kptr_restrict=1,
# the snapshot's need.  The setting is the whole host's: if another
# process changed it during a failed check, the check says nothing, run
# it again.
kptr1() {
	local try
	for try in 1 2 3; do
		echo 1 >/proc/sys/kernel/kptr_restrict
		if ("$@") 2>"$tmp/kptr1.err"; then
			echo "$kr_saved" >/proc/sys/kernel/kptr_restrict
			return 0
		fi
		[ "$(cat /proc/sys/kernel/kptr_restrict)" = 1 ] && break
		echo "note: kptr_restrict changed during the check (another process): again"
	done
	echo "$kr_saved" >/proc/sys/kernel/kptr_restrict
	cat "$tmp/kptr1.err" >&2
	exit 1
}

# vmapstat compare needs two saved runs (PMU group, --repeat -j)
"$V" --pmu task-clock --repeat 2 -j -- true >"$tmp/run.json" 2>/dev/null ||
	die "cannot save a run for vmapstat compare"

# ---- 0: success -------------------------------------------------------
expect 0 "vmapstat 0.2 1" -- "$V" 0.2 1
expect 0 "vmapstat -j 0.2 1" -- "$V" -j 0.2 1
expect 0 "vmapstat -- true" -- "$V" -- true
expect 0 "vmapstat compare" -- "$V" compare "$tmp/run.json" "$tmp/run.json"
expect 0 "vmapstat --help" -- "$V" --help
expect 0 "vmapstat --version" -- "$V" --version
expect 0 "vmaptop -b -n 1" -- "$T" -b -n 1 -d 0.2
expect 0 "vmaptop --help" -- "$T" --help
expect 0 "vmaptop --version" -- "$T" --version
# the snapshot needs real addresses in /proc/vmallocinfo: kptr_restrict=1
kptr1 expect 0 "vmapstat --snapshot" -- "$V" --snapshot
pass "status 0: vmapstat (interval, JSON, command, compare, --snapshot, --help, --version), vmaptop (batch, --help, --version)"

# ---- 1: runtime error -------------------------------------------------
# not root: no CAP_BPF / CAP_PERFMON, no /proc/vmallocinfo
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"; }
expect 1 "vmapstat as nobody" -- nobody "$V" 0.2 1
says "vmapstat: need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_BPF, CAP_PERFMON)"
expect 1 "vmapstat -- true as nobody" -- nobody "$V" -- true
expect 1 "vmapstat --snapshot as nobody" -- nobody "$V" --snapshot
expect 1 "vmaptop -b as nobody" -- nobody "$T" -b -n 1 -d 0.2
says "vmaptop: need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_BPF, CAP_PERFMON)"
# one of the two: the line names the other, the one missing
nobody_with() {
	local c=$1
	shift
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+"$c" \
		--ambient-caps=-all,+"$c" --bounding-set=-all,+"$c" -- "$@"
}
expect 1 "vmapstat as nobody with CAP_BPF" -- nobody_with bpf "$V" 0.2 1
says "vmapstat: need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_PERFMON)"
expect 1 "vmapstat as nobody with CAP_PERFMON" -- nobody_with perfmon "$V" 0.2 1
says "vmapstat: need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_BPF)"
expect 1 "vmaptop as nobody with CAP_PERFMON" -- nobody_with perfmon "$T" -b -n 1 -d 0.2
says "vmaptop: need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_BPF)"
pass "status 1: not root (vmapstat, --snapshot, command mode, vmaptop), the missing capability named"

# no kernel BTF: /sys/kernel/btf hidden in a private mount namespace
nobtf() { unshare -m sh -c 'mount -t tmpfs none /sys/kernel/btf && exec "$@"' sh "$@"; }
expect 1 "vmapstat without BTF" -- nobtf "$V" 0.2 1
grep -q 'no BTF' "$tmp/errors" || die "no-BTF line: $(cat "$tmp/errors")"
expect 1 "vmapstat --snapshot without BTF" -- nobtf "$V" --snapshot
expect 1 "vmaptop without BTF" -- nobtf "$T" -b -n 1 -d 0.2
pass "status 1: no kernel BTF (vmapstat, --snapshot, vmaptop)"

# a failed write to standard output: the write named, with its errno,
# whichever path wrote (interval, JSON, command mode, compare, the audit,
# --prometheus, --help, --version), instead of exit 0 or "Input/output
# error", and named once
full() { "$@" >/dev/full; }
for args in "0.2 1" "-j 0.2 1" "-- true" "-j -- true" "--help" "--version" \
	    "compare $tmp/run.json $tmp/run.json" "--prometheus 0.2 1" "--prometheus -- true"; do
	# shellcheck disable=SC2086
	expect 1 "vmapstat $args >/dev/full" -- full "$V" $args
	says "vmapstat: writing standard output: No space left on device"
done
# --prometheus alone runs until a stop signal, then writes the exposition:
# SIGINT once vmapstat handles it (SigCgt, bit 1), so that it ends the run
full_until_sigint() {
	local pid i cgt
	"$@" >/dev/full &
	pid=$!
	for i in $(seq 300); do
		cgt=$(awk '/^SigCgt:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || break
		[ -n "$cgt" ] && [ $((0x$cgt & 2)) != 0 ] && break
		sleep 0.1
	done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}
expect 1 "vmapstat --prometheus >/dev/full (until SIGINT)" -- full_until_sigint "$V" --prometheus
says "vmapstat: writing standard output: No space left on device"
snapshot_full() {
	# shellcheck disable=SC2086
	expect 1 "vmapstat $1 >/dev/full" -- full "$V" $1
	says "vmapstat: writing standard output: No space left on device"
}
for args in "--snapshot" "--snapshot -j -p"; do
	kptr1 snapshot_full "$args"
done
for args in "-b -n 1 -d 0.2" "--help" "--version"; do
	# shellcheck disable=SC2086
	expect 1 "vmaptop $args >/dev/full" -- full "$T" $args
	says "vmaptop: writing standard output: No space left on device"
done
# a closed standard output: EBADF, not a silent success (--help: a run
# would open files and maps, and the first would become descriptor 1)
expect 1 "vmapstat --help >&-" -- sh -c 'exec "$@" >&-' sh "$V" --help
says "vmapstat: writing standard output: Bad file descriptor"
# interval mode stops at the first lost interval: 3 intervals of 0.2 s
# would still be running after 30 s if it did not
start=$SECONDS
expect 1 "vmapstat 0.2 (forever) >/dev/full" -- full timeout 30 "$V" 0.2
[ $((SECONDS - start)) -lt 10 ] || die "vmapstat ran on after a failed write"
pass "status 1: a failed write to standard output, named with its errno (ENOSPC, EBADF)"

# no usable terminal for the full screen: not a terminal at all, or one
# that ncurses cannot drive (TERM unset)
expect 1 "vmaptop full screen without a terminal" -- "$T" -d 0.2
says "vmaptop: the full-screen view needs a terminal; use -b for text"
command -v tmux >/dev/null || die "tmux not installed (scripts/install-deps)"
tm new-session -d -s es -x 120 -y 30 "env -u TERM $T -d 0.2 2>$tmp/tty.err; echo \$? >$tmp/tty.rc; sleep 60"
tm set-option -s exit-empty off
for i in $(seq 100); do [ -s "$tmp/tty.rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/tty.rc" 2>/dev/null)" = 1 ] ||
	die "vmaptop with TERM unset: exit '$(cat "$tmp/tty.rc" 2>/dev/null)' ($(cat "$tmp/tty.err"))"
[ "$(cat "$tmp/tty.err")" = "vmaptop: cannot use the terminal (TERM=unset); try -b" ] ||
	die "vmaptop with TERM unset said: $(cat "$tmp/tty.err")"
pass "status 1: vmaptop without a usable terminal (none; TERM unset)"

# ---- 2: usage error ---------------------------------------------------
expect 2 "vmapstat --bogus" -- "$V" --bogus
expect 2 "vmapstat 0.05 1" -- "$V" 0.05 1
expect 2 "vmapstat 1 0" -- "$V" 1 0
expect 2 "vmapstat --api nosuchapi" -- "$V" --api nosuchapi
expect 2 "vmapstat 1 -- true" -- "$V" 1 -- true
expect 2 "vmapstat --snapshot --pid 1" -- "$V" --snapshot --pid 1
says "vmapstat: --snapshot and --pid exclude each other (see vmapstat --help)"
expect 2 "vmaptop --bogus" -- "$T" --bogus
expect 2 "vmaptop -d 0.05" -- "$T" -b -d 0.05
expect 2 "vmaptop -n 0" -- "$T" -b -n 0
expect 2 "vmaptop -s bogus" -- "$T" -b -s bogus
expect 2 "vmaptop --api nosuchapi" -- "$T" -b --api nosuchapi
# usage is checked before privileges or the terminal: still 2 as nobody
expect 2 "vmapstat --bogus as nobody" -- nobody "$V" --bogus
expect 2 "vmaptop -d 0.05 (full screen) as nobody" -- nobody "$T" -d 0.05
pass "status 2: usage errors (options, values, combinations), before any privilege check"

# ---- the table itself, the same in the four places that give it --------
for f in man/vmapstat.8 man/vmaptop.8 docs/vmapstat.md docs/vmaptop.md; do
	tr '\n' ' ' <"$TOPDIR/$f" | sed 's/\\f[BIRP]//g; s/\\-/-/g; s/[`*]//g' >"$tmp/doc"
	for row in "0 success" "1 runtime error" "2 usage error"; do
		grep -qi -- "$(echo "$row" | sed 's/ /[ |.B]*/')" "$tmp/doc" ||
			die "$f: the exit-status table lacks '$row'"
	done
	grep -qi 'not root' "$tmp/doc" && grep -qi 'standard output' "$tmp/doc" ||
		die "$f: the table does not place 'not root' and a failed write"
done
pass "the table is in both man pages and both docs"
finish
