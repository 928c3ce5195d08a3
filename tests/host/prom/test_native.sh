#!/usr/bin/env bash
# Native histograms: a real Prometheus (Debian's, with
# --enable-feature=native-histograms, so it asks for the protobuf format)
# scrapes vmapstat --web.listen-address every second while the same
# vmapstat prints -j.  Workload: short-lived tasks (their kernel stacks)
# and BPF maps large enough to be vmalloc'ed, created and removed, so the
# lifetime histogram (--lifetime, the histogram this host's kernel can
# fill) has rows of at least two callers.  native_vs_json.py then requires,
# at the latest scrape, histogram_count / histogram_sum to equal the JSON
# of the intervals it holds, the native buckets to agree with the JSON
# slots, and histogram_quantile(0.5) to lie in the median's bucket; the
# histogram rules of contrib/ (rules_vs_json.py) to give the JSON's means
# there and on a second Prometheus without the feature (classic buckets
# from the text format); the exporter's own scrape-duration histogram to
# count every scrape; and a scraper that does not ask for protobuf (curl)
# to get the text format.
. "$(dirname "$0")/lib.sh"
need prometheus curl python3 bpftool

start_vmapstat -p -j --lifetime --top-callers 10000 --listen 127.0.0.1:0 1 120
target=${VS_URL#http://}
target=${target%/metrics}
# and one without the feature, scraping the text format: the rules' other half
PROM_NAME=classic start_prometheus vmapscope "$target"
PROM_CLASSIC=$PROM
PROM_ARGS=--enable-feature=native-histograms start_prometheus vmapscope "$target"
pass "prometheus $(prometheus --version 2>&1 | awk 'NR==1{print $3}') with native histograms up at $PROM, one without at $PROM_CLASSIC"

# two callers whose mappings live and die: kernel stacks, vmalloc'ed BPF maps
# pinned in a bpffs of the test's own: a machine need not have one
# mounted at /sys/fs/bpf, and the test changes no mount of the host's
bpffs=$(mktemp -d /tmp/vmapscope-native-bpffs.XXXXXX)
if ! mount -t bpf bpf "$bpffs"; then
	rmdir "$bpffs"
	die "cannot mount a bpffs at $bpffs to pin the workload's maps in (needs root)"
fi
cleanup_maps() { umount "$bpffs" && rmdir "$bpffs"; }
trap 'cleanup_maps; cleanup' EXIT
for round in 1 2 3; do
	sleeps=()
	for i in $(seq 60); do sleep 0.$((i % 7 + 1)) & sleeps+=($!); done
	for i in 1 2 3 4; do
		bpftool map create "$bpffs/m$i" type array key 4 value 65536 entries 64 name vs_native ||
			die "bpftool map create failed"
	done
	wait "${sleeps[@]}"
	rm -f "$bpffs"/m[0-9]
	sleep 1.5
done

scraped_k() {
	curl -sf "$PROM/api/v1/query" --data-urlencode 'query=vmapscope_intervals_total' |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(int(float(r[0]["value"][1])) if r else 0)'
}
k_at_least() { [ "$(scraped_k)" -ge "$1" ]; }
wait_for 60 k_at_least 8 || die "Prometheus never scraped 8 intervals"

python3 "$PROM_TESTS_DIR/native_vs_json.py" "$PROM" "$T/vmapstat.out" \
	vmapscope_map_lifetime_seconds:lifetime_hist_ns:lifetime_sum_ns:1e9 \
	--min-intervals 8 --min-callers 2 || die "native histograms differ from vmapstat -j"
pass "native lifetime histograms = the -j intervals of the same process (count, sum, buckets, median)"

# the rules' histogram expressions work with either ingestion
for p in "$PROM" "$PROM_CLASSIC"; do
	python3 "$PROM_TESTS_DIR/rules_vs_json.py" "$p" "$T/vmapstat.out" \
		"$TOPDIR/contrib/prometheus/vmapscope.rules.yml" \
		vmapscope_map_lifetime_seconds lifetime_hist_ns lifetime_sum_ns 1e9 ||
		die "the histogram rules on $p"
done
pass "the histogram rules give the JSON's means on native and on classic histograms"

# the exporter's own histogram, native too: every scrape before this one
q() { curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
n=$(q 'histogram_count(vmapscope_scrape_duration_seconds) - on(instance) promhttp_metric_handler_requests_total{code="200"}')
[ "$n" = 0 ] || die "histogram_count(vmapscope_scrape_duration_seconds) - scrapes answered = $n"
pass "vmapscope_scrape_duration_seconds is native and counts every scrape answered"
up=$(q 'up{job="vmapscope"}')
[ "$up" = 1 ] || die "up = $up"

# curl asks for */*: the text format, as before
curl -sf -D "$T/h" -o "$T/text" "$VS_URL" || die "curl $VS_URL failed"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$T/h" || die "curl got $(grep -i content-type "$T/h")"
grep -q '^vmapscope_map_lifetime_seconds_bucket{' "$T/text" || die "no classic lifetime buckets in the text format"
out=$(promtool check metrics <"$T/text" 2>&1) && [ -z "$out" ] || die "promtool check metrics: $out"
pass "a scraper that does not ask for protobuf gets the text format (classic buckets, promtool clean)"

stop_vmapstat || die "vmapstat exited with $?"
STARTED_PIDS=("${STARTED_PIDS[@]:1}")
finish
