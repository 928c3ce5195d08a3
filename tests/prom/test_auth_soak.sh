#!/usr/bin/env bash
# Unauthenticated clients against vmapstat --listen with basic auth
# (--web.config.file, the static binary): 100,000 requests, half without
# credentials, half with a wrong password or an unknown user, one
# connection each.  Every one must get a 401 carrying exactly one
# WWW-Authenticate header, and vmapstat's resident memory may grow by at
# most 1 MiB over the last 90,000 of them (http_soak.py); a right
# password still gets a 200 afterwards.  The user's bcrypt hash has cost 4
# (about 1 ms a check) so that the wrong passwords do not take hours.
. "$(dirname "$0")/lib.sh"
need curl python3

cd "$T"
hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret-pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 4)))')
case $hash in '$2b$04$'*) ;; *) fail "no bcrypt hash: $hash" ;; esac
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >auth.yml

start_vmapstat --listen 127.0.0.1:0 --web.config.file "$T/auth.yml"
port=${VS_URL##*:}
port=${port%/metrics}
python3 "$PROM_TESTS_DIR/http_soak.py" --port "$port" --pid "$VS_PID" --requests 100000 \
	--mix none=1,wrong=1 --password s3cret-pw --rss-bound-kib 1024 >"$T/soak.out" ||
	fail "soak: $(cat "$T/soak.out")"
pass "$(cat "$T/soak.out")"
code=$(curl -s -o "$T/body" -w '%{http_code}' --max-time 5 -u prometheus:s3cret-pw "$VS_URL")
[ "$code" = 200 ] || fail "right password after the soak: $code"
grep -q '^vmapscope_build_info{' "$T/body" || fail "no exposition after the soak"
kill -0 "$VS_PID" || fail "vmapstat died"
stop_vmapstat || fail "vmapstat exited with $?"
STARTED_PIDS=()
pass "right password after the soak: 200; vmapstat exits 0"
finish
