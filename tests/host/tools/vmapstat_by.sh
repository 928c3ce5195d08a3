#!/usr/bin/env bash
# vmapstat --by cgroup / --by comm on this machine's kernel: two cgroups
# (two commands) each fork a burst of their own size (every new task's
# kernel stack is a vmalloc area), and each cgroup's (comm's) rows hold its
# own burst.  Needs root and a cgroup v2 hierarchy (for --by cgroup).
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

V=${VMAPSTAT:-out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}
tmp=$(mktemp -d)
cg=
cleanup() {
	[ -n "$cg" ] && rmdir "$cg/by_a" "$cg/by_b" "$cg" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

[ -x "$V" ] || die "$V not built"
if [ "$(id -u)" != 0 ]; then
	skip "vmapstat --by host test needs root (BPF)"; finish
fi

# Bursts: NA and NB sleepers alive at once (their stacks cannot all come
# from the per-CPU cache of freed stacks, though many do: the bounds are
# loose, the order of the two is not).
NA=20 NB=120
burst() { echo "for i in \$(seq $1); do sleep 0.3 & done; wait"; }

# The JSON rows' areas summed per label ($2: cgroup or comm) -> "label areas" lines.
per_label() {
	python3 - "$1" "$2" <<'PY'
import json, sys
o = json.loads(open(sys.argv[1]).read())
key = sys.argv[2]
tot = {}
for r in o["rows"]:
    assert key in r, f"row without \"{key}\": {r}"
    other = "comm" if key == "cgroup" else "cgroup"
    assert other not in r, f"row with \"{other}\" too: {r}"
    tot[r[key]] = tot.get(r[key], 0) + r["areas"]
for k, v in tot.items():
    print(f"{k}\t{v}")
PY
}

# Label $2's areas in the per_label output $1 (0 if absent).
areas_of() { awk -F'\t' -v k="$2" '$1 == k { print $2; f = 1 } END { if (!f) print 0 }' "$1"; }

check_bursts() {	# what label a b
	local a b
	a=$(areas_of "$tmp/t" "$2") b=$(areas_of "$tmp/t" "$3")
	[ "$a" -ge 1 ] && [ "$a" -le $((NA * 2 + 10)) ] ||
		die "--by $1: $2 holds $a areas for a burst of $NA: $(cat "$tmp/t")"
	[ "$b" -ge $((NB / 4)) ] && [ "$b" -le $((NB * 2 + 10)) ] ||
		die "--by $1: $3 holds $b areas for a burst of $NB: $(cat "$tmp/t")"
	[ "$b" -gt "$a" ] || die "--by $1: $3 ($b) not above $2 ($a)"
	pass "--by $1: $2 $a areas (burst $NA), $3 $b areas (burst $NB)"
}

# 1. --by cgroup, two cgroups of the cgroup v2 hierarchy.
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$cg2" ]; then
	skip "--by cgroup: no cgroup v2 hierarchy mounted"
else
	cg=$cg2/vmapscope_by_test.$$
	mkdir "$cg" "$cg/by_a" "$cg/by_b"
	"$V" -j -p --by cgroup -- sh -c "
		sh -c 'echo \$\$ >$cg/by_a/cgroup.procs; $(burst $NA)' &
		sh -c 'echo \$\$ >$cg/by_b/cgroup.procs; $(burst $NB)' &
		wait" >"$tmp/j" 2>"$tmp/err" || die "--by cgroup exited $?: $(cat "$tmp/err")"
	per_label "$tmp/j" cgroup >"$tmp/t" || die "--by cgroup JSON: $(head -c 400 "$tmp/j")"
	rel=${cg#"$cg2"}
	check_bursts cgroup "$rel/by_a" "$rel/by_b"
fi

# 2. --by comm: two differently named commands (copies of sh).
cp "$(command -v sh)" "$tmp/vs_burst_a"
cp "$(command -v sh)" "$tmp/vs_burst_b"
"$V" -j -p --by comm -- sh -c "
	$tmp/vs_burst_a -c '$(burst $NA)' &
	$tmp/vs_burst_b -c '$(burst $NB)' &
	wait" >"$tmp/j" 2>"$tmp/err" || die "--by comm exited $?: $(cat "$tmp/err")"
per_label "$tmp/j" comm >"$tmp/t" || die "--by comm JSON: $(head -c 400 "$tmp/j")"
check_bursts comm vs_burst_a vs_burst_b

# 3. Text and Prometheus carry the label; a bad --by is a usage error.
"$V" -p --by comm -- "$tmp/vs_burst_a" -c "$(burst 10)" >"$tmp/o" 2>"$tmp/err" ||
	die "--by comm text exited $?: $(cat "$tmp/err")"
grep -q "comm=vs_burst_a" "$tmp/o" || die "text report without comm=vs_burst_a: $(head -20 "$tmp/o")"
pass "--by comm: text shows the label after the caller"
set +e
"$V" --by nothing 1 1 >/dev/null 2>"$tmp/err"; rc=$?
set -e
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" -ge 1 ] || die "--by nothing: exit $rc, not 2"
pass "--by nothing: usage error"
finish
