#!/usr/bin/env bash
# The exporter with --by comm and --by cgroup, end to end: vmapstat -p -j
# --listen with an interval, two workloads of different sizes each under
# its own command name (cgroup) forking a burst of tasks (every new task's
# kernel stack is a vmalloc area), then GET /metrics:
#   - promtool check metrics accepts the exposition;
#   - each workload's label has its own series, the bigger burst above the
#     smaller one;
#   - every series equals the sum of the JSON rows of the intervals it
#     covers (by_labels.py fold: the same process prints them with -j);
#   - with --top-callers 2 and more (caller, comm) pairs than that, at most
#     2 pairs are named (the ones vmapstat's admission rule picks), the
#     rest are in caller="other",comm="other", and each family's total
#     equals the unfolded rows' total of the same intervals;
#   - a real Prometheus scraping the --by comm exporter: sum by (comm)
#     equals the JSON rows' sums per comm;
#   - --by with a bad value: one line, exit 2.
. "$(dirname "$0")/lib.sh"
need promtool prometheus curl python3
BY="$PROM_TESTS_DIR/by_labels.py"

# Bursts: NA and NB sleepers alive at once, by commands (cgroups) A and B.
NA=20 NB=120
burst() { echo "for i in \$(seq $1); do sleep 1 & done; wait"; }

scrape_k() {
	curl -sf "$VS_URL" | awk '$1 == "vmapscope_intervals_total" { print $2 }'
}
k_at_least() { [ "$(scrape_k)" -ge "$1" ]; }

# After a workload: wait until the exposition holds the interval that was
# running when the workload ended, then save a scrape to $1.
scrape_after_workload() {
	local k0
	k0=$(scrape_k)
	wait_for 20 k_at_least $((k0 + 1)) || die "no interval after the workload (k=$k0)"
	curl -sf "$VS_URL" >"$1" || die "scrape of $VS_URL failed"
}

# promtool check metrics: no error, no lint finding.
promtool_ok() {
	local out
	out=$(promtool check metrics <"$1" 2>&1) || die "promtool check metrics: $out"
	[ -z "$out" ] || die "promtool check metrics findings: $out"
}

# Stop the current vmapstat (Ctrl-C) and forget it: it must exit 0.
stop_current() {
	stop_vmapstat || die "vmapstat exited with $?: $(cat "$T/vmapstat.err")"
	local p keep=()
	for p in "${STARTED_PIDS[@]}"; do [ "$p" = "$VS_PID" ] || keep+=("$p"); done
	STARTED_PIDS=("${keep[@]+"${keep[@]}"}")
}

for n in a b 1 2 3 4 5; do cp "$(command -v sh)" "$T/vs_burst_$n"; done

# 1. --by comm, unbounded, scraped by curl and by a real Prometheus.
start_vmapstat -p -j --by comm --top-callers 10000 --listen 127.0.0.1:0 1
target=${VS_URL#http://}
start_prometheus vmapscope "${target%/metrics}"
wait_for 20 k_at_least 1 || die "no first interval"
"$T/vs_burst_a" -c "$(burst $NA)" & pa=$!
"$T/vs_burst_b" -c "$(burst $NB)" & pb=$!
wait $pa $pb
scrape_after_workload "$T/comm.prom"
promtool_ok "$T/comm.prom"
pass "--by comm: promtool check metrics accepts the exposition"
python3 "$BY" bursts "$T/comm.prom" comm vs_burst_a vs_burst_b $NA $NB || die "--by comm: bursts"
python3 "$BY" fold "$T/comm.prom" "$T/vmapstat.out" comm 10000 || die "--by comm: series vs JSON"
pass "--by comm: each command's series hold its burst, every series equals the JSON rows"

# Prometheus has scraped the exposition that covers the workload
prom_k() {
	curl -sf "$PROM/api/v1/query" --data-urlencode 'query=vmapscope_intervals_total{job="vmapscope"}' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)'
}
prom_k_at_least() { [ "$(prom_k)" -ge "$1" ]; }
k=$(awk '$1 == "vmapscope_intervals_total" { print $2 }' "$T/comm.prom")
wait_for 30 prom_k_at_least "$k" || die "Prometheus never scraped $k intervals"
python3 "$BY" promql "$PROM" "$T/vmapstat.out" comm vs_burst_a vs_burst_b $NA $NB ||
	die "--by comm through Prometheus"
pass "--by comm: sum by (comm) through Prometheus"
stop_current

# 2. --top-callers 2 over more (caller, comm) pairs: bounded and exact.
start_vmapstat -p -j --by comm --top-callers 2 --listen 127.0.0.1:0 1
wait_for 20 k_at_least 1 || die "no first interval"
pids=()
for n in 1 2 3 4 5; do "$T/vs_burst_$n" -c "$(burst $((n * 10)))" & pids+=($!); done
wait "${pids[@]}"
scrape_after_workload "$T/top.prom"
promtool_ok "$T/top.prom"
python3 "$BY" fold "$T/top.prom" "$T/vmapstat.out" comm 2 --want-other ||
	die "--by comm --top-callers 2: bound or totals"
pass "--by comm --top-callers 2: bounded series, caller=\"other\" holds the rest exactly"
stop_current

# 3. --by cgroup: two cgroups of the cgroup v2 hierarchy.
cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$cg2" ]; then
	skip "--by cgroup: no cgroup v2 hierarchy mounted"
else
	cg=$cg2/vmapscope_prom_by.$$
	mkdir "$cg" "$cg/a" "$cg/b"
	trap 'rmdir "$cg/a" "$cg/b" "$cg" 2>/dev/null; cleanup' EXIT
	start_vmapstat -p -j --by cgroup --top-callers 10000 --listen 127.0.0.1:0 1
	wait_for 20 k_at_least 1 || die "no first interval"
	sh -c "echo \$\$ >$cg/a/cgroup.procs; $(burst $NA)" & pa=$!
	sh -c "echo \$\$ >$cg/b/cgroup.procs; $(burst $NB)" & pb=$!
	wait $pa $pb
	scrape_after_workload "$T/cgroup.prom"
	promtool_ok "$T/cgroup.prom"
	rel=${cg#"$cg2"}
	python3 "$BY" bursts "$T/cgroup.prom" cgroup "$rel/a" "$rel/b" $NA $NB ||
		die "--by cgroup: bursts"
	python3 "$BY" fold "$T/cgroup.prom" "$T/vmapstat.out" cgroup 10000 ||
		die "--by cgroup: series vs JSON"
	pass "--by cgroup: promtool accepts it, each cgroup's series hold its burst, every series equals the JSON rows"
	stop_current
fi

# 4. A bad --by: one line naming the option, exit 2, nothing served.
for v in foo "" cgroup,comm; do
	rc=0
	"$VMAPSTAT" --by "$v" --listen 127.0.0.1:0 1 >"$T/bad.out" 2>"$T/bad.err" || rc=$?
	[ "$rc" = 2 ] || die "--by '$v': exit $rc, want 2 ($(cat "$T/bad.err"))"
	[ "$(wc -l <"$T/bad.err")" = 1 ] && grep -q -- "invalid --by '$v'" "$T/bad.err" ||
		die "--by '$v': not one line naming it: $(cat "$T/bad.err")"
	[ ! -s "$T/bad.out" ] || die "--by '$v': wrote to stdout"
done
pass "--by foo, '', cgroup,comm: one line, exit 2"
finish
