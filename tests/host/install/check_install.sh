#!/usr/bin/env bash
# make check-host-install: "make install" into a temporary DESTDIR, then check
#  - the tools and pages are where PREFIX says, executable / readable, and
#    the installed tools are the built ones (byte-identical);
#  - each page renders with man -l and with groff -ww without a warning;
#  - every long option printed by "TOOL --help" appears in TOOL's page;
#    the help has one usage block and no line ending in blanks
#    (rendered text), so the pages cannot drift from the tools;
#  - the exporter's unit and sysusers.d file land in $PREFIX/lib/systemd/system
#    and $PREFIX/lib/sysusers.d, the unit naming the installed vmapstat; the
#    optional pieces (drop-in, sysctl file, Prometheus rules, Grafana
#    dashboard) in
#    $PREFIX/share/vmapscope, all mode 644 and identical to contrib/;
#  - "make uninstall" removes exactly what was installed.
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
OUTDIR=${OUTDIR:-$TOPDIR/out}
HOST_ARCH=${HOST_ARCH:-$(uname -m | sed s/aarch64/arm64/)}
PREFIX=/opt/vmapscope-test
TOOLS="vmapstat vmaptop"


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root

if ! make -C "$TOPDIR" --no-print-directory OUTDIR="$OUTDIR" install \
	DESTDIR="$dest" PREFIX="$PREFIX" >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"
	die "make install DESTDIR=$dest PREFIX=$PREFIX"
fi

# Nothing outside DESTDIR$PREFIX, nothing unexpected inside it.
UNIT=$PREFIX/lib/systemd/system/vmapstat-exporter.service
SYSUSERS=$PREFIX/lib/sysusers.d/vmapscope.conf
EXTRAS="systemd/live-bytes.conf sysctl.d/60-vmapscope-kptr-restrict.conf prometheus/vmapscope.rules.yml grafana/vmapscope-dashboard.json"
expected=$( (for t in $TOOLS; do echo "$PREFIX/sbin/$t"; echo "$PREFIX/share/man/man8/$t.8"; done
	echo "$UNIT"; echo "$SYSUSERS"
	for f in $EXTRAS; do echo "$PREFIX/share/vmapscope/$f"; done) | sort)
got=$(cd "$dest" && find . -type f | sed 's|^\.||' | sort)
[ "$got" = "$expected" ] && pass "installed files: $(echo $got)" ||
	fail "installed files differ: want [$(echo $expected)], got [$(echo $got)]"

for t in $TOOLS; do
	bin=$dest$PREFIX/sbin/$t
	page=$dest$PREFIX/share/man/man8/$t.8
	[ -x "$bin" ] && cmp -s "$bin" "$OUTDIR/$HOST_ARCH/bin/$t" && pass "$t installed (mode $(stat -c %a "$bin"))" ||
		fail "$bin missing, not executable or not the built $OUTDIR/$HOST_ARCH/bin/$t"
	[ "$(stat -c %a "$page" 2>/dev/null)" = 644 ] || fail "$page missing or not mode 644"

	# man -l: warnings go to stderr; any stderr output is a failure.
	if ! MANWIDTH=80 man --warnings -l "$page" >"$tmp/$t.txt" 2>"$tmp/$t.err" || [ -s "$tmp/$t.err" ]; then
		fail "man --warnings -l $t.8:"; sed 's/^/    /' "$tmp/$t.err"
	else
		pass "man --warnings -l $t.8 renders cleanly ($(wc -l <"$tmp/$t.txt") lines)"
	fi
	if ! groff -man -ww -z "$page" 2>"$tmp/$t.groff" || [ -s "$tmp/$t.groff" ]; then
		fail "groff -man -ww -z $t.8:"; sed 's/^/    /' "$tmp/$t.groff"
	fi
	grep -q "^NAME" "$tmp/$t.txt" && grep -q "^SYNOPSIS" "$tmp/$t.txt" && grep -q "^OPTIONS" "$tmp/$t.txt" ||
		fail "$t.8 lacks a NAME, SYNOPSIS or OPTIONS section"

	# Long options: from the installed tool's --help, against the page as
	# rendered wide (no line breaks or hyphenation inside an option), with
	# ASCII hyphens.
	"$bin" --help >"$tmp/$t.help" 2>&1 </dev/null
	opts=$(grep -oE -- '--[a-z][a-z0-9.-]*[a-z0-9]' "$tmp/$t.help" | sort -u)
	if [ -z "$opts" ]; then
		fail "$t --help printed no long options (output: $(head -c 200 "$tmp/$t.help"))"
		continue
	fi
	LC_ALL=C.UTF-8 MANWIDTH=250 man -l "$page" 2>/dev/null | col -b | sed 's/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g' >"$tmp/$t.wide"
	missing=
	for o in $opts; do
		grep -qF -- "$o" "$tmp/$t.wide" || missing="$missing $o"
	done
	[ -z "$missing" ] && pass "$t: all $(echo $opts | wc -w) long options of --help are in $t.8" ||
		fail "$t: long options of --help missing from $t.8:$missing"
	# a clean --help: one usage block, no line ending in blanks, no two blank lines
	n=$(grep -ci '^usage:' "$tmp/$t.help")
	trail=$(grep -c '[[:blank:]]$' "$tmp/$t.help")
	dbl=$(awk 'prev == "" && $0 == "" && NR > 1 { n++ } { prev = $0 } END { print n + 0 }' "$tmp/$t.help")
	[ "$n" = 1 ] && [ "$trail" = 0 ] && [ "$dbl" = 0 ] && pass "$t --help: one usage block, no trailing blanks" ||
		fail "$t --help: $n usage headers, $trail lines ending in blanks, $dbl doubled blank lines"
done

# The unit: the installed vmapstat's path in ExecStart, nothing left to
# substitute, otherwise the file in contrib/.
want=$(sed "s|@SBINDIR@|$PREFIX/sbin|g" "$TOPDIR/contrib/systemd/vmapstat-exporter.service")
if [ "$(cat "$dest$UNIT" 2>/dev/null)" = "$want" ] && grep -qx "ExecStart=$PREFIX/sbin/vmapstat --web.listen-address=.*" "$dest$UNIT" &&
	! grep -qE '@[A-Z_]+@' "$dest$UNIT"; then
	pass "unit: $(grep ^ExecStart= "$dest$UNIT")"
else
	fail "$dest$UNIT missing or not contrib/systemd/vmapstat-exporter.service with ExecStart=$PREFIX/sbin/vmapstat"
fi
for f in "$SYSUSERS:sysusers.d/vmapscope.conf" "$UNIT:"; do
	[ "$(stat -c %a "$dest${f%%:*}" 2>/dev/null)" = 644 ] || fail "$dest${f%%:*} missing or not mode 644"
done
cmp -s "$dest$SYSUSERS" "$TOPDIR/contrib/sysusers.d/vmapscope.conf" || fail "$SYSUSERS is not contrib/sysusers.d/vmapscope.conf"
for f in $EXTRAS; do
	cmp -s "$dest$PREFIX/share/vmapscope/$f" "$TOPDIR/contrib/$f" &&
		[ "$(stat -c %a "$dest$PREFIX/share/vmapscope/$f")" = 644 ] ||
		fail "$PREFIX/share/vmapscope/$f missing, not mode 644 or not contrib/$f"
done

if make -C "$TOPDIR" --no-print-directory OUTDIR="$OUTDIR" uninstall \
	DESTDIR="$dest" PREFIX="$PREFIX" >"$tmp/uninstall.log" 2>&1; then
	left=$(cd "$dest" && find . -type f | wc -l)
	[ "$left" = 0 ] && pass "make uninstall removed every installed file" ||
		fail "make uninstall left $left files"
	# vmapscope's own data directory goes too, not only its files
	[ ! -e "$dest$PREFIX/share/vmapscope" ] && pass "make uninstall removed share/vmapscope/" ||
		fail "make uninstall left $(cd "$dest" && find ".$PREFIX/share/vmapscope" | tr '\n' ' ')"
else
	cat "$tmp/uninstall.log"; fail "make uninstall"
fi

finish
