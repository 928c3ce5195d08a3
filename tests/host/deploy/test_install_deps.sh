#!/usr/bin/env bash
# make check-host-deploy-files: scripts/install-deps' dependency sets, installing
# nothing.
#  - each set is non-empty, no package is in two sets, "all" is their union;
#  - the tools set holds nothing of the lab (QEMU, kernel source, cross
#    toolchains, :arm64 libraries, busybox);
#  - the packages other parts need are in the set that needs them;
#  - the tools set is enough to build the tools: every library the tools
#    link (TOOLS_LDLIBS), every command their build runs and the .proto
#    files it generates code from belong to a
#    package that installing the tools set brings in (the set and its
#    dependencies, as apt-cache resolves them) or an Essential one;
#  - a bad set name gets one line and exit 2.
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
DEPS=$TOPDIR/scripts/install-deps


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for s in tools lab test all; do
	if ! "$DEPS" --list $s >"$tmp/$s" 2>"$tmp/$s.err" || [ ! -s "$tmp/$s" ] || [ -s "$tmp/$s.err" ]; then
		fail "install-deps --list $s: empty or failed: $(cat "$tmp/$s.err")"
	fi
done
dups=$(cat "$tmp/tools" "$tmp/lab" "$tmp/test" | sort | uniq -d | tr '\n' ' ')
[ -z "$dups" ] && pass "sets: tools $(wc -l <"$tmp/tools"), lab $(wc -l <"$tmp/lab"), test $(wc -l <"$tmp/test") packages, none in two sets" ||
	fail "packages in more than one set: $dups"
[ "$(sort "$tmp/all")" = "$(sort "$tmp/tools" "$tmp/lab" "$tmp/test")" ] && pass "all = tools + lab + test" ||
	fail "--list all is not the union of the three sets"

lab_in_tools=$(grep -E 'qemu|linux-source|-linux-gnu|:arm64|busybox|dwarves|ccache' "$tmp/tools" | tr '\n' ' ')
[ -z "$lab_in_tools" ] && pass "the tools set has nothing of the lab" || fail "lab packages in the tools set: $lab_in_tools"

want() {	# SET PACKAGE...
	local s=$1 p missing=; shift
	for p; do grep -qx -- "$p" "$tmp/$s" || missing="$missing $p"; done
	[ -z "$missing" ] && pass "$s set has $*" || fail "$s set lacks$missing"
}
want tools libbpf-dev libelf-dev clang llvm bpftool libmicrohttpd-dev libgnutls28-dev libcrypt-dev libyaml-dev \
	protobuf-c-compiler libprotobuf-c-dev golang-github-prometheus-client-model-dev libprotobuf-dev
want test libcmocka-dev prometheus curl jq python3-yaml libclang-rt-14-dev openssl systemd util-linux libcap2-bin strace
want lab linux-source-6.12 qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libbpf-dev:arm64 \
	gcc-powerpc64le-linux-gnu gcc-powerpc-linux-gnu gcc-riscv64-linux-gnu

# What installing the tools set brings: the set and its dependencies.
if apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
	--no-replaces --no-enhances $(cat "$tmp/tools") 2>/dev/null |
	sed -n 's/^\([a-z0-9][^ :]*\)\(:[a-z0-9]*\)\?$/\1/p; s/^ *\(Pre\)\?Depends: <\?\([^ >:]*\).*/\2/p' |
	sort -u >"$tmp/closure" && [ -s "$tmp/closure" ]; then
	# the package owning a file (usrmerge: dpkg may know it as /bin/...)
	owner() {
		local f
		for f in "$1" "${1#/usr}" "$(realpath "$1")"; do
			dpkg -S "$f" 2>/dev/null | head -n1 | cut -d: -f1 | cut -d, -f1 | grep . && return
		done
	}
	# Essential packages are on every Debian system, depended on or not
	brought() { grep -qx -- "$1" "$tmp/closure" || [ "$(dpkg-query -W -f='${Essential}' "$1" 2>/dev/null)" = yes ]; }
	ldlibs=$(make -C "$TOPDIR" -s --no-print-directory deploy-print-TOOLS_LDLIBS)
	bad=
	for l in $(echo "$ldlibs" | grep -oE -- '-l[a-z0-9_+-]+' | sed 's/^-l//' | sort -u); do
		f=$(gcc -print-file-name="lib$l.a")
		[ "$f" != "lib$l.a" ] || { bad="$bad -l$l(no lib$l.a)"; continue; }
		p=$(owner "$f")
		brought "$p" || bad="$bad -l$l($f: ${p:-no package})"
	done
	# the .proto files the exposition's C is generated from
	for vf in PROM_PROTO_DIR:io/prometheus/client/metrics.proto \
		  WKT_PROTO_DIR:google/protobuf/timestamp.proto; do
		f=$(make -C "$TOPDIR" -s --no-print-directory deploy-print-${vf%%:*})/${vf#*:}
		[ -e "$f" ] || { bad="$bad $f(missing)"; continue; }
		p=$(owner "$f")
		brought "$p" || bad="$bad $f(${p:-no package})"
	done
	for c in gcc make ar git sed install \
		"$(make -C "$TOPDIR" -s --no-print-directory deploy-print-PROTOC_C)" \
		"$(make -C "$TOPDIR" -s --no-print-directory deploy-print-CLANG)" \
		"$(make -C "$TOPDIR" -s --no-print-directory deploy-print-BPFTOOL)" llvm-strip; do
		f=$(command -v "$c") || { bad="$bad $c(not found)"; continue; }
		p=$(owner "$f")
		brought "$p" || bad="$bad $c($f: ${p:-no package})"
	done
	[ -z "$bad" ] && pass "the tools set brings every library the tools link ($(echo $ldlibs | grep -oE -- '-l[a-z0-9_+-]+' | sort -u | tr '\n' ' '))every build command and .proto file" ||
		fail "not brought by the tools set:$bad"
else
	fail "apt-cache depends on the tools set failed (run apt-get update)"
fi

# Bad input: one line, exit 2, before anything is installed.
for bad in lab,tools nonsense "--list"; do
	rc=0
	"$DEPS" $bad >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
	[ $rc = 2 ] && [ "$(grep -c . "$tmp/bad.err")" = 1 ] && [ ! -s "$tmp/bad.out" ] &&
		pass "install-deps $bad: exit 2, $(cat "$tmp/bad.err")" ||
		fail "install-deps $bad: want exit 2 and one line, got exit $rc: $(cat "$tmp/bad.err" "$tmp/bad.out")"
done

finish
