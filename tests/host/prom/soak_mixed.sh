#!/usr/bin/env bash
# The HTTP soak of docs/prometheus.md ("Soak"), a benchmark rather than a
# test of make check: 100,000 requests to the static vmapstat in service
# mode (--web.listen-address, no INTERVAL, so every good scrape reads the
# BPF maps) with basic auth at bcrypt cost 10, one connection each, in
# turn: good scrapes, wrong passwords (16 of them and an unknown user),
# no credentials, garbage request lines; beside them 8 slow clients
# trickle good scrapes over ~1 s each, again and again.  http_soak.py
# checks every answer (200 / 401 with one WWW-Authenticate / 400), every
# good scrape within 1 s, and RSS within 1 MiB after the first 10,000;
# this prints its figures and the server's own counters.
#   make prom-soak   (root: BPF on this machine's kernel)
. "$(dirname "$0")/lib.sh"
need curl python3

cd "$T"
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret-pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))')
case $hash in '$2b$10$'*) ;; *) die "no bcrypt hash: $hash" ;; esac
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >auth.yml

start_vmapstat --web.listen-address 127.0.0.1:0 --web.config.file "$T/auth.yml"
port=${VS_URL##*:}
port=${port%/metrics}
python3 "$PROM_TESTS_DIR/http_soak.py" --port "$port" --pid "$VS_PID" \
	--requests "${SOAK_REQUESTS:-100000}" --mix good=2,wrong=1,none=1,garbage=1 --slow 8 \
	--password s3cret-pw --rss-bound-kib 1024 --time-limit 1800 >"$T/soak.out" ||
	die "soak: $(cat "$T/soak.out")"
pass "$(cat "$T/soak.out")"
curl -s -u prometheus:s3cret-pw "$VS_URL" -o "$T/last.prom"
grep -E '^(vmapscope_http_requests_total\{|(vmapscope_scrape_duration_seconds_(count|sum)|process_resident_memory_bytes|process_cpu_seconds_total) )' "$T/last.prom"
stop_vmapstat || die "vmapstat exited with $?"
STARTED_PIDS=()
finish
