#!/usr/bin/env bash
# vmaptop's full-screen mode driven through tmux: keys sort, filter, pause,
# show help and quit (asserted on the captured screen); resizing the
# terminal, down to one too small for the table, does not kill it; --no-clear
# leaves the last frame on the terminal; batch mode clears between frames on
# a terminal unless --no-clear.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
# next to the vmapstat under test (make check-host-tools passes VMAPSTAT, with OUTDIR)
T=${VMAPTOP:-$(dirname "${VMAPSTAT:-$TOPDIR/out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}")/vmaptop}
tmp=$(mktemp -d)
sock=vmaptop-test-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
on_fail() { echo "---- screen:"; tm capture-pane -p -t vt 2>/dev/null || true; }

[ -x "$T" ] || die "$T not built"
command -v tmux >/dev/null || die "tmux not installed (scripts/install-deps)"
if [ "$(id -u)" != 0 ]; then
	skip "vmaptop tmux test needs root (BPF)"; finish
fi

screen() { tm capture-pane -p -t vt; }
# wait_for REGEX [SECONDS]: until the screen matches
wait_for() {
	local re=$1 t=${2:-15} i
	for ((i = 0; i < t * 10; i++)); do
		screen >"$tmp/screen" 2>/dev/null || true
		grep -qE -- "$re" "$tmp/screen" && return 0
		sleep 0.1
	done
	die "screen never matched /$re/"
}
alive() { [ ! -e "$tmp/rc" ] || die "vmaptop exited (rc $(cat "$tmp/rc")) after $1"; }
# rows: the lines under the column header (first field = caller)
rows() { awk '/^CALLER /{f=1; next} f && NF' "$tmp/screen"; }
# settled_names: the rows' callers once two captures 0.2 s apart agree.  A
# capture can land while vmaptop is still redrawing a frame (the status
# line already new, some rows still from the frame before).
settled_names() {
	local prev=x cur i
	for ((i = 0; i < 50; i++)); do
		screen >"$tmp/screen" 2>/dev/null || true
		cur=$(rows | awk '{print $1}')
		[ -n "$cur" ] && [ "$cur" = "$prev" ] && break
		prev=$cur
		sleep 0.2
	done
	printf '%s\n' "$cur"
}

# start COLS LINES "OPTIONS" [ENV...]
start() {
	rm -f "$tmp/rc"
	tm new-session -d -s vt -x "$1" -y "$2" \
		"env ${4:-} TERM=tmux-256color $T $3; echo \$? >$tmp/rc; sleep 600"
	# The server outlives each session: with the default, killing the
	# last session ends it, and the next start can reach it while it is
	# going away ("server exited unexpectedly").
	tm set-option -s exit-empty off
}

# --all: callers with live areas make rows even on a quiet kernel.
start 160 40 "--all -d 0.5"
wait_for '^CALLER +API +MAPS/s +BYTES/s'
grep -qE '^vmaptop [0-9]{2}:[0-9]{2}:[0-9]{2}  interval' "$tmp/screen" || die "no summary line"
grep -q 'sort bytes' "$tmp/screen" || die "default sort not shown"
[ "$(rows | wc -l)" -ge 3 ] || die "fewer than 3 rows with -a"
pass "full screen up: $(rows | wc -l) rows"

# c: sort by caller, ascending; r: reversed.  Compare first fields in C order.
tm send-keys -t vt c
wait_for 'sort caller$|sort caller  '
settled_names >"$tmp/names"
LC_ALL=C sort -c "$tmp/names" || die "rows not sorted by caller after 'c'"
tm send-keys -t vt r
wait_for 'sort caller \(reversed\)'
settled_names >"$tmp/names"
LC_ALL=C sort -c -r "$tmp/names" || die "rows not reverse-sorted after 'r'"
pass "keys c and r sort by caller, both ways"

# l: sort by p99; the header underlines it, the status line names it.
tm send-keys -t vt r l
wait_for 'sort p99'
pass "key l sorts by p99"

# /: filter prompt; rows then all match the filter (caller or API).
tm send-keys -t vt / v m a l l o c Enter
wait_for "filter 'vmalloc'"
rows | grep -v vmalloc && die "a row without 'vmalloc' survived the filter"
pass "filter 'vmalloc': $(rows | wc -l) rows"
tm send-keys -t vt / C-u Enter
sleep 0.3
wait_for 'sort p99'
screen | grep -q "filter '" && die "empty filter did not clear"

# p: pause freezes the screen (the clock stops); p again resumes it.
tm send-keys -t vt p
wait_for 'PAUSED'
s1=$(screen | head -n 1)
sleep 1.6
s2=$(screen | head -n 1)
[ "$s1" = "$s2" ] || die "screen changed while paused: '$s1' vs '$s2'"
tm send-keys -t vt p
sleep 1.6
wait_for '^vmaptop'
[ "$(screen | head -n 1 | awk '{print $2}')" != "$(echo "$s1" | awk '{print $2}')" ] ||
	die "clock did not move after resume"
screen | grep -q PAUSED && die "still PAUSED after the second p"
pass "p pauses and resumes"

# h: help; any key returns.
tm send-keys -t vt h
wait_for '^vmaptop keys'
tm send-keys -t vt x
wait_for '^CALLER '
pass "help screen"

# Resize: narrower (columns drop, nothing wraps), too small, then back.
tm resize-window -t vt -x 60 -y 15
wait_for '^CALLER'
awk 'length($0) > 60 {exit 1}' "$tmp/screen" || die "a line is wider than 60 columns"
alive "resize to 60x15"
tm resize-window -t vt -x 24 -y 4
wait_for 'too small'
alive "resize to 24x4"
tm resize-window -t vt -x 10 -y 2
sleep 0.5
alive "resize to 10x2"
tm resize-window -t vt -x 130 -y 30
wait_for '^CALLER +API +MAPS/s'
alive "resize back to 130x30"
pass "resizes (60x15, 24x4, 10x2, 130x30) survived"

# q quits with status 0.
tm send-keys -t vt q
for i in $(seq 50); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || die "q: exit status '$(cat "$tmp/rc" 2>/dev/null)'"
pass "q quits, exit 0"
tm kill-session -t vt

# Starting in a terminal that is already too small works too, and q quits.
start 20 3 "-d 0.3"
wait_for '^too small: 20x3'
sleep 0.5
alive "start at 20x3"
tm send-keys -t vt q
for i in $(seq 50); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || die "q in a tiny terminal: exit '$(cat "$tmp/rc" 2>/dev/null)'"
tm kill-session -t vt
pass "too-small terminal from the start"

# --no-clear -n 2: stops by itself and leaves the last frame as text.
start 140 30 "--no-clear -n 2 -d 0.3"
for i in $(seq 100); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || die "--no-clear -n 2: exit '$(cat "$tmp/rc" 2>/dev/null)'"
wait_for '^CALLER +API +MAPS/s'
pass "--no-clear -n 2 leaves the last frame on the terminal"
tm kill-session -t vt

# In a UTF-8 locale the n/a lines' em dash is one character on the screen,
# not ncurses' escape of its three bytes (~@~T): vmaptop sets the locale
# before ncurses starts.  Only a kernel without the series'
# tracepoint vmap_mapped has such a line.
if bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
	grep -q "TYPEDEF 'btf_trace_vmap_mapped'"; then
	echo "skip: em dash check (this kernel has vmap_mapped: no 'kernel lacks' line)"
else
	start 160 30 "-d 0.3" "LC_ALL=C.UTF-8"
	wait_for '^n/a granule: kernel lacks'
	grep -q '^n/a granule: kernel lacks vmalloc:vmap_mapped — apply kernel-patches' \
		"$tmp/screen" || die "the em dash is not shown as one: $(grep '^n/a granule' "$tmp/screen")"
	grep -q '~@~T' "$tmp/screen" && die "ncurses escaped the em dash's bytes"
	tm send-keys -t vt q
	for i in $(seq 50); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
	tm kill-session -t vt
	pass "LC_ALL=C.UTF-8: the em dash shows as one character"
fi

# Batch mode on a terminal clears between frames; --no-clear keeps them all.
start 140 60 "-b -n 2 -d 0.3"
for i in $(seq 100); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
[ "$(cat "$tmp/rc" 2>/dev/null)" = 0 ] || die "-b -n 2: exit '$(cat "$tmp/rc" 2>/dev/null)'"
screen >"$tmp/screen"
[ "$(grep -c '^vmaptop [0-9]' "$tmp/screen")" = 1 ] || die "-b on a terminal: not exactly one frame left"
tm kill-session -t vt
start 140 60 "-b --no-clear -n 2 -d 0.3"
for i in $(seq 100); do [ -e "$tmp/rc" ] && break; sleep 0.1; done
screen >"$tmp/screen"
[ "$(grep -c '^vmaptop [0-9]' "$tmp/screen")" = 2 ] || die "-b --no-clear: frames were cleared"
pass "-b clears between frames on a terminal, -b --no-clear does not"
finish
