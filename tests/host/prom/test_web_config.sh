#!/usr/bin/env bash
# --web.config.file (exporter-toolkit format): TLS and basic auth.
#
# Short-lived certificates are made here with openssl (one expired in
# 2020); a real Prometheus on 127.0.0.1 scrapes the
# dynamically linked vmapstat over HTTPS with basic auth: with the right
# password the target is up and samples arrive, with a wrong one the
# scrape fails with 401.  Plain HTTP to the TLS port gets a 400 at once
# and the exporter keeps serving; an expired certificate, a key that does
# not match, an unknown key, a bad hash, a key given twice are refused at
# start with one line and exit 1, and the static binary refuses TLS keys
# with one line saying to use the dynamic build.
. "$(dirname "$0")/lib.sh"
need openssl prometheus promtool curl python3

DYN=${VMAPSTAT_DYNAMIC:-$(dirname "$VMAPSTAT")/../bin-dynamic/vmapstat}
[ -x "$DYN" ] || die "no dynamic vmapstat at $DYN (make tools-dynamic)"

# ---- certificates: a CA, a server certificate for 127.0.0.1 (1 day) ----
cd "$T"
ossl() { openssl "$@" 2>>"$T/openssl.log" || die "openssl $1: $(tail -3 "$T/openssl.log")"; }
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-subj /CN=vmapscope-test-ca -keyout ca.key -out ca.crt
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-subj /CN=127.0.0.1 -keyout srv.key -out srv.csr
printf 'subjectAltName=IP:127.0.0.1\n' >san.ext
ossl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 \
	-extfile san.ext -out srv.crt
ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out other.key
# expired in 2020 (openssl x509 -req cannot date a certificate back;
# openssl ca can)
mkdir ca.d && : >ca.d/index.txt && echo 01 >ca.d/serial
cat >ca.cnf <<'EOC'
[ca]
default_ca = test
[test]
dir = ca.d
database = ca.d/index.txt
serial = ca.d/serial
new_certs_dir = ca.d
default_md = sha256
policy = any
[any]
commonName = supplied
EOC
ossl ca -batch -config ca.cnf -cert ca.crt -keyfile ca.key -in srv.csr -notext \
	-startdate 20200101000000Z -enddate 20200102000000Z -out expired.crt
# bcrypt, cost 10 as htpasswd -B makes it (libxcrypt through Python's crypt)
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret-pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))')
case $hash in '$2b$10$'*) ;; *) die "no bcrypt hash: $hash" ;; esac

web() {	# FILE CERT KEY [extra YAML lines]
	{
		printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\n' "$2" "$3"
		printf 'basic_auth_users:\n  prometheus: %s\n' "$hash"
		[ $# -lt 4 ] || printf '%s\n' "$4"
	} >"$1"
}
web web.yml srv.crt srv.key

# ---- refused at start: one line, exit 1 --------------------------------
refused() {	# NEEDLE BINARY ARGS...
	local needle=$1 bin=$2 rc=0; shift 2
	timeout 30 "$bin" "$@" >"$T/r.out" 2>"$T/r.err" || rc=$?
	[ $rc = 1 ] || die "$*: exit $rc, want 1 ($(cat "$T/r.err"))"
	# the collector may first say which columns this kernel lacks
	[ "$(grep -vc '^vmapstat: \(granule\|chunk\|latency\|areas\): ' "$T/r.err")" = 1 ] ||
		die "$*: not one line: $(cat "$T/r.err")"
	tail -1 "$T/r.err" | grep -q -- "$needle" || die "$*: '$needle' not in: $(cat "$T/r.err")"
}
web expired.yml expired.crt srv.key
refused "certificate .*expired.crt expired on" "$DYN" --listen 127.0.0.1:0 --web.config.file expired.yml 1 1
web mismatch.yml srv.crt other.key
refused "the key does not match certificate" "$DYN" --listen 127.0.0.1:0 --web.config.file mismatch.yml 1 1
web unknown.yml srv.crt srv.key 'tls_srever_config: {}'
refused "unknown key 'tls_srever_config'" "$DYN" --listen 127.0.0.1:0 --web.config.file unknown.yml 1 1
web unknown2.yml srv.crt srv.key
sed -i 's/^  key_file:/  keyfile: x\n  key_file:/' unknown2.yml
refused "unknown key 'tls_server_config.keyfile'" "$DYN" --listen 127.0.0.1:0 --web.config.file unknown2.yml 1 1
printf 'basic_auth_users:\n  prometheus: plaintext\n' >badhash.yml
refused "not a bcrypt hash" "$DYN" --listen 127.0.0.1:0 --web.config.file badhash.yml 1 1
refused "TLS needs the dynamically linked vmapstat" "$VMAPSTAT" --listen 127.0.0.1:0 --web.config.file web.yml 1 1
# a key twice (exporter-toolkit refuses it too): once a crash, once a leak
printf 'basic_auth_users:\n  prometheus: %s\nbasic_auth_users:\n  other: %s\n' "$hash" "$hash" >dup.yml
refused "line 3: key 'basic_auth_users' given twice (first on line 1)" "$VMAPSTAT" --listen 127.0.0.1:0 --web.config.file dup.yml 1 1
web dup2.yml srv.crt srv.key "$(printf 'tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key')"
refused "line 6: key 'tls_server_config' given twice (first on line 1)" "$DYN" --listen 127.0.0.1:0 --web.config.file dup2.yml 1 1
pass "expired certificate, mismatched key, unknown keys, bad hash, a key twice, static binary: one line, exit 1"

# ---- the static binary: basic auth over plain HTTP ----------------------
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >auth-only.yml
start_vmapstat --listen 127.0.0.1:0 --web.config.file "$T/auth-only.yml" 1 60
case $VS_URL in http://127.0.0.1:*/metrics) ;; *) die "serving line: $VS_URL" ;; esac
code() { curl -s -o "$T/body" -w '%{http_code}' --max-time 5 "$@"; }
[ "$(code -u prometheus:s3cret-pw "$VS_URL")" = 200 ] || die "static, right password: not 200"
[ "$(code -u prometheus:wrong "$VS_URL")" = 401 ] || die "static, wrong password: not 401"
[ "$(code "$VS_URL")" = 401 ] || die "static, no credentials: not 401"
stop_vmapstat || die "vmapstat exited with $?"
STARTED_PIDS=()
pass "static binary: basic auth over plain HTTP (200 / 401)"

# ---- HTTPS with basic auth ---------------------------------------------
VMAPSTAT_BIN=$DYN start_vmapstat -j --listen 127.0.0.1:0 --web.config.file "$T/web.yml" 1 120
case $VS_URL in https://127.0.0.1:*/metrics) ;; *) die "serving line: $VS_URL" ;; esac
port=${VS_URL##*:}
port=${port%/metrics}
forget() { local p keep=(); for p in "${STARTED_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done; STARTED_PIDS=("${keep[@]}"); }
[ "$(code --cacert ca.crt -u prometheus:s3cret-pw "$VS_URL")" = 200 ] || die "right password: not 200"
grep -q '^vmapscope_build_info{' "$T/body" || die "no exposition over HTTPS"
[ "$(code --cacert ca.crt -u prometheus:wrong "$VS_URL")" = 401 ] || die "wrong password: not 401"
[ "$(code --cacert ca.crt -u nobody:s3cret-pw "$VS_URL")" = 401 ] || die "unknown user: not 401"
[ "$(code --cacert ca.crt "$VS_URL")" = 401 ] || die "no credentials: not 401"
curl -s -D - -o /dev/null --cacert ca.crt "$VS_URL" | grep -qi '^WWW-Authenticate: Basic' ||
	die "401 without WWW-Authenticate: Basic"
pass "curl: right password 200, wrong password / unknown user / none 401"

# plain HTTP to the TLS port: an answer at once, not a hang
t0=$(date +%s.%N)
c=$(code "http://127.0.0.1:$port/metrics") || true
took=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$t0" "$(date +%s.%N)")
[ "$c" = 400 ] || die "plain HTTP to the TLS port: '$c', want 400"
grep -q 'HTTPS' "$T/body" || die "plain HTTP to the TLS port: $(cat "$T/body")"
python3 -c "import sys; sys.exit(float(sys.argv[1]) > 1.0)" "$took" || die "plain HTTP answer took $took s"
[ "$(code --cacert ca.crt -u prometheus:s3cret-pw "$VS_URL")" = 200 ] || die "not serving after plain HTTP"
pass "plain HTTP to the TLS port: 400 at once, HTTPS still served"

# ---- a real Prometheus: right password scrapes, wrong one gets 401 -------
start_prometheus_jobs "  - job_name: good
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
    basic_auth:
      username: prometheus
      password: s3cret-pw
    static_configs:
      - targets: ['127.0.0.1:$port']
  - job_name: wrong
    scheme: https
    tls_config:
      ca_file: $T/ca.crt
    basic_auth:
      username: prometheus
      password: not-it
    static_configs:
      - targets: ['127.0.0.1:$port']"
pass "prometheus $(prometheus --version 2>&1 | awk 'NR==1{print $3}') up at $PROM"
query() {	# PROMQL -> first value or "none"
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "none")'
}
samples() { [ "$(query 'vmapscope_intervals_total{job="good"}')" != none ] &&
	    [ "$(query 'vmapscope_intervals_total{job="good"}')" -ge 2 ]; }
wait_for 60 samples || die "no samples over HTTPS: $(tail -3 "$T/prometheus.log")"
[ "$(query 'up{job="good"}')" = 1 ] || die "up{job=good} = $(query 'up{job="good"}')"
pass "Prometheus scrapes over TLS with basic auth: up = 1, vmapscope_intervals_total = $(query 'vmapscope_intervals_total{job="good"}')"

# Each target has its own scrape offset: the wrong job may not have been
# scraped yet when the good one has two samples.
wrong_scraped() { [ "$(query 'up{job="wrong"}')" != none ]; }
wait_for 60 wrong_scraped || die "the wrong job was never scraped: $(tail -3 "$T/prometheus.log")"
[ "$(query 'up{job="wrong"}')" = 0 ] || die "up{job=wrong} = $(query 'up{job="wrong"}')"
[ "$(query 'count({job="wrong",__name__=~"vmapscope_.*"})')" = none ] || die "samples with a wrong password"
err=$(curl -sf "$PROM/api/v1/targets" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["data"]["activeTargets"]:
    if t["labels"]["job"] == "wrong":
        print(t["lastError"])')
case $err in *401*) ;; *) die "wrong password: Prometheus says '$err', not 401" ;; esac
pass "wrong password: up = 0, no samples, Prometheus reports: $err"

kill -0 "$VS_PID" || die "vmapstat died"
stop_vmapstat || die "vmapstat exited with $?"
forget "$VS_PID"

# ---- RequireAndVerifyClientCert ----------------------------------------
ossl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-subj /CN=scraper -keyout cli.key -out cli.csr
ossl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 1 -out cli.crt
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-subj /CN=stranger -keyout stranger.key -out stranger.crt
printf 'tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n' >mtls.yml
VMAPSTAT_BIN=$DYN start_vmapstat --listen 127.0.0.1:0 --web.config.file "$T/mtls.yml" 1 60
[ "$(code --cacert ca.crt --cert cli.crt --key cli.key "$VS_URL")" = 200 ] ||
	die "client certificate signed by the CA: not 200"
c=$(code --cacert ca.crt "$VS_URL") || true
[ "$c" = 403 ] || die "no client certificate: '$c', want 403"
c=$(code --cacert ca.crt --cert stranger.crt --key stranger.key "$VS_URL") || true
[ "$c" = 403 ] || die "self-signed client certificate: '$c', want 403"
[ "$(code --cacert ca.crt --cert cli.crt --key cli.key "$VS_URL")" = 200 ] ||
	die "not serving after refused clients"
pass "RequireAndVerifyClientCert: the CA's client certificate 200, none or another 403"
stop_vmapstat || die "vmapstat exited with $?"
forget "$VS_PID"
finish
