#!/usr/bin/env bash
# Every vmapstat / vmaptop command line the documentation gives, run on
# this host, so that a documented command cannot rot.
#
# Which lines are commands (no marker needed in the documents):
#   - README.md, docs/*.md: in a fenced code block, a line that starts
#     with a prompt ("# " or "$ ") and then vmapstat or vmaptop; in a
#     block tagged sh/bash, any line that starts with vmapstat or vmaptop
#     (synopses and sample output are in untagged blocks, without prompt);
#   - man/*.8: the EXAMPLES section's ".B vmapstat ..." / ".B vmaptop ..."
#     lines.
# Each runs as root in a terminal (a private tmux server: the full screen
# needs one), in a scratch directory, ended with Ctrl-C after 3 s if it has
# not ended by itself (vmapstat then reports, vmaptop quits, both with
# status 0), and must exit 0.  --snapshot lines run with
# kernel.kptr_restrict=1 (restored after each).  Lines that cannot run
# here are skipped, and the test says which and why: placeholders
# (CMD, foo.ko, <release>), the lab guests' modules and paths, a fixed
# port already taken, a file outside the scratch directory.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
V=${VMAPSTAT:-$TOPDIR/out/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}
BIN=$(cd "$(dirname "$V")" && pwd)
tmp=$(mktemp -d)
sock=doc-commands-$$
tm() { tmux -L "$sock" -f /dev/null "$@"; }
kr=/proc/sys/kernel/kptr_restrict
kr_saved=$(cat "$kr")
cleanup() { echo "$kr_saved" >"$kr"; tm kill-server 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

[ -x "$BIN/vmapstat" ] && [ -x "$BIN/vmaptop" ] || die "tools not built in $BIN"
if [ "$(id -u)" != 0 ]; then
	skip "the documented commands need root (BPF)"; finish
fi
command -v tmux >/dev/null || die "tmux not installed (scripts/install-deps)"

# file:line <TAB> command <TAB> why it is skipped ("" = run it)
python3 - "$TOPDIR" >"$tmp/commands" <<'PY'
import glob, os, re, socket, sys

top = sys.argv[1]
TOOL = r"(?:vmapstat|vmaptop)\b(?!:)"

def from_markdown(path):
    fence = None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        m = re.match(r"\s*```(\S*)", line)
        if m:
            fence = None if fence is not None else m.group(1)
            continue
        if fence is None:
            continue
        m = re.match(r"\s*[#$] (" + TOOL + r".*)", line)
        if not m and fence in ("sh", "bash"):
            m = re.match(r"\s*(" + TOOL + r".*)", line)
        if m:
            yield n, m.group(1)

def from_man(path):
    section = ""
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith(".SH "):
            section = line[4:].strip()
        m = re.match(r"\.B (" + TOOL + r".*)", line)
        if section == "EXAMPLES" and m:
            yield n, m.group(1).replace("\\-", "-")

def port_taken(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False

def why_skip(cmd):
    # the comment is the document's, not part of the command
    cmd = re.sub(r"\s+#\s.*$", "", cmd)
    if re.search(r"/opt/vmapscope|\bkload\b|\bvswl_|vmaptop_load", cmd):
        return cmd, "needs the lab guest (its test modules and paths)"
    if re.search(r"<[^>]*>|\bfoo\.ko\b|…|\[[A-Z]", cmd) or \
       any(re.fullmatch(r"[A-Z][A-Z_]{2,}(\.json)?", t) for t in cmd.split()):
        return cmd, "a placeholder, not a command"
    m = re.search(r"--textfile[ =](\S+)", cmd)
    if m and os.path.isabs(m.group(1)):
        return cmd, f"writes {m.group(1)}: node_exporter's directory is not a test's to touch"
    m = re.search(r"--listen[ =](?:\S*:)?(\d+)\b", cmd)
    if m and port_taken(int(m.group(1))):
        return cmd, f"port {m.group(1)} is in use on this host"
    return cmd, ""

files = [os.path.join(top, "README.md")] + sorted(glob.glob(os.path.join(top, "docs", "*.md")))
for path in files:
    for n, cmd in from_markdown(path):
        cmd, why = why_skip(cmd)
        print(f"{os.path.relpath(path, top)}:{n}\t{cmd}\t{why}")
for path in sorted(glob.glob(os.path.join(top, "man", "*.8"))):
    for n, cmd in from_man(path):
        cmd, why = why_skip(cmd)
        print(f"{os.path.relpath(path, top)}:{n}\t{cmd}\t{why}")
PY

# run COMMAND: in the terminal; Ctrl-C after 3 s if it has not ended (the
# terminal's SIGINT reaches the whole pipeline, as a user's would); sets rc
run() {
	local cmd=$1 i
	rm -f "$tmp/rc"
	mkdir -p "$tmp/cwd"
	printf '%s\n' "$cmd" >"$tmp/cmd"
	# the tools as built, first on PATH; the document's line as it is.  The
	# wrapper ignores the Ctrl-C (the tools set their own handlers).
	tm new-session -d -s dc -x 200 -y 50 -c "$tmp/cwd" \
		"trap '' INT; PATH='$BIN':\$PATH TERM=tmux-256color \
		 bash -o pipefail '$tmp/cmd' 2>'$tmp/err'; echo \$? >'$tmp/rc'; sleep 60"
	tm set-option -s exit-empty off
	for ((i = 0; i < 30; i++)); do [ -s "$tmp/rc" ] && break; sleep 0.1; done
	[ -s "$tmp/rc" ] || tm send-keys -t dc C-c
	for ((i = 0; i < 150; i++)); do [ -s "$tmp/rc" ] && break; sleep 0.1; done
	rc=$(cat "$tmp/rc" 2>/dev/null || echo "none (still running 15 s after Ctrl-C)")
	tm capture-pane -p -t dc >"$tmp/screen" 2>/dev/null || true
	tm kill-session -t dc 2>/dev/null || true
}

nrun=0; nskip=0
skipped=""
while IFS=$'\t' read -r where cmd why; do
	if [ -n "$why" ]; then
		nskip=$((nskip + 1))
		skipped+="  $where: $cmd"$'\n'"      skipped: $why"$'\n'
		continue
	fi
	case "$cmd" in
	*--snapshot*)
		# the setting is the whole host's: another test may restore its
		# own value meanwhile; then the run says nothing about the line
		for try in 1 2 3; do
			echo 1 >"$kr"
			run "$cmd"
			[ "$rc" = 0 ] || [ "$(cat "$kr")" = 1 ] && break
			echo "note: kptr_restrict changed during '$cmd' (another process): again"
		done
		echo "$kr_saved" >"$kr" ;;
	*)
		run "$cmd" ;;
	esac
	[ "$rc" = 0 ] || die "$where: '$cmd' exited $rc: $(cat "$tmp/err")
---- screen:
$(cat "$tmp/screen")"
	nrun=$((nrun + 1))
	pass "$where: $cmd"
done <"$tmp/commands"
[ "$nrun" -gt 0 ] || die "no documented command found"
if [ -n "$skipped" ]; then
	echo "skipped ($nskip):"
	printf '%s' "$skipped"
fi
pass "documented commands: $nrun ran with exit 0, $nskip skipped"
finish
