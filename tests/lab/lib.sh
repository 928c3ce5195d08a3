# Shared by the lab's self-tests (sourced): counters, a temporary directory
# $tmp, and checks of a command's exit status and output.
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# expect_rc WANT DESC CMD...: run CMD, compare its exit status; its
# stdout and stderr are kept in $tmp/out and $tmp/err.
expect_rc() {
	local want=$1 desc=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$desc (exit $got)"; else
		bad "$desc: exit $got, wanted $want"; tail -n 20 "$tmp/out" "$tmp/err"; fi
}
# expect_err PATTERN DESC: the last command's stderr has a line matching PATTERN.
expect_err() {
	local pattern=$1 desc=$2
	if grep -qE -- "$pattern" "$tmp/err"; then ok "$desc"; else
		bad "$desc: stderr lacks /$pattern/"; cat "$tmp/err"; fi
}
