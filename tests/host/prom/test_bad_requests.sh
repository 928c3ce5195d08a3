#!/usr/bin/env bash
# Bad and hostile HTTP clients against vmapstat --listen: / the landing
# page, other paths 404, other methods 405, HEAD without body, clients vanishing
# mid-response, half-open and stalled clients timing out, concurrent
# scrapes; through all of it the collector keeps reporting intervals
# (-j), and vmapstat exits 0 on SIGINT with nothing on stderr but its
# startup lines.
. "$(dirname "$0")/lib.sh"
need curl python3

start_vmapstat -p -j --listen 127.0.0.1:0 --listen-timeout 2 0.5
port=${VS_URL##*:}
port=${port%/metrics}
base="http://127.0.0.1:$port"
wait_for 10 test -s "$T/vmapstat.out" || die "no JSON interval"

code() { curl -s -o "$T/body" -w '%{http_code}' "$@"; }
for p in /index.html /metric /metrics/ /x/metrics "/favicon.ico"; do
	[ "$(code "$base$p")" = 404 ] || die "GET $p: not 404"
done
pass "other paths: 404"
[ "$(code "$base/")" = 200 ] && grep -q '<a href="/metrics">' "$T/body" ||
	die "GET /: not the landing page: $(cat "$T/body")"
pass "GET /: a landing page linking to /metrics"
for m in POST PUT DELETE PATCH OPTIONS; do
	[ "$(code -X "$m" "$base/metrics")" = 405 ] || die "$m /metrics: not 405"
done
[ "$(code -X POST --data 'x=1' "$base/metrics")" = 405 ] || die "POST with a body: not 405"
curl -s -D "$T/hdr" -o /dev/null -X DELETE "$base/metrics"
grep -qi '^Allow: GET, HEAD' "$T/hdr" || die "405 without Allow: GET, HEAD"
pass "other methods: 405 with Allow: GET, HEAD"
curl -sf -I "$base/metrics" -o "$T/head" || die "HEAD failed"
grep -q '^HTTP/1.1 200' "$T/head" || die "HEAD: not 200"
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$T/head" ||
	die "HEAD: wrong Content-Type: $(grep -i content-type "$T/head")"
pass "HEAD /metrics: 200, exposition content type"

before=$(wc -l <"$T/vmapstat.out")
python3 "$PROM_TESTS_DIR/http_abuse.py" "$port" 2 || die "misbehaving clients"
sleep 1.2
after=$(wc -l <"$T/vmapstat.out")
[ "$after" -gt "$before" ] || die "collector stopped reporting ($before -> $after intervals)"
kill -0 "$VS_PID" || die "vmapstat died"
[ "$(code "$base/metrics")" = 200 ] || die "GET /metrics after the abuse: not 200"
# an interval is published before its JSON line is printed, so the
# exposition is at least as new as the JSON read before the scrape
served=$(sed -n 's/^vmapscope_intervals_total //p' "$T/body")
[ "$served" -ge "$after" ] || die "/metrics serves interval $served, JSON already had $after"
pass "collector kept running: $before -> $after intervals, /metrics still current"

stop_vmapstat || die "vmapstat exited with $? after the abuse"
STARTED_PIDS=()
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/vmapstat.out" ||
	die "a JSON line is broken"
[ "$(wc -l <"$T/vmapstat.out")" -ge "$served" ] || die "fewer JSON intervals than served"
if grep -v -e '^vmapstat: \(granule\|chunk\|latency\|areas\): ' -e '^vmapstat: serving ' \
	"$T/vmapstat.err" | grep -q .; then
	die "unexpected stderr: $(cat "$T/vmapstat.err")"
fi
pass "vmapstat exits 0 on SIGINT, every JSON line parses, no error output"
finish
