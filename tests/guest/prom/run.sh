#!/usr/bin/env bash
# Prometheus export on a patched lab kernel, where the granule, chunk and
# latency columns exist (the host kernel has none of them):
#   tests/guest/prom/run.sh ARCH      (make check-guest-prom)
# Runs inside.sh in the guest, then on the host: promtool check metrics
# on the --textfile and --prometheus outputs, the textfile equals the sum
# of the -j intervals of the same run (prom_vs_json.py), and the workload's
# large mappings, chunk and latency histograms are there; a real Prometheus
# joins live and traced bytes of the oracle module's caller.
set -euo pipefail
arch=${1:?usage: run.sh x86_64|arm64}
: "${TOPDIR:?}"
cd "$TOPDIR"
# the host side's helpers (temporary directory, started processes, Prometheus)
export VMAPSTAT=$TOPDIR/out/$arch/bin/vmapstat
. tests/host/prom/lib.sh
. tests/guest/prom/lib.sh
HARNESS_NAME=prom-guest-$arch

prom_guest_run tests/guest/prom/inside.sh
section JSON >"$T/v.json"
section PROM >"$T/v.prom"
section CMD >"$T/cmd.prom"
# PROM_GUEST_KEEP=DIR keeps the guest's outputs (for docs / debugging)
[ -z "${PROM_GUEST_KEEP:-}" ] || cp "$T/log" "$T/v.json" "$T/v.prom" "$T/cmd.prom" "$PROM_GUEST_KEEP/"
grep -q '^kload rc=0$' "$T/log" || die "workload failed: $(grep 'kload rc' "$T/log")"
grep -q '^vmapstat rc=0$' "$T/log" || die "vmapstat -j --textfile: $(grep 'vmapstat rc' "$T/log"); $(section ERR)"
grep -q '^command mode rc=0$' "$T/log" || die "vmapstat --prometheus -- kload: $(section ERR)"
[ -s "$T/v.json" ] && [ -s "$T/v.prom" ] && [ -s "$T/cmd.prom" ] || die "missing output: $(tail -20 "$T/log")"

for f in v.prom cmd.prom; do
	out=$(promtool check metrics <"$T/$f" 2>&1) || die "$f: promtool: $out"
	[ -z "$out" ] || die "$f: promtool lint: $out"
done
pass "--textfile and --prometheus (command mode) pass promtool check metrics"

python3 tests/host/prom/prom_vs_json.py "$T/v.prom" "$T/v.json" --min-intervals 1 ||
	die "textfile differs from the -j intervals"
pass "textfile = sum of the -j intervals of the same run"

# The workload maps 2M-aligned huge vmalloc / order-9 vmap ranges: PMD
# entries; chunk and latency histograms have observations.
grep -Eq '^vmapscope_mapped_bytes_total\{caller="[^"]*",api="vmap",granule="2M"\} [1-9]' "$T/v.prom" ||
	die "no 2M vmap() mappings: $(grep '^vmapscope_mapped_bytes_total' "$T/v.prom" | head)"
grep -Eq '^vmapscope_mapped_bytes_total\{caller="[^"]*",api="vmalloc",granule="2M"\} [1-9]' "$T/v.prom" ||
	die "no 2M vmalloc() mappings"
grep -Eq '^vmapscope_mapped_bytes_total\{caller="[^"]*",api="[a-z_]*",granule="4K"\} [1-9]' "$T/v.prom" ||
	die "no 4K mappings"
grep -Eq '^vmapscope_chunk_length_pages_count\{caller="[^"]*",api="vmap"\} [1-9]' "$T/v.prom" ||
	die "no chunk-length histogram for vmap()"
grep -Eq '^vmapscope_map_latency_seconds_count\{caller="[^"]*",api="[a-z_]*"\} [1-9]' "$T/v.prom" ||
	die "no latency histogram"
grep -q '^vmapscope_feature_available{feature="granule"} 1$' "$T/v.prom" || die "granule feature off"
pass "2M and 4K mappings, chunk-length and latency histograms of the workload are exported"

n=$(grep '^vmapscope_mapped_bytes_total{' "$T/cmd.prom" | sed 's/.*caller="\([^"]*\)".*/\1/' | sort -u | wc -l)
grep -q '^vmapscope_mapped_bytes_total{caller="other",' "$T/cmd.prom" || die "--top-callers 3: no caller=\"other\""
[ "$n" -le 4 ] || die "--top-callers 3: $n caller values"
pass "--top-callers 3: $n caller values including \"other\""

# Live and traced bytes join on caller: a real Prometheus scrapes the
# exposition of the snapshot_workload run (served as a file) and the
# PromQL join returns the oracle's 4 MiB vmalloc_huge() at 2M, under the
# caller that /proc/vmallocinfo and the tracer both spell
# "sw_vmalloc_huge+0x../0x.. [snapshot_workload]".
grep -q '^join rc=0$' "$T/log" || die "vmapstat --live-bytes --prometheus -- kload: $(grep 'join rc' "$T/log"); $(section ERR)"
mkdir -p "$T/join"
section JOIN >"$T/join/metrics"
hport=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$T/join" "$hport" >"$T/http.log" 2>&1 &
STARTED_PIDS+=($!)
start_prometheus join "127.0.0.1:$hport"
query() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1"
}
scraped() {
	[ "$(query 'up{job="join"}' | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')" = 1 ]
}
wait_for 30 scraped || die "Prometheus did not scrape the exposition: $(tail -3 "$T/prometheus.log")"
q='vmapscope_live_bytes{granule="2M"} * on(caller, api, granule) group_left() (vmapscope_mapped_bytes_total > bool 0)'
query "$q" >"$T/join.json" || die "PromQL query failed: $(tail -3 "$T/prometheus.log")"
python3 - "$T/join.json" <<'EOP' || die "join: $(grep -E '^vmapscope_(live_bytes|mapped_bytes_total)\{caller="sw_' "$T/join/metrics")"
import json, re, sys
res = json.load(open(sys.argv[1]))["data"]["result"]
rows = [(r["metric"]["caller"], r["metric"]["api"], float(r["value"][1])) for r in res]
print("join rows:", rows)
mine = [r for r in rows
        if re.fullmatch(r"sw_vmalloc_huge\+0x[0-9a-f]+/0x[0-9a-f]+ \[snapshot_workload\]", r[0])]
sys.exit(not (len(mine) == 1 and mine[0][1] == "vmalloc" and mine[0][2] == 4 << 20))
EOP
pass "PromQL joins vmapscope_live_bytes and vmapscope_mapped_bytes_total on caller (sw_vmalloc_huge: 4 MiB at 2M)"

grep -E '^vmapscope_(mapped_bytes_total|mappings_total)\{.*granule="2M"' "$T/v.prom" | head -4
finish
