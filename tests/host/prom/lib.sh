# Shared helpers of the Prometheus integration tests (sourced).
#
# Everything listens on and connects to 127.0.0.1 only.  Each test runs
# in its own temporary directory and stops exactly the processes it
# started (by PID) when it exits, however it exits.

set -euo pipefail

: "${VMAPSTAT:?set VMAPSTAT to the vmapstat binary}"
: "${TOPDIR:?set TOPDIR to the repository root}"
# pass, die, need, finish: the harness every test script shares
. "$TOPDIR/tests/lib/harness.sh"
PROM_TESTS_DIR="$TOPDIR/tests/host/prom"

T=$(mktemp -d /tmp/vmapscope-prom.XXXXXX)
STARTED_PIDS=()

cleanup() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
	done
	for pid in "${STARTED_PIDS[@]}"; do
		# give it 5 s to finish its last interval, then insist
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap cleanup EXIT
# a command failing outside "|| die" still says where
trap 'echo "FAIL: $(basename "$0") line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR

# A TCP port on 127.0.0.1 that was free a moment ago.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# wait_for SECONDS CMD...: retry CMD every 0.2 s until it succeeds.
wait_for() {
	local limit=$1; shift
	local end=$((SECONDS + limit))
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}

# Start vmapstat in the background; sets VS_PID, and VS_URL when it
# listens (read from its "serving http[s]://..." line).  Args: vmapstat
# args.  VMAPSTAT_BIN, if set, runs instead of $VMAPSTAT.
start_vmapstat() {
	"${VMAPSTAT_BIN:-$VMAPSTAT}" "$@" >"$T/vmapstat.out" 2>"$T/vmapstat.err" &
	VS_PID=$!
	STARTED_PIDS+=("$VS_PID")
	if printf '%s\n' "$@" | grep -q -e '^--listen' -e '^--web.listen-address'; then
		wait_for 20 grep -q 'serving https\?://' "$T/vmapstat.err" ||
			die "vmapstat did not start listening: $(cat "$T/vmapstat.err")"
		VS_URL=$(grep -o 'https\?://[^ ]*/metrics' "$T/vmapstat.err" | head -1)
	fi
}

# Start a Prometheus server on 127.0.0.1 that scrapes TARGET (host:port,
# /metrics) every second as job JOB; sets PROM to its URL once it is ready.
start_prometheus() {	# JOB TARGET
	start_prometheus_jobs "  - job_name: $1
    static_configs:
      - targets: ['$2']"
}

# The same with the scrape_configs entries given as YAML text.
# PROM_NAME: its files' name in $T (default prometheus: a second server
# beside the first needs another).
start_prometheus_jobs() {	# JOBS_YAML
	local pport n=${PROM_NAME:-prometheus}
	pport=$(free_port)
	cat >"$T/$n.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
$1
EOC
	promtool check config "$T/$n.yml" >/dev/null || die "bad prometheus config"
	# PROM_ARGS: more flags (--enable-feature=native-histograms)
	prometheus --config.file="$T/$n.yml" --storage.tsdb.path="$T/$n-data" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn ${PROM_ARGS:-} \
		>"$T/$n.log" 2>&1 &
	STARTED_PIDS+=($!)
	PROM="http://127.0.0.1:$pport"
	wait_for 60 curl -sf "$PROM/-/ready" || die "prometheus not ready: $(tail -5 "$T/$n.log")"
}

# Stop vmapstat with SIGINT (as Ctrl-C) and return its exit status.
stop_vmapstat() {
	kill -INT "$VS_PID"
	local rc=0
	wait "$VS_PID" || rc=$?
	return $rc
}

# Some vmalloc activity: every fork gets a vmalloc'ed kernel stack.
workload() {
	local i
	for i in $(seq "${1:-50}"); do /bin/true; done
}
