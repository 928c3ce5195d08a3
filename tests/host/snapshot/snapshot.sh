#!/usr/bin/env bash
# Host test of the snapshot (vmapstat --snapshot) on
# this machine's own kernel: it either reports real areas, or exits 1 with
# one line naming exactly what the kernel hides and why.  Which of the two
# is right is decided from the kernel's own settings, not hard-coded.
# Also: unreadable / bad area lists give one clear line and exit 1.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

# VMAPSNAP: the command to test, e.g. "out/x86_64/bin/vmapstat --snapshot"
# (word-split on purpose).
VMAPSNAP=${VMAPSNAP:?set VMAPSNAP to "vmapstat --snapshot"}
read -r -a SNAP <<<"$VMAPSNAP"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
FIX=$TOPDIR/tests/fixtures/vmallocinfo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


# run NAME ARGS...: sets rc, out, err (stderr must be a single line on a
# runtime failure; argp usage errors add its "Try --help" line)
run() {
	local name=$1
	shift
	set +e
	"${SNAP[@]}" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	if [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" != 1 ]; then
		fail "$name: expected one stderr line, got: $err"
	fi
}

[ "$(id -u)" = 0 ] || { echo "host.sh: must run as root" >&2; exit 1; }

# 1. This kernel, as it is.
kr=$(cat /proc/sys/kernel/kptr_restrict)
run "this kernel" -j
first=$(head -n1 /proc/vmallocinfo)
if [[ "$first" =~ ^0x0{16}-0x0{16} ]]; then
	expect=zeros
elif [[ "$first" =~ ^0xff ]]; then
	expect=real
else
	expect=hashed
fi
echo "host kernel $(uname -r), kptr_restrict=$kr, /proc/vmallocinfo addresses: $expect"
case "$expect" in
real)
	if [ "$rc" = 0 ]; then
		areas=$(jq '.total.areas' <<<"$out")
		mapped=$(jq '.total.mapped' <<<"$out")
		[ "$areas" -gt 0 ] && [ "$mapped" -gt 0 ] &&
			pass "real areas reported: $areas areas, $mapped bytes mapped" ||
			fail "real addresses but an empty report: $out"
	else
		# Allowed only if it names what else is hidden.
		grep -qE 'init_mm|linear map|BTF|BPF' <<<"$err" &&
			pass "names what is hidden: $err" || fail "unexplained failure: $err"
	fi
	;;
hashed)
	[ "$rc" = 1 ] || fail "hashed vmallocinfo must exit 1 (rc=$rc)"
	grep -q 'addresses are hashed: kernel.kptr_restrict is 0' <<<"$err" &&
		pass "names the hidden addresses: $err" || fail "wrong message: $err"
	;;
zeros)
	[ "$rc" = 1 ] || fail "zero addresses must exit 1 (rc=$rc)"
	grep -q 'addresses are printed as zeros' <<<"$err" &&
		pass "names the zeroed addresses" || fail "wrong message: $err"
	;;
esac
# Whatever else it reports as hidden must match the kernel: without data
# symbols in kallsyms it may not claim to have found init_mm there.
if ! grep -qw init_mm /proc/kallsyms && [ "$rc" = 0 ]; then
	jq -r '.init_mm' <<<"$out" | grep -qv '^kallsyms' &&
		pass "init_mm found without kallsyms: $(jq -r '.init_mm' <<<"$out")" ||
		fail "claims kallsyms init_mm on a kernel without it"
fi

# 2. Bad or unreadable area lists: one line, exit 1.
check_bad() {
	local name=$1 pattern=$2
	shift 2
	run "$name" "$@"
	if [ "$rc" = 1 ] && grep -q -- "$pattern" <<<"$err"; then
		pass "$name: $err"
	else
		fail "$name: rc=$rc, stderr: $err"
	fi
}
check_bad "missing file" "cannot open $tmp/nope: No such file or directory" --vmallocinfo "$tmp/nope"
check_bad "malformed line" "malformed.txt:2: not a vmallocinfo line" --vmallocinfo "$FIX/malformed.txt"
check_bad "not vmallocinfo" "garbage.txt:1: not a vmallocinfo line" --vmallocinfo "$FIX/garbage.txt"
check_bad "empty file" "no vmalloc areas listed" --vmallocinfo "$FIX/empty.txt"
check_bad "hashed file" "addresses are hashed" --vmallocinfo "$FIX/hashed.txt"
check_bad "zeroed file" "addresses are printed as zeros" --vmallocinfo "$FIX/zero.txt"
check_bad "directory" "read error" --vmallocinfo "$tmp"

# Not root: /proc/vmallocinfo is root-only.
if command -v setpriv >/dev/null; then
	set +e
	setpriv --reuid=65534 --regid=65534 --clear-groups "${SNAP[@]}" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	set -e
	if [ "$rc" = 1 ] && grep -q 'cannot open /proc/vmallocinfo: Permission denied (need root)' "$tmp/err"; then
		pass "not root: $(cat "$tmp/err")"
	else
		fail "not root: rc=$rc, stderr: $(cat "$tmp/err")"
	fi
fi

# Usage errors exit 2.
run "bad option" --no-such-option
[ "$rc" = 2 ] && pass "unknown option exits 2" || fail "unknown option: rc=$rc"
run "bad api" --api nosuch
[ "$rc" = 2 ] && pass "unknown API exits 2" || fail "unknown API: rc=$rc"

finish
