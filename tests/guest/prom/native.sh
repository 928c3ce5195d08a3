#!/usr/bin/env bash
# Native histograms on a patched lab kernel, where the chunk-length and
# mapping-latency histograms fill (the host kernel has neither):
#   tests/guest/prom/native.sh ARCH      (make check-guest-prom-native)
# native_inside.sh runs the vmap_test workload in the guest while
# vmapstat -p -j --web.listen-address serves the intervals it prints, and
# fetches /metrics twice: with Prometheus' protobuf Accept header and
# without one.  On the host: the answers' Content-Types; the protobuf body
# replayed to a real Prometheus with native histograms (served as the
# exporter served it), which decodes it; then, at its scrape,
# native_vs_json.py (tests/host/prom/): native series for exactly the JSON
# rows with observations, histogram_count and histogram_sum equal to the
# JSON intervals the exposition holds, the buckets consistent with the
# JSON slots, the median in its bucket; and native_vs_trace.py: each
# workload row's native buckets equal to the bucket of every call's size
# and time in the kernel's own vmap_mapped lines, exactly.
set -euo pipefail
arch=${1:?usage: native.sh x86_64|arm64}
: "${TOPDIR:?}"
cd "$TOPDIR"
export VMAPSTAT=$TOPDIR/out/$arch/bin/vmapstat
. tests/host/prom/lib.sh
. tests/guest/prom/lib.sh
need prometheus python3 curl base64
HARNESS_NAME=prom-native-guest-$arch

prom_guest_run tests/guest/prom/native_inside.sh
section JSON >"$T/v.json"
section PBHDR >"$T/pb.hdr"
section TEXTHDR >"$T/text.hdr"
section TEXT >"$T/text.prom"
section TRACE >"$T/trace"
mkdir -p "$T/serve"
# (only base64 lines: a kernel message on the console may come between)
section PB | grep -E '^[A-Za-z0-9+/=]+$' | base64 -d >"$T/serve/metrics" ||
	die "the protobuf body is not base64: $(section PB | head -3)"
# PROM_GUEST_KEEP=DIR keeps the guest's outputs (for docs / debugging)
[ -z "${PROM_GUEST_KEEP:-}" ] || cp "$T/log" "$T/v.json" "$T/serve/metrics" "$T/trace" "$PROM_GUEST_KEEP/"
grep -q '^kload rc=0$' "$T/log" || die "workload failed: $(grep 'kload rc' "$T/log"); $(section ERR)"
grep -q 'vmap_test: summary mode=map pass=[1-9][0-9]* fail=0$' "$T/log" ||
	die "vmap_test: $(grep 'vmap_test: summary' "$T/log" || echo 'no summary line')"
grep -q '^vmapstat rc=0$' "$T/log" || die "vmapstat: $(grep 'vmapstat rc' "$T/log"); $(section ERR)"
grep -q '^protobuf rc=0$' "$T/log" && grep -q '^text rc=0$' "$T/log" ||
	die "GET /metrics: $(grep -E '^(protobuf|text) rc' "$T/log")"
grep -Eq '^trace overrun=(0\+)+0 lines=[1-9]' "$T/log" || die "tracefs: $(grep '^trace overrun' "$T/log")"
[ -s "$T/v.json" ] && [ -s "$T/serve/metrics" ] && [ -s "$T/trace" ] || die "missing output: $(tail -20 "$T/log")"
pass "guest: vmap_test ($(grep -o 'pass=[0-9]*' "$T/log" | head -1) checks), $(grep -c '^{' "$T/v.json") JSON intervals, \
$(wc -c <"$T/serve/metrics") bytes of protobuf, $(wc -l <"$T/trace") workload calls in tracefs"

ct_pb=$(grep -i '^ *content-type:' "$T/pb.hdr" | tail -1 | sed 's/^ *[Cc]ontent-[Tt]ype: *//')
case "$ct_pb" in
'application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited') ;;
*) die "the protobuf request was answered with Content-Type '$ct_pb'" ;;
esac
grep -qi '^ *content-type: text/plain; version=0.0.4' "$T/text.hdr" ||
	die "the request without Accept got $(grep -i content-type "$T/text.hdr")"
grep -q '^vmapscope_map_latency_seconds_bucket{' "$T/text.prom" || die "no classic latency buckets in the text"
pass "GET /metrics: protobuf to Prometheus' Accept header, text (classic buckets) without one"

# The body as the exporter answered it, to a Prometheus that asks for
# protobuf (--enable-feature=native-histograms): it decodes the messages.
hport=$(free_port)
python3 - "$T/serve/metrics" "$hport" >"$T/http.log" 2>&1 <<'EOP' &
import http.server, sys
body = open(sys.argv[1], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.google.protobuf; "
                         "proto=io.prometheus.client.MetricFamily; encoding=delimited")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
http.server.HTTPServer(("127.0.0.1", int(sys.argv[2])), H).serve_forever()
EOP
STARTED_PIDS+=($!)
PROM_ARGS=--enable-feature=native-histograms start_prometheus guest "127.0.0.1:$hport"
q() { curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'; }
scraped() { [ "$(q 'up{job="guest"}')" = 1 ] && [ "$(q 'vmapscope_intervals_total')" != none ]; }
wait_for 30 scraped || die "Prometheus did not ingest the guest's protobuf: $(tail -3 "$T/prometheus.log")"
pass "Prometheus $(prometheus --version 2>&1 | awk 'NR==1{print $3}') ingested the guest's protobuf exposition ($(q 'vmapscope_intervals_total') intervals)"

python3 tests/host/prom/native_vs_json.py "$PROM" "$T/v.json" \
	vmapscope_chunk_length_pages:chunk_hist:chunk_pages:1 \
	vmapscope_map_latency_seconds:latency_hist_ns:latency_sum_ns:1e9 \
	--min-intervals 2 --min-callers 2 || die "native histograms differ from the JSON intervals"
pass "chunk-length and mapping-latency native histograms = the -j intervals of the same process"

python3 tests/guest/prom/native_vs_trace.py "$PROM" "$T/trace" --min-rows 2 ||
	die "native histograms differ from the kernel's vmap_mapped lines"
pass "the workload's native buckets = its calls' sizes and times in the kernel's vmap_mapped lines, exactly"

# The comparison can fail: the same trace with one call twice as long and
# twice as slow (one bucket up in both families) must not match.
awk 'NR == 1 { $2 *= 2; $3 *= 2 } 1' "$T/trace" >"$T/trace.bad"
if python3 tests/guest/prom/native_vs_trace.py "$PROM" "$T/trace.bad" >"$T/bad.out" 2>&1; then
	die "native_vs_trace.py accepted a trace with one call's size and time doubled"
fi
[ "$(grep -c '^FAIL' "$T/bad.out")" -ge 2 ] ||
	die "a trace with one call's size and time doubled failed only $(grep -c '^FAIL' "$T/bad.out") family: $(cat "$T/bad.out")"
pass "fed the trace with one call's size and time doubled, both families differ: $(grep -m1 '^FAIL' "$T/bad.out" | cut -c1-160)"
finish
