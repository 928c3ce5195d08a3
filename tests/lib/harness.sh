# The pass/fail harness of every test script (sourced).  POSIX sh: bash
# runs it on the host, busybox sh in the guests.  A host script under
# tests/<where>/<topic>/ sources "$(dirname "$0")/../../lib/harness.sh";
# a guest-side one /opt/vmapscope/lib/harness.sh, where scripts/lab puts
# this folder in every guest.
#
#   pass MSG      a check that held:            "ok - MSG"
#   fail MSG      one that did not:             "FAIL: MSG"; counted, the
#                 script goes on
#   die MSG       a failure after which nothing more can be checked: fail,
#                 then finish
#   skip MSG      a check that cannot run here: "skip - MSG"; not counted
#   note MSG      what a reader of the log wants beside the checks: "# MSG"
#   need CMD...   die unless every command exists
#   finish        the closing line, "NAME: N passed, N failed", and the
#                 script's exit: 1 if anything failed, else 0
#
# A script that can say more about a failure (a screen, a log) defines
# on_fail(); fail calls it after its line.  Everything goes to standard
# output, so that the checks and what explains them stay in order.

HARNESS_NAME=$(basename "$0")
HARNESS_PASSED=0
HARNESS_FAILED=0

pass() {
	echo "ok - $*"
	HARNESS_PASSED=$((HARNESS_PASSED + 1))
}

fail() {
	echo "FAIL: $*"
	HARNESS_FAILED=$((HARNESS_FAILED + 1))
	if command -v on_fail >/dev/null 2>&1; then on_fail; fi
	return 0
}

finish() {
	echo "$HARNESS_NAME: $HARNESS_PASSED passed, $HARNESS_FAILED failed"
	[ "$HARNESS_FAILED" = 0 ] && exit 0
	exit 1
}

die() {
	fail "$@"
	finish
}

skip() {
	echo "skip - $*"
}

note() {
	echo "# $*"
}

need() {
	for harness_cmd in "$@"; do
		command -v "$harness_cmd" >/dev/null 2>&1 ||
			die "$harness_cmd not installed (make deps)"
	done
}
