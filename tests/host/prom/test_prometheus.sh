#!/usr/bin/env bash
# A real Prometheus server (Debian's prometheus, on 127.0.0.1 with a
# temporary config and data directory) scrapes vmapstat --listen every
# second while the same vmapstat prints -j.  prom_vs_json.py then asks
# Prometheus's HTTP API for every vmapscope_ series and requires them to
# equal the sum of the JSON intervals the scrape covered
# (vmapscope_intervals_total says how many): same process, same
# intervals, so no timing luck is involved.
. "$(dirname "$0")/lib.sh"
need prometheus curl python3

start_vmapstat -p -j --top-callers 10000 --listen 127.0.0.1:0 1 120
target=${VS_URL#http://}
target=${target%/metrics}

start_prometheus vmapscope "$target"
pass "prometheus $(prometheus --version 2>&1 | awk 'NR==1{print $3}') up at $PROM"

# some activity while Prometheus scrapes
workload 100

# wait until Prometheus has scraped the exporter after at least 3 intervals
scraped_k() {
	curl -sf "$PROM/api/v1/query" --data-urlencode 'query=vmapscope_intervals_total' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)'
}
k_at_least() { [ "$(scraped_k)" -ge "$1" ]; }
wait_for 60 k_at_least 3 || die "Prometheus never scraped 3 intervals"
up=$(curl -sf "$PROM/api/v1/query" --data-urlencode 'query=up{job="vmapscope"}' |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ "$up" = 1 ] || die "up{job=vmapscope} = $up"
pass "Prometheus scrapes the exporter (up = 1)"

python3 "$PROM_TESTS_DIR/prom_vs_json.py" "$PROM" "$T/vmapstat.out" --min-intervals 3 ||
	die "scraped values differ from vmapstat -j"

# the exporter's own health: Prometheus saw no failed scrapes
failed=$(curl -sf "$PROM/api/v1/query" --data-urlencode \
	'query=count_over_time(up{job="vmapscope"}[1m]) - sum_over_time(up{job="vmapscope"}[1m])' |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")')
[ "$failed" = 0 ] || die "failed scrapes in the last minute: $failed"
pass "no failed scrape"

stop_vmapstat || die "vmapstat exited with $?"
STARTED_PIDS=("${STARTED_PIDS[@]:1}")
finish
