#!/usr/bin/env bash
# scripts/kernel-series export, against a small repo of its own laid out
# like the lab's kernel repo (tag "base" with a Makefile and the Debian
# source commit, a dev worktree and its -aux twin), so that no kernel
# tree is needed:
#   - by default the patches and both cover letters carry the placeholder
#     author and Signed-off-by, and the letters say it must be replaced;
#   - --signoff "Name <addr>" (and --signoff-git, from git config) puts
#     that person in every From: and Signed-off-by, drops the note, and
#     changes nothing else; the dev branch keeps its commits;
#   - --out DIR leaves kernel-patches/ alone;
#   - a malformed or placeholder identity, a commit by someone else, and
#     --signoff outside export fail with a message and no files written.
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"

TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
KS=$TOPDIR/scripts/kernel-series
PH="vmapscope developers <dev@vmapscope.invalid>"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need git awk

export VMAPSCOPE_CACHE=$tmp/cache GIT_CONFIG_GLOBAL=$tmp/gitconfig GIT_CONFIG_NOSYSTEM=1
repo=$VMAPSCOPE_CACHE/linux/repo dev=$tmp/dev
g() { git -C "$repo" "$@"; }
commit_as() { # DIR IDENT SUBJECT: one commit adding a file, signed by IDENT
	local dir=$1 who=$2 subject=$3 name email
	name=${who% <*} email=${who##*<}
	email=${email%>}
	echo "$subject" >>"$dir/file.c"
	git -C "$dir" add file.c
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name \
		GIT_COMMITTER_EMAIL=$email GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" \
		GIT_COMMITTER_DATE="2026-12-01T00:00:00Z" \
		git -C "$dir" commit -q -m "$subject" -m "Why: a test." -m "Signed-off-by: $who"
}

mkdir -p "$repo"
git init -q "$repo"
# A made-up point release: export reads whatever the base's Makefile says.
sub=7
printf 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = %s\n' "$sub" >"$repo/Makefile"
g add Makefile
GIT_AUTHOR_NAME=lab GIT_AUTHOR_EMAIL=lab@example.invalid GIT_COMMITTER_NAME=lab \
	GIT_COMMITTER_EMAIL=lab@example.invalid \
	g commit -q -m "Linux 6.12.$sub (Debian linux-source-6.12 6.12.$sub-1)"
g tag base
g worktree add -q -b v "$dev" base
g worktree add -q -b v-aux "$dev-aux" base
commit_as "$dev" "$PH" "mm/vmalloc: first"
commit_as "$dev" "$PH" "mm/vmalloc: second"
commit_as "$dev-aux" "$PH" "perf: aux"
head_before=$(git -C "$dev" rev-parse HEAD)

out=$tmp/default
"$KS" export --dir "$dev" --out "$out" >/dev/null 2>&1 || die "export --out failed"
[ -f "$out/linux-6.12/0001-mm-vmalloc-first.patch" ] && [ -f "$out/perf-aux-prefer-large/0001-perf-aux.patch" ] &&
	pass "--out DIR: both series written under DIR" || fail "--out DIR: $(ls -R "$out")"
grep -q "^Base: the stable tag v6\\.12\\.$sub" "$out/linux-6.12/0000-cover-letter.patch" &&
	pass "the cover letter names the base's own point release" ||
	fail "base tag: $(grep -m1 '^Base:' "$out/linux-6.12/0000-cover-letter.patch")"
n=$(cat "$out"/*/*.patch | grep -c "^From: $PH\$" || true)
s=$(cat "$out"/*/*.patch | grep -c "^Signed-off-by: $PH\$" || true)
[ "$n" = 5 ] && [ "$s" = 5 ] && pass "default: placeholder From: and Signed-off-by in 3 patches and 2 letters" ||
	fail "default: $n From:, $s Signed-off-by of the placeholder (want 5, 5)"
for c in "$out"/*/0000-cover-letter.patch; do
	grep -q "^\"$PH\", are a placeholder,\$" "$c" && grep -q 'must replace them with their own sign-off' "$c" &&
		pass "default: $(basename "$(dirname "$c")") letter says the placeholder must be replaced" ||
		fail "default: no placeholder note in $c"
	! grep -q '@SIGNOFF_NOTE@' "$c" && pass "default: no @SIGNOFF_NOTE@ left" || fail "@SIGNOFF_NOTE@ left in $c"
done

who="Jane Poster <jane.poster@example.org>"
signed=$tmp/signed
"$KS" export --dir "$dev" --out "$signed" --signoff "$who" >/dev/null 2>&1 || die "export --signoff failed"
n=$(cat "$signed"/*/*.patch | grep -c "^From: $who\$" || true)
s=$(cat "$signed"/*/*.patch | grep -c "^Signed-off-by: $who\$" || true)
[ "$n" = 5 ] && [ "$s" = 5 ] && pass "--signoff: From: and Signed-off-by of $who in every patch and letter" ||
	fail "--signoff: $n From:, $s Signed-off-by (want 5, 5)"
! grep -rq 'vmapscope.invalid\|must replace them with their own sign-off' "$signed" &&
	pass "--signoff: no placeholder identity and no note left" ||
	fail "--signoff: $(grep -rn 'vmapscope.invalid\|must replace them' "$signed" | head -3)"
# Nothing else changes: the files differ only in those lines, the note and
# the cover letter's shortlog heading ("NAME (N):").
strip() { grep -Ev '^[^ ].* \([0-9]+\):$' "$1" | grep -v "^From: \|^Signed-off-by: \|^\"$PH\", are a placeholder,\$\|Developer's Certificate\|must replace them\|kernel-series export --signoff\|^The author and Signed-off-by of every patch" | cat -s; }
same=1
for f in "$out"/*/*.patch; do
	rel=${f#"$out"/}
	[ "$(strip "$f")" = "$(strip "$signed/$rel")" ] || { same=0; diff <(strip "$f") <(strip "$signed/$rel") | head -5 || true; }
done
[ $same = 1 ] && pass "--signoff: every file otherwise identical to the default export" ||
	fail "--signoff changed more than the sign-off"
[ "$(git -C "$dev" rev-parse HEAD)" = "$head_before" ] && git -C "$dev" diff --quiet HEAD &&
	[ "$(git -C "$dev" log -1 --format='%an <%ae>')" = "$PH" ] &&
	pass "--signoff: the dev branch keeps its commits" || fail "--signoff moved or changed the dev branch"

git config --global user.name "Git Poster"
git config --global user.email "git.poster@example.org"
"$KS" export --dir "$dev" --out "$tmp/git" --signoff-git >/dev/null 2>&1 || die "export --signoff-git failed"
s=$(cat "$tmp"/git/*/*.patch | grep -c "^Signed-off-by: Git Poster <git.poster@example.org>\$" || true)
[ "$s" = 5 ] && pass "--signoff-git: the sign-off of git config user.name / user.email" ||
	fail "--signoff-git: $s sign-offs (want 5)"

# bad IDENT: exit status, one clear message, nothing written.
bad() { # MSG ARGS...: export with ARGS must fail and write nothing
	local msg=$1 rc=0 o=$tmp/bad.$RANDOM
	shift
	"$KS" export --dir "$dev" --out "$o" "$@" >"$tmp/bad.out" 2>&1 || rc=$?
	[ $rc != 0 ] && [ ! -e "$o" ] && grep -q '^kernel-series: ' "$tmp/bad.out" &&
		pass "$msg: exit $rc, '$(head -n 1 "$tmp/bad.out")'" ||
		fail "$msg: exit $rc, output '$(cat "$tmp/bad.out")', wrote $(ls "$o" 2>/dev/null | wc -l) files"
}
bad "--signoff without an address" --signoff "Jane Poster"
bad "--signoff with a bare address" --signoff "<jane@example.org>"
bad "--signoff with two addresses" --signoff "Jane <a@b.c> <d@e.f>"
bad "--signoff with the placeholder" --signoff "$PH"
git config --global --unset user.email
bad "--signoff-git without user.email" --signoff-git
rc=0
"$KS" checkpatch --signoff "$who" >"$tmp/bad.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "export's options" "$tmp/bad.out" && pass "--signoff outside export: usage error (exit 2)" ||
	fail "--signoff outside export: exit $rc, '$(cat "$tmp/bad.out")'"
commit_as "$dev" "Some One <some.one@example.org>" "mm/vmalloc: third, by someone else"
bad "--signoff over a commit whose author is not the placeholder" --signoff "$who"
finish
