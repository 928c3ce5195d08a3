# Shared by the lab's self-tests (sourced, after the harness): a temporary
# directory $tmp, and checks of a command's exit status and output.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect_rc WANT DESC CMD...: run CMD, compare its exit status; its
# stdout and stderr are kept in $tmp/out and $tmp/err.
expect_rc() {
	local want=$1 desc=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" = "$want" ]; then pass "$desc (exit $got)"; else
		fail "$desc: exit $got, wanted $want"; tail -n 20 "$tmp/out" "$tmp/err"; fi
}
# expect_err PATTERN DESC: the last command's stderr has a line matching PATTERN.
expect_err() {
	local pattern=$1 desc=$2
	if grep -qE -- "$pattern" "$tmp/err"; then pass "$desc"; else
		fail "$desc: stderr lacks /$pattern/"; cat "$tmp/err"; fi
}
