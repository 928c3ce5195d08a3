#!/usr/bin/env bash
# vmaptop batch mode on this machine's own kernel (no series tracepoints
# expected): it runs, shows what the kernel offers (areas from the stock
# vmalloc:alloc_vmap_area tracepoint, live areas from /proc/vmallocinfo),
# marks the columns it cannot fill with n/a and says why, and rejects bad
# input with exit 2 and one stderr line.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
# next to the vmapstat under test (make check-host-tools passes VMAPSTAT, with OUTDIR)
T=${VMAPTOP:-$(dirname "${VMAPSTAT:-$TOPDIR/out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}")/vmaptop}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$T" ] || die "$T not built"

# 1. Bad input: exit 2, exactly one line on stderr, nothing on stdout.
bad() {
	local rc=0
	"$T" "$@" </dev/null >"$tmp/o" 2>"$tmp/e" || rc=$?
	[ "$rc" = 2 ] || die "vmaptop $*: exit $rc, wanted 2 ($(cat "$tmp/e"))"
	[ "$(wc -l <"$tmp/e")" = 1 ] || die "vmaptop $*: stderr not one line: $(cat "$tmp/e")"
	grep -q '^vmaptop: ' "$tmp/e" || die "vmaptop $*: stderr lacks the tool name"
	[ ! -s "$tmp/o" ] || die "vmaptop $*: wrote to stdout"
}
bad -b -d 0
bad -b -d abc
bad -b -d 1e9
bad -b -n 0
bad -b -n 3x
bad -b -s bogus
bad -b --api vmalloc,bogus
bad -b --pid -4
bad -b extra-argument
bad -b --no-such-option
bad -b -d
bad -b -d 0.09
# the letters vmaptop gave up for the set it shares with vmapstat (docs/vmaptop.md)
bad -b -p 1
bad -b -C
bad -b -r
bad -b -a
bad -b -f ''
bad -b --no-latency --latency-all
bad -b --stack-callers --call-latency
bad -b --max-callers 3
pass "bad input: exit 2 with one stderr line (20 cases)"
# full screen without a terminal: a runtime error (tests/host/tools/exit_status.sh)
rc=0
"$T" </dev/null >"$tmp/o" 2>"$tmp/e" || rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$tmp/e")" = 1 ] ||
	die "full screen without a terminal: exit $rc, $(cat "$tmp/e")"
for h in -h --help; do
	"$T" $h >"$tmp/o" 2>"$tmp/e" || die "vmaptop $h exited $?"
	grep -q '^Usage: vmaptop' "$tmp/o" && grep -q -- '--no-clear' "$tmp/o" ||
		die "vmaptop $h: no usage on stdout: $(cat "$tmp/o" "$tmp/e")"
done
pass "-h / --help print the usage, exit 0"

if [ "$(id -u)" != 0 ]; then
	skip "the rest needs root (BPF)"; finish
fi
have_tp() { bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	grep -q "TYPEDEF 'btf_trace_$1'"; }

# 2. Frames of totals since start (-z) while 100 processes live at once:
#    each needs a kernel stack, vmalloc'ed (VMAP_STACK) beyond the two per
#    CPU the stack cache keeps, so alloc_vmap_area fires ~100 times.
frames() { grep -c '^vmaptop [0-9][0-9]:' "$tmp/out" || true; }
"$T" -b -z -d 1 -n 60 >"$tmp/out" 2>"$tmp/err" &
pid=$!
for i in $(seq 150); do [ "$(frames)" -ge 1 ] && break; sleep 0.2; done
[ "$(frames)" -ge 1 ] || die "no first frame in 30 s: $(cat "$tmp/err")"
# all 100 alive together (3 s each), however slowly a busy host forks them
sh -c 'for i in $(seq 100); do sleep 3 & done; wait'
want=$(($(frames) + 2))
for i in $(seq 100); do [ "$(frames)" -ge $want ] && break; sleep 0.2; done
kill -INT $pid
wait "$pid" || die "vmaptop -b exited $? after SIGINT: $(cat "$tmp/err")"
[ "$(frames)" -ge 3 ] || die "fewer than 3 frames: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] || die "vmaptop -b wrote to stderr: $(cat "$tmp/err")"
grep -q '^CALLER  *API  *MAPS  *BYTES' "$tmp/out" || die "no column header"
last=$(awk '/^vmaptop [0-9]/{f=""} {f=f $0 "\n"} END{printf "%s", f}' "$tmp/out")
echo "$last" | grep -q 'since start' || die "cumulative frame not labelled"
if have_tp vmap_mapped; then
	echo "$last" | grep -q '^n/a granule' && die "claims granule missing on a kernel that has it"
else
	# the reason, once per frame, and n/a in the granule cells of every row
	echo "$last" | grep -q '^n/a granule: kernel lacks vmalloc:vmap_mapped' ||
		die "missing granule column not explained: $last"
	echo "$last" | awk 'f && NF {if ($0 !~ / n\/a +n\/a +n\/a /) bad=1} /^CALLER/{f=1}
		END{exit bad}' || die "granule cells not n/a: $last"
	echo "$last" | grep -q '^n/a latency: the mapping time comes from vmalloc:vmap_mapped' ||
		die "missing latency columns not explained"
fi
# maps come from the best source there is; with areas, the fork burst shows
maps_src=$(echo "$last" | sed -n 's/.* maps [^ ]* (\([a-z/]*\)).*/\1/p')
[ -n "$maps_src" ] || die "header lacks the maps source: $last"
if [ "$maps_src" = areas ] || [ "$maps_src" = calls ]; then
	total=$(echo "$last" | awk '/^CALLER/{f=1; next} f && NF {print $3}' |
		awk '{v=$1; m=1; if (v ~ /k$/) m=1000; sub(/[kM]$/, "", v); s += v * m} END{print s+0}')
	[ "${total%.*}" -ge 90 ] || die "fewer than 90 mappings counted for 100 processes: $total"
	pass "fork burst: $total mappings counted ($maps_src)"
fi
echo "$last" | grep -q ' live [0-9.]*[kM]* areas ' || die "no live totals (root can read vmallocinfo)"
pass "batch on $(uname -r): $(echo "$last" | grep -c '^n/a') columns marked n/a, $(frames) frames, SIGINT ends it with 0"

# 3. --all lists callers that only have live areas; sort by live bytes.
"$T" -b --all -n 1 -d 0.2 -s live >"$tmp/out" 2>"$tmp/err" || die "--all exited $?: $(cat "$tmp/err")"
awk '/^CALLER/{f=1; next} f && NF && $1 ~ /\+0x/ && $NF != "0" {n++} END{exit !(n > 0)}' \
	"$tmp/out" || die "--all shows no caller with live areas: $(cat "$tmp/out")"
# sorted by live bytes, largest first: the LIVE column never increases
awk '/^CALLER/{f=1; next} f && NF {v=$NF; m=1; if (v ~ /K$/) m=1024; if (v ~ /M$/) m=1048576;
	if (v ~ /G$/) m=1073741824; sub(/[KMG]$/, "", v); if (v == "-") next; x = v * m;
	if (seen && x > prev * 1.06) bad=1; prev = x; seen=1} END{exit bad}' "$tmp/out" ||
	die "-s live: rows not in descending LIVE order: $(cat "$tmp/out")"
pass "--all: $(awk '/^CALLER/{f=1; next} f && NF' "$tmp/out" | wc -l) rows, sorted by live bytes"

# 4. --no-live marks LIVE/AREAS n/a with the reason; -f filters rows.
"$T" -b --no-live --all -f no_such_caller_xyz -n 1 -d 0.2 >"$tmp/out" 2>"$tmp/err" ||
	die "--no-live exited $?"
grep -q '^n/a live: not requested (--no-live)' "$tmp/out" || die "--no-live not explained"
[ "$(awk '/^CALLER/{f=1; next} f && NF' "$tmp/out" | wc -l)" = 0 ] ||
	die "-f no_such_caller_xyz still shows rows"
grep -q "filter 'no_such_caller_xyz'" "$tmp/out" || die "filter not shown in the header"
pass "--no-live and -f"

# 4b. -c is vmapstat's -c: the collector drops other callers' mappings
# (the display filter of -f is not set).
"$T" -b --no-live -c no_such_caller_xyz -n 1 -d 0.2 >"$tmp/out" 2>"$tmp/err" ||
	die "-c exited $?: $(cat "$tmp/err")"
[ "$(awk '/^CALLER/{f=1; next} f && NF' "$tmp/out" | wc -l)" = 0 ] ||
	die "-c no_such_caller_xyz still shows rows: $(cat "$tmp/out")"
! grep -q "filter 'no_such_caller_xyz'" "$tmp/out" || die "-c set the display filter"
pass "-c selects in the collector, as vmapstat -c"

# 5. A reader that goes away does not hang vmaptop.
timeout 20 bash -c "'$T' -b -d 0.2 | head -n 1 >/dev/null" || die "vmaptop -b | head hung or failed"
pass "closed pipe ends vmaptop"
finish
