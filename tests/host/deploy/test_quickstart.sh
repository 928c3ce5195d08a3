#!/usr/bin/env bash
# make check-host-deploy: the README's host-only quick start, as a new user runs it.
#  - a fresh "git clone" of this repository (its committed HEAD) into a
#    temporary directory;
#  - the commands of the README's "Host only" sh block, taken from the
#    clone's README (so this test follows the README, whatever it says), run
#    one by one in the clone, in an environment cleared of make's and this
#    checkout's variables, with DESTDIR and PREFIX of a temporary directory;
#  - the clone is left clean (everything built under its ignored out/);
#  - the installed tree has the tools, their pages and the exporter's unit,
#    and nothing outside DESTDIR$PREFIX;
#  - the installed vmapstat and vmaptop answer --help, and vmapstat runs
#    for real as root on this host (one 1 s interval, JSON).
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
SECTION='## Host only'


[ "$(id -u)" = 0 ] || { echo "test_quickstart.sh: must run as root (the README says so)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/vmapscope
dest=$tmp/dest
prefix=/opt/vmapscope-quickstart

git clone -q "$TOPDIR" "$src" || die "git clone $TOPDIR"
pass "git clone of $(git -C "$src" log -1 --format='%h %s')"

# The first sh block after the section heading; comments and blank lines go.
awk -v sec="$SECTION" '
	index($0, sec) == 1 { insec = 1; next }
	insec && /^## / { exit }
	insec && /^```sh$/ { inblock = 1; next }
	inblock && /^```$/ { exit }
	inblock { print }' "$src/README.md" | sed 's/[[:space:]]*#.*$//' | grep -v '^[[:space:]]*$' >"$tmp/commands"
if [ ! -s "$tmp/commands" ]; then
	die "no sh block under '$SECTION' in README.md"
fi
pass "README quick start: $(paste -sd ';' "$tmp/commands" | sed 's/;/; /g')"

n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	start=$(date +%s)
	if (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u OUTDIR -u TOPDIR \
		DESTDIR="$dest" PREFIX="$prefix" bash -euc "$cmd") >"$tmp/cmd$n.log" 2>&1 </dev/null; then
		pass "$cmd ($(($(date +%s) - start)) s)"
	else
		tail -n 20 "$tmp/cmd$n.log"
		fail "README command failed: $cmd"
		break
	fi
done <"$tmp/commands"

dirty=$(git -C "$src" status --porcelain)
[ -z "$dirty" ] && pass "the clone is clean after the build" || fail "the build left changes in the clone: $dirty"

outside=$(cd "$dest" && find . -type f | sed 's|^\.||' | grep -v "^$prefix/")
[ -z "$outside" ] || fail "files installed outside DESTDIR$prefix: $outside"
for f in sbin/vmapstat sbin/vmaptop share/man/man8/vmapstat.8 share/man/man8/vmaptop.8 \
	lib/systemd/system/vmapstat-exporter.service lib/sysusers.d/vmapscope.conf; do
	[ -f "$dest$prefix/$f" ] || fail "not installed: $prefix/$f"
done

bin=$dest$prefix/sbin
for t in vmapstat vmaptop; do
	rc=0
	"$bin/$t" --help >"$tmp/$t.help" 2>&1 </dev/null || rc=$?
	[ $rc = 0 ] && grep -q "^Usage: $t" "$tmp/$t.help" && pass "installed $t --help" ||
		fail "installed $t --help: exit $rc, $(head -c 200 "$tmp/$t.help")"
done

rc=0
timeout 60 "$bin/vmapstat" -j 1 1 >"$tmp/run.json" 2>"$tmp/run.err" </dev/null || rc=$?
if [ $rc = 0 ] && jq -e '.schema == "vmapstat/1" and (.counters | type == "object") and (.kernel.release == $r)' \
	--arg r "$(uname -r)" "$tmp/run.json" >/dev/null 2>&1; then
	pass "installed vmapstat -j 1 1 as root on $(uname -r): $(jq -c '.counters | with_entries(select(.value > 0))' "$tmp/run.json")"
else
	fail "installed vmapstat -j 1 1: exit $rc, $(head -c 300 "$tmp/run.err") $(head -c 300 "$tmp/run.json")"
fi

finish
