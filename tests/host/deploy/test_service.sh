#!/usr/bin/env bash
# make check-host-deploy: the exporter's systemd unit, without a running systemd.
#
#  1. make install PREFIX=<tmp> (no DESTDIR, so the unit's ExecStart names a
#     real binary); systemd-analyze verify on the installed unit, and on the
#     unit with the --live-bytes drop-in; systemd-analyze security --offline
#     rates its exposure at most MAX_EXPOSURE.
#  2. sysusers: DESTDIR install with PREFIX=/usr/local, systemd-sysusers
#     --root finds the file there and creates the unit's User= as a system
#     user without a shell; the unit directory is on systemd's unit path.
#  3. capabilities, read from the installed unit (and drop-in): vmapstat
#     started by setpriv as an unprivileged user (uid 65534) with exactly
#     that set as inheritable, ambient and bounding set, no_new_privs and
#     the unit's SecureBits=,
#     serves a full scrape (HTTP 200, promtool check metrics clean, callers
#     named) and ends with status 0 on SIGTERM; with each capability fewer it
#     fails the way docs/deploy.md says: CAP_BPF or CAP_PERFMON -> one line
#     naming both, a non-zero exit;
#     CAP_SYSLOG -> it serves, but vmapscope_symbols_available 0 and no
#     caller named, with one line naming /proc/kallsyms.  --live-bytes with
#     the drop-in's set under this host's kernel.kptr_restrict (set
#     DEPLOY_TEST_KPTR_RESTRICT=1 to run that part under 1, restored after).
#  4. the sandbox, by tracing a run with the unit's set and basic auth
#     (--web.config.file), scraped with and without the password: every system call after
#     exec is in the unit's SystemCallFilter= (as systemd-analyze
#     syscall-filter expands it), sockets only of RestrictAddressFamilies=,
#     no writable+executable mapping (MemoryDenyWriteExecute=), no file
#     opened for writing (ProtectSystem=strict), neither tracefs nor
#     debugfs opened, nothing under the paths
#     ProtectHome= and InaccessiblePaths= hide; peak memory (resident +
#     BPF maps) below MemoryHigh=, threads below TasksMax=.
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
OUTDIR=${OUTDIR:-$TOPDIR/out}
MAX_EXPOSURE=3.0
RUN_UID=65534
UNIT_NAME=vmapstat-exporter.service


[ "$(id -u)" = 0 ] || { echo "test_service.sh: must run as root" >&2; exit 1; }
for c in systemd-analyze systemd-sysusers setpriv strace curl promtool; do
	command -v $c >/dev/null || { echo "test_service.sh: $c missing (make deps-test)" >&2; exit 1; }
done

tmp=$(mktemp -d)
chmod 755 "$tmp"	# uid $RUN_UID runs the installed vmapstat from here
kr_saved=
EXPORTER_PIDS=()
cleanup() {
	local p
	for p in "${EXPORTER_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	[ -z "$kr_saved" ] || echo "$kr_saved" >/proc/sys/kernel/kptr_restrict
	rm -rf "$tmp"
}
trap cleanup EXIT

prefix=$tmp/prefix
if ! make -C "$TOPDIR" --no-print-directory OUTDIR="$OUTDIR" PREFIX="$prefix" install >"$tmp/install.log" 2>&1; then
	cat "$tmp/install.log"; die "make install PREFIX=$prefix"
fi
unit=$prefix/lib/systemd/system/$UNIT_NAME
dropin=$prefix/share/vmapscope/systemd/live-bytes.conf
bin=$prefix/sbin/vmapstat
[ -f "$unit" ] && [ -f "$dropin" ] && [ -x "$bin" ] || die "make install did not install $unit, $dropin and $bin"

# ---- 1. systemd-analyze ----------------------------------------------------
verify() {	# LABEL UNITFILE
	if MANPATH=$prefix/share/man: systemd-analyze verify "$2" >"$tmp/verify.out" 2>&1 && [ ! -s "$tmp/verify.out" ]; then
		pass "systemd-analyze verify: $1"
	else
		fail "systemd-analyze verify $1:"; sed 's/^/    /' "$tmp/verify.out"
	fi
}
verify "$UNIT_NAME" "$unit"
# The unit with the drop-in's [Service] lines at the end of its [Service]
# section: what systemd merges (every setting of the drop-in is a list that
# adds, or an assignment that replaces, in both forms).
mkdir -p "$tmp/merged"
awk -v d="$dropin" '/^\[Install\]/ { while ((getline l < d) > 0) if (l != "[Service]") print l }
	{ print }' "$unit" >"$tmp/merged/$UNIT_NAME"
grep -q '^AmbientCapabilities=CAP_DAC_READ_SEARCH' "$tmp/merged/$UNIT_NAME" || fail "could not merge the drop-in into the unit"
verify "$UNIT_NAME + live-bytes.conf" "$tmp/merged/$UNIT_NAME"

systemd-analyze security --offline=yes --no-pager "$unit" >"$tmp/security.out" 2>&1
exposure=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/security.out")
if [ -n "$exposure" ] && awk -v e="$exposure" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(e <= m) }'; then
	pass "systemd-analyze security --offline: exposure $exposure (at most $MAX_EXPOSURE)"
else
	fail "systemd-analyze security --offline: exposure '${exposure:-?}' above $MAX_EXPOSURE:"
	grep '✗' "$tmp/security.out" | sed 's/^/    /'
fi

# ---- 2. sysusers.d and the unit path ---------------------------------------
sysroot=$tmp/sysroot
mkdir -p "$sysroot/etc"
make -C "$TOPDIR" --no-print-directory OUTDIR="$OUTDIR" PREFIX=/usr/local DESTDIR="$sysroot" install >"$tmp/install2.log" 2>&1 ||
	{ cat "$tmp/install2.log"; fail "make install DESTDIR=$sysroot PREFIX=/usr/local"; }
unit_user=$(sed -n 's/^User=//p' "$unit")
unit_group=$(sed -n 's/^Group=//p' "$unit")
if systemd-sysusers --root="$sysroot" >"$tmp/sysusers.out" 2>&1; then
	IFS=: read -r name _ uid gid _ home shell < <(grep "^$unit_user:" "$sysroot/etc/passwd")
	if [ "$name" = "$unit_user" ] && [ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] &&
		[ "$shell" = /usr/sbin/nologin ] && [ "$home" = / ] &&
		grep -q "^$unit_group:x:$gid:" "$sysroot/etc/group"; then
		pass "systemd-sysusers --root finds /usr/local/lib/sysusers.d: system user $name ($uid:$gid, $shell), group $unit_group"
	else
		fail "systemd-sysusers did not create the unit's User=$unit_user/Group=$unit_group as a system user: $(cat "$sysroot/etc/passwd" 2>/dev/null)"
	fi
else
	fail "systemd-sysusers --root=$sysroot: $(cat "$tmp/sysusers.out")"
fi
systemd-analyze unit-paths 2>/dev/null | grep -qx /usr/local/lib/systemd/system &&
	[ -f "$sysroot/usr/local/lib/systemd/system/$UNIT_NAME" ] &&
	pass "PREFIX=/usr/local installs the unit in /usr/local/lib/systemd/system, on systemd's unit path" ||
	fail "the unit is not installed on systemd's unit path for PREFIX=/usr/local"

# ---- 3. capabilities -------------------------------------------------------
caps_of() {	# KEY FILE... -> setpriv names (bpf perfmon ...), one a line
	sed -n "s/^$1=//p" "${@:2}" | tr ' ' '\n' | sed -n 's/^CAP_//p' | tr A-Z a-z | sort -u
}
unit_caps=$(caps_of AmbientCapabilities "$unit")
[ "$unit_caps" = "$(caps_of CapabilityBoundingSet "$unit")" ] &&
	pass "unit: AmbientCapabilities = CapabilityBoundingSet = $(echo $unit_caps)" ||
	fail "unit: AmbientCapabilities ($(echo $unit_caps)) differ from CapabilityBoundingSet ($(echo $(caps_of CapabilityBoundingSet "$unit")))"
grep -qx NoNewPrivileges=yes "$unit" || fail "unit lacks NoNewPrivileges=yes"
live_caps=$(caps_of AmbientCapabilities "$unit" "$dropin")
# SecureBits=noroot noroot-locked -> setpriv --securebits=+noroot,+noroot_locked
securebits=$(sed -n 's/^SecureBits=//p' "$unit" | tr ' -' '\n_' | grep . | sed 's/^/+/' | paste -sd,)
[ -n "$securebits" ] || securebits=-all
live_opts=$(sed -n 's/^Environment=VMAPSTAT_OPTS=//p' "$dropin")

# start_exporter LABEL CAPS OPTS...: vmapstat --listen 127.0.0.1:0 as uid
# $RUN_UID with exactly CAPS; sets PID, PORT ("" if it did not serve),
# ERR (stderr file).  WRAP (array) goes in front (strace).
WRAP=()
start_exporter() {
	local label=$1 caps=$2 set=-all c i; shift 2
	for c in $caps; do set="$set,+$c"; done
	ERR=$tmp/$label.err; PORT=
	"${WRAP[@]}" setpriv --reuid=$RUN_UID --regid=$RUN_UID --clear-groups --no-new-privs \
		--securebits="$securebits" \
		--inh-caps="$set" --ambient-caps="$set" --bounding-set="$set" -- \
		"$bin" --listen 127.0.0.1:0 "$@" >"$tmp/$label.out" 2>"$ERR" </dev/null &
	PID=$!
	EXPORTER_PIDS+=("$PID")
	for i in $(seq 150); do
		PORT=$(sed -n 's|.*serving http://127\.0\.0\.1:\([0-9]*\)/metrics.*|\1|p' "$ERR")
		[ -n "$PORT" ] && return 0
		kill -0 "$PID" 2>/dev/null || return 0
		sleep 0.1
	done
}
# wait_exit TIMEOUT: sets RC (or 124 after TIMEOUT seconds, then kills)
wait_exit() {
	local i
	for i in $(seq $(($1 * 10))); do
		kill -0 "$PID" 2>/dev/null || { wait "$PID"; RC=$?; return; }
		sleep 0.1
	done
	kill -KILL "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; RC=124
}
stop_exporter() { kill -TERM "$PID" 2>/dev/null; wait_exit 10; }
# scrape LABEL: every mapping caller's new areas need forks to happen; poll
# until a named caller shows (or 10 s), leave the last scrape in $tmp/LABEL.prom
CURL_AUTH=()
NAMED='^vmapscope_[a-z_]+\{caller="[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+/0x[0-9a-f]+( \[[^]]+\])?"'
scrape() {
	local i code
	for i in $(seq 20); do
		for _ in 1 2 3 4 5 6 7 8; do /bin/true & done; wait_forks
		code=$(curl -s "${CURL_AUTH[@]}" -o "$tmp/$1.prom" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
		[ "$code" = 200 ] || { echo "$code"; return; }
		grep -qE "$NAMED" "$tmp/$1.prom" && break
		sleep 0.5
	done
	echo "$code"
}
wait_forks() { local j; for j in $(jobs -p); do case " ${EXPORTER_PIDS[*]} " in *" $j "*) ;; *) wait "$j" 2>/dev/null ;; esac; done; }
one_line() { [ "$(grep -c . "$1")" = 1 ]; }

# full_scrape_ok LABEL: the checks of a full scrape of the running exporter
full_scrape_ok() {
	local label=$1 code
	code=$(scrape "$label")
	[ "$code" = 200 ] || { fail "$label: GET /metrics answered $code"; return 1; }
	if ! promtool check metrics <"$tmp/$label.prom" >"$tmp/$label.lint" 2>&1 || [ -s "$tmp/$label.lint" ]; then
		fail "$label: promtool check metrics:"; sed 's/^/    /' "$tmp/$label.lint"; return 1
	fi
	grep -q '^vmapscope_build_info{' "$tmp/$label.prom" && grep -qx 'vmapscope_symbols_available 1' "$tmp/$label.prom" &&
		grep -qE "$NAMED" "$tmp/$label.prom" ||
		{ fail "$label: scrape lacks build_info, symbols_available 1 or a named caller"; return 1; }
	return 0
}

# The unit's set: a full scrape, status 0 on SIGTERM.
start_exporter full "$unit_caps"
if [ -z "$PORT" ]; then
	wait_exit 5; fail "with the unit's capabilities ($(echo $unit_caps)) vmapstat did not serve (exit $RC): $(cat "$ERR")"
else
	if full_scrape_ok full; then
		pass "uid $RUN_UID with exactly $(echo $unit_caps): full scrape ($(grep -vc '^#' "$tmp/full.prom") samples, promtool clean, callers named: $(grep -oE "$NAMED" "$tmp/full.prom" | head -1 | sed 's/.*caller=//'))"
	fi
	stop_exporter
	[ "$RC" = 0 ] && pass "SIGTERM: exit 0" || fail "SIGTERM: exit $RC"
fi

# Each capability fewer.
for c in $unit_caps; do
	less=$(echo "$unit_caps" | grep -vx "$c")
	label=no-$c
	start_exporter "$label" "$less"
	case $c in
	bpf|perfmon)
		if [ -n "$PORT" ]; then
			stop_exporter; fail "without CAP_${c^^}: vmapstat served anyway"
		else
			wait_exit 10
			if [ "$RC" != 0 ] && [ "$RC" != 124 ] && one_line "$ERR" &&
			   grep -qF "need root (or CAP_BPF and CAP_PERFMON) to load BPF programs (missing: CAP_${c^^})" "$ERR"; then
				pass "without CAP_${c^^}: exit $RC, one line: $(cat "$ERR")"
			else
				fail "without CAP_${c^^}: want a non-zero exit and one line naming the missing CAP_${c^^}, got exit $RC: $(cat "$ERR")"
			fi
		fi
		;;
	syslog)
		if [ -z "$PORT" ]; then
			wait_exit 5; fail "without CAP_SYSLOG: vmapstat did not serve (exit $RC): $(cat "$ERR")"
		else
			code=$(curl -s -o "$tmp/$label.prom" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
			n=$(grep -c 'kallsyms shows all addresses as 0' "$ERR")
			if [ "$code" = 200 ] && grep -qx 'vmapscope_symbols_available 0' "$tmp/$label.prom" &&
				! grep -qE "$NAMED" "$tmp/$label.prom" && [ "$n" -ge 1 ]; then
				pass "without CAP_SYSLOG: serves, vmapscope_symbols_available 0, no caller named; says: $(grep -m1 '^vmapstat: callers: /proc/kallsyms' "$ERR")"
			else
				fail "without CAP_SYSLOG: want symbols_available 0, no named caller and a kallsyms line; HTTP $code, stderr: $(cat "$ERR")"
			fi
			stop_exporter
		fi
		;;
	*)	fail "the unit grants CAP_${c^^}: this test has no expectation for running without it" ;;
	esac
done

# --live-bytes with the drop-in's set, under this host's kptr_restrict.
if [ "${DEPLOY_TEST_KPTR_RESTRICT:-}" = 1 ]; then
	kr_saved=$(cat /proc/sys/kernel/kptr_restrict)
	echo 1 >/proc/sys/kernel/kptr_restrict
fi
kr=$(cat /proc/sys/kernel/kptr_restrict)
# shellcheck disable=SC2086
start_exporter live "$live_caps" $live_opts
case $kr in
1)
	if [ -z "$PORT" ]; then
		wait_exit 5; fail "live-bytes.conf under kptr_restrict=1: vmapstat did not serve (exit $RC): $(cat "$ERR")"
	else
		if full_scrape_ok live && grep -qE '^vmapscope_live_bytes\{caller="[^"]+",api="[a-z_]+",granule="4K"\} [1-9]' "$tmp/live.prom"; then
			pass "live-bytes.conf under kptr_restrict=1, exactly $(echo $live_caps): full scrape with vmapscope_live_bytes"
		else
			fail "live-bytes.conf under kptr_restrict=1: no vmapscope_live_bytes in the scrape"
		fi
		stop_exporter
	fi
	for c in $(echo "$live_caps" | grep -vE '^(bpf|perfmon)$'); do
		start_exporter "live-no-$c" "$(echo "$live_caps" | grep -vx "$c")" $live_opts
		case $c in
		dac_read_search) want='--live-bytes: cannot open /proc/vmallocinfo: Permission denied' ;;
		syslog) want='--live-bytes: .*addresses are printed as zeros' ;;
		*) want='no expectation' ;;
		esac
		if [ -n "$PORT" ]; then
			stop_exporter; fail "--live-bytes without CAP_${c^^}: vmapstat served anyway"
		else
			wait_exit 10
			[ "$RC" = 1 ] && tail -n1 "$ERR" | grep -q -- "$want" &&
				pass "--live-bytes without CAP_${c^^}: exit 1, last line: $(tail -n1 "$ERR")" ||
				fail "--live-bytes without CAP_${c^^}: want exit 1 and '$want', got exit $RC: $(tail -n1 "$ERR")"
		fi
	done
	;;
*)
	# what the unit with the drop-in does on such a host: one line, exit 1
	if [ -n "$PORT" ]; then
		stop_exporter; fail "--live-bytes under kptr_restrict=$kr: vmapstat served anyway"
	else
		wait_exit 10
		case $kr in 0) want='addresses are hashed: kernel.kptr_restrict is 0' ;; *) want='addresses are printed as zeros' ;; esac
		[ "$RC" = 1 ] && tail -n1 "$ERR" | grep -q -- "--live-bytes: .*$want" &&
			pass "--live-bytes under kptr_restrict=$kr: exit 1, last line: $(tail -n1 "$ERR") (DEPLOY_TEST_KPTR_RESTRICT=1 checks the drop-in's set under 1)" ||
			fail "--live-bytes under kptr_restrict=$kr: want exit 1 and '$want', got exit $RC: $(cat "$ERR")"
	fi
	;;
esac
if [ -n "$kr_saved" ]; then echo "$kr_saved" >/proc/sys/kernel/kptr_restrict; kr_saved=; fi

# ---- 4. the sandbox, traced --------------------------------------------------
# with basic auth from a web configuration file (--web.config.file), as a
# fleet exposing the exporter would run it: the password check is traced too
password=vmapscope-test
hash=$(python3 -W ignore -c 'import crypt, sys; print(crypt.crypt(sys.argv[1], crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1 << 10)))' "$password")
[[ $hash == '$2b$'* ]] || fail "python3 crypt made no bcrypt hash: '$hash'"
printf 'basic_auth_users:\n  prometheus: %s\n' "$hash" >"$tmp/web.yml"
chmod 644 "$tmp/web.yml"
trace=$tmp/strace.txt
WRAP=(strace -f -qq -o "$trace")
start_exporter traced "$unit_caps" --web.config.file "$tmp/web.yml"
WRAP=()
strace_pid=$PID
PID=$(pgrep -P "$strace_pid" | head -n1)
if [ -z "$PORT" ] || [ -z "$PID" ]; then
	kill "$strace_pid" 2>/dev/null; wait "$strace_pid" 2>/dev/null
	fail "traced run did not serve: $(cat "$ERR")"
else
	noauth=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
	CURL_AUTH=(-u "prometheus:$password")
	code=$(scrape traced)
	curl -s "${CURL_AUTH[@]}" -o /dev/null -I "http://127.0.0.1:$PORT/metrics"
	curl -s "${CURL_AUTH[@]}" -o /dev/null "http://127.0.0.1:$PORT/nothing"
	CURL_AUTH=()
	hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$PID/status")
	threads=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$PID/status")
	maps=0
	for fd in /proc/$PID/fd/*; do
		case $(readlink "$fd") in anon_inode:bpf-map|anon_inode:bpf-prog)
			maps=$((maps + $(sed -n 's/^memlock:[[:space:]]*//p' "/proc/$PID/fdinfo/${fd##*/}")))
		esac
	done
	kill -TERM "$PID"
	wait "$strace_pid" 2>/dev/null
	[ "$noauth" = 401 ] && [ "$code" = 200 ] && pass "traced run with basic auth: 401 without the password, 200 with it" ||
		fail "traced run with basic auth: GET /metrics answered $noauth without the password, $code with it"

	# syscalls from the exec of vmapstat on (systemd installs the filter
	# right before that exec)
	sed -n "\|execve(\"$bin\"|,\$p" "$trace" >"$tmp/after-exec.txt"
	sed -E 's/^[0-9]+ +//; s/^<\.\.\. ([a-z0-9_]+) resumed>.*/\1(/' "$tmp/after-exec.txt" |
		grep -oE '^[a-z_0-9]+\(' | tr -d '(' | sort -u >"$tmp/used.txt"
	expand_group() {
		systemd-analyze syscall-filter "$1" | awk 'NR > 1 && /^ +[@a-z_0-9]/ { print $1 }' |
			while read -r x; do case $x in @*) expand_group "$x" ;; *) echo "$x" ;; esac; done
	}
	: >"$tmp/allowed.txt"; : >"$tmp/denied.txt"
	while read -r line; do
		list=$tmp/allowed.txt
		case $line in "~"*) list=$tmp/denied.txt; line=${line#\~} ;; esac
		for x in $line; do case $x in @*) expand_group "$x" ;; *) echo "$x" ;; esac; done >>"$list"
	done < <(sed -n 's/^SystemCallFilter=//p' "$unit")
	sort -u "$tmp/allowed.txt" | comm -23 - <(sort -u "$tmp/denied.txt") >"$tmp/filter.txt"
	outside=$(comm -23 "$tmp/used.txt" "$tmp/filter.txt" | tr '\n' ' ')
	[ -s "$tmp/used.txt" ] && [ -z "$outside" ] &&
		pass "SystemCallFilter= allows all $(wc -l <"$tmp/used.txt") system calls vmapstat made (start, scrapes with basic auth, SIGTERM)" ||
		fail "system calls outside the unit's SystemCallFilter=: ${outside:-none traced}"

	families=$(grep -oE 'socket\((AF_[A-Z0-9]+)' "$tmp/after-exec.txt" | sed 's/socket(//' | sort -u | tr '\n' ' ')
	allowed_fam=" $(sed -n 's/^RestrictAddressFamilies=//p' "$unit") "
	bad=; for f in $families; do case $allowed_fam in *" $f "*) ;; *) bad="$bad $f" ;; esac; done
	[ -n "$families" ] && [ -z "$bad" ] && pass "sockets: $families(RestrictAddressFamilies=$(echo $allowed_fam))" ||
		fail "sockets of families outside RestrictAddressFamilies=:${bad:- no socket traced}"

	wx=$(grep -E '(mmap|mprotect)\(.*PROT_WRITE\|PROT_EXEC|(mmap|mprotect)\(.*PROT_EXEC\|PROT_WRITE' "$tmp/after-exec.txt" | head -n1)
	[ -z "$wx" ] && pass "no writable and executable mapping (MemoryDenyWriteExecute=yes)" ||
		fail "writable+executable mapping: $wx"

	writes=$(grep -E 'open(at)?\(.*O_(WRONLY|RDWR|CREAT).* = [0-9]+$' "$tmp/after-exec.txt" | head -n3)
	[ -z "$writes" ] && pass "no file opened for writing (ProtectSystem=strict)" || fail "files opened for writing: $writes"

	tracefs=$(grep -E '"/sys/kernel/(tracing|debug)[/"].* = [0-9]+$' "$tmp/after-exec.txt" | head -n2)
	[ -z "$tracefs" ] && pass "neither tracefs nor debugfs used" || fail "tracefs or debugfs used: $tracefs"

	hidden=$(sed -n 's/^InaccessiblePaths=//p' "$unit" | tr ' ' '\n' | sed 's/^-//')
	grep -qx ProtectHome=yes "$unit" && hidden="$hidden /home /root /run/user"
	seen=
	for p in $hidden; do grep -qF "\"$p" "$tmp/after-exec.txt" && seen="$seen $p"; done
	[ -z "$seen" ] && pass "nothing under the paths the unit hides ($(echo $hidden))" || fail "vmapstat touched hidden paths:$seen"

	high=$(sed -n 's/^MemoryHigh=\([0-9]*\)M$/\1/p' "$unit")
	tasks=$(sed -n 's/^TasksMax=//p' "$unit")
	mem_kb=$((hwm + maps / 1024))
	[ -n "$high" ] && [ "$mem_kb" -lt $((high * 1024)) ] &&
		pass "memory: peak resident ${hwm} kB + BPF maps and programs $((maps / 1024)) kB < MemoryHigh=${high}M" ||
		fail "memory: peak resident ${hwm} kB + BPF $((maps / 1024)) kB, MemoryHigh=${high:-unset}M"
	[ -n "$tasks" ] && [ "$threads" -lt "$tasks" ] && pass "threads: $threads < TasksMax=$tasks" ||
		fail "threads: $threads, TasksMax=${tasks:-unset}"
fi

finish
