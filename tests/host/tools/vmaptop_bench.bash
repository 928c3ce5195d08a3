#!/usr/bin/env bash
# vmaptop CPU cost at a 1 s refresh (docs/benchmarks.md, "vmaptop"):
# steady-state user+system CPU of the vmaptop process over SECONDS
# (default 60) after a 5 s warm-up, in batch mode and full screen (tmux),
# with and without the /proc/vmallocinfo read, and with every live caller
# listed (-a).  Not part of "make check": run it with "make bench-vmaptop".
set -euo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
T=${VMAPTOP:-$TOPDIR/out/$(uname -m | sed s/aarch64/arm64/)/bin/vmaptop}
SECS=${1:-60}
[ -x "$T" ] || { echo "$T not built" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (BPF)" >&2; exit 1; }
sock=vmaptop-bench-$$
trap 'tmux -L $sock kill-server 2>/dev/null || true' EXIT

# cpu_ns PID: time PID has spent on a CPU, in ns (/proc/PID/schedstat;
# finer than the 10 ms ticks of utime/stime in /proc/PID/stat)
cpu_ns() { awk '{print $1}' "/proc/$1/schedstat"; }

measure() {	# measure LABEL PID
	local label=$1 pid=$2 t0 t1 c0 c1
	sleep 5
	c0=$(cpu_ns "$pid"); t0=$(date +%s.%N)
	sleep "$SECS"
	c1=$(cpu_ns "$pid"); t1=$(date +%s.%N)
	awk -v l="$label" -v c=$((c1 - c0)) -v t0="$t0" -v t1="$t1" \
		'BEGIN { s = c / 1e9; w = t1 - t0;
			 printf "| %s | %.3f s | %.1f s | %.3f %% | %.2f ms |\n", l, s, w, 100 * s / w, 1000 * s / w }'
}

batch() {	# batch LABEL ARGS...
	local label=$1; shift
	"$T" -b -d 1 "$@" >/dev/null &
	local pid=$!
	measure "$label" $pid
	kill -INT $pid; wait $pid || true
}

screen() {	# screen LABEL ARGS...
	local label=$1; shift
	tmux -L $sock -f /dev/null new-session -d -s b -x 160 -y 50 "exec $T -d 1 $*"
	local pid
	pid=$(tmux -L $sock display -p -t b '#{pane_pid}')
	measure "$label" "$pid"
	tmux -L $sock kill-server
}

echo "vmaptop $(git -C "$TOPDIR" describe --always --dirty 2>/dev/null), kernel $(uname -r), $(nproc) CPUs,"
echo "$(grep -c . /proc/vmallocinfo) vmallocinfo lines; ${SECS} s per row after 5 s warm-up"
echo
echo "| mode (1 s refresh) | CPU time | wall | CPU | per refresh |"
echo "| --- | ---: | ---: | ---: | ---: |"
batch "batch (-b)"
batch "batch, no vmallocinfo (-b --no-live)" --no-live
batch "batch, every live caller (-b -a)" -a
screen "full screen (tmux, 160x50)"
screen "full screen, every live caller (-a)" -a
