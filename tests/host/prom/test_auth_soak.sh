#!/usr/bin/env bash
# Unauthenticated clients against vmapstat --listen with basic auth
# (--web.config.file, the static binary): 100,000 requests, half without
# credentials, half with a wrong password or an unknown user, one
# connection each.  Every one must get a 401 carrying exactly one
# WWW-Authenticate header, and vmapstat's resident memory may grow by at
# most 1 MiB over the last 90,000 of them (http_soak.py); a right
# password still gets a 200 afterwards.  The user's bcrypt hash has cost 4
# (about 1 ms a check) so that the wrong passwords do not take hours.
# Then the TLS build (VMAPSTAT_DYNAMIC) over HTTPS: 5,000 of them, the
# same checks.
. "$(dirname "$0")/lib.sh"
need curl python3 openssl

cd "$T"
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret-pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)))')
case $hash in '$2b$04$'*) ;; *) die "no bcrypt hash: $hash" ;; esac
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >auth.yml

start_vmapstat --listen 127.0.0.1:0 --web.config.file "$T/auth.yml"
port=${VS_URL##*:}
port=${port%/metrics}
python3 "$PROM_TESTS_DIR/http_soak.py" --port "$port" --pid "$VS_PID" --requests 100000 \
	--mix none=1,wrong=1 --password s3cret-pw --rss-bound-kib 1024 >"$T/soak.out" ||
	die "soak: $(cat "$T/soak.out")"
pass "$(cat "$T/soak.out")"
code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 5 -u prometheus:s3cret-pw "$VS_URL")
[ "$code" = 200 ] || die "right password after the soak: $code"
grep -q '^vmapscope_build_info{' "$T/body" || die "no exposition after the soak"
kill -0 "$VS_PID" || die "vmapstat died"
stop_vmapstat || die "vmapstat exited with $?"
STARTED_PIDS=()
pass "right password after the soak: 200; vmapstat exits 0"

# The TLS build over HTTPS: 5,000 more (a TLS handshake each, ~10 ms of
# CPU on this host, so fewer), the same checks
DYN=${VMAPSTAT_DYNAMIC:-$(dirname "$VMAPSTAT")/../bin-dynamic/vmapstat}
[ -x "$DYN" ] || fail "no dynamic vmapstat at $DYN (make tools-dynamic)"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
	-subj /CN=127.0.0.1 -keyout srv.key -out srv.crt 2>"$T/openssl.log" ||
	fail "openssl: $(cat "$T/openssl.log")"
printf 'tls_server_config:\n  cert_file: srv.crt\n  key_file: srv.key\n' >tls.yml
cat auth.yml >>tls.yml
VMAPSTAT_BIN=$DYN start_vmapstat --listen 127.0.0.1:0 --web.config.file "$T/tls.yml"
case $VS_URL in https://*) ;; *) fail "not HTTPS: $VS_URL" ;; esac
port=${VS_URL##*:}
port=${port%/metrics}
python3 "$PROM_TESTS_DIR/http_soak.py" --tls --port "$port" --pid "$VS_PID" --requests 5000 --threads 4 \
	--mix none=1,wrong=1 --password s3cret-pw --rss-bound-kib 1024 >"$T/soak.out" ||
	fail "TLS soak: $(cat "$T/soak.out")"
pass "HTTPS: $(cat "$T/soak.out")"
stop_vmapstat || fail "vmapstat (TLS) exited with $?"
STARTED_PIDS=()
finish
