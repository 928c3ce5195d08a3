#!/usr/bin/env bash
# The cross-build check's own test (scripts/lab cross-build): a patch that
# breaks one configuration fails it, naming the configuration and the
# object and quoting the compiler, while another configuration passes; the
# result is cached; --known-broken accepts the listed failure and fails
# when a listed object compiles; bad input, a configuration Kconfig cannot
# give and a build that stops before the objects get clear errors, and
# leave no result.
#
# The patch is made from mm/page_alloc.c of the tree under test (its last
# lines are the context), so no line a point release changes is written
# here.  It breaks the 8xx configuration only (#error under
# CONFIG_PPC_8xx); ppc64le compiles the same file.  Both are in make
# check's cross-builds, so their trees are warm when this runs.
set -uo pipefail
TOP=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
LAB=$TOP/scripts/lab
CACHE=${VMAPSCOPE_CACHE:-/var/cache/vmapscope}
BROKEN_CFG=ppc-8xx
GOOD_CFG=ppc64le
. "$TOP/tests/lib/harness.sh"
. "$TOP/tests/guest/lab/lib.sh"

# expect_in FILE PATTERN DESC: $tmp/FILE (out or err) has a line matching PATTERN.
expect_in() {
	if grep -qE -- "$2" "$tmp/$1"; then pass "$3"; else
		fail "$3: $1 lacks /$2/"; cat "$tmp/$1"; fi
}
expect_not_in() {
	if ! grep -qE -- "$2" "$tmp/$1"; then pass "$3"; else
		fail "$3: $1 has /$2/"; grep -E -- "$2" "$tmp/$1"; fi
}

# The lab's kernel git tree: the cross-builds before this test made it.
git -C "$CACHE/linux/repo" show base:mm/page_alloc.c >"$tmp/page_alloc.c.orig" ||
	{ fail "cannot read mm/page_alloc.c of the lab's kernel tree ($CACHE/linux/repo)"; exit 1; }
{
	cat "$tmp/page_alloc.c.orig"
	printf '\n#ifdef CONFIG_PPC_8xx\n#error "cross-build self-test: breaks 8xx only"\n#endif\n'
} >"$tmp/page_alloc.c.broken"
mkdir -p "$tmp/patches"
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: lab <lab@vmapscope.invalid>\nSubject: [PATCH] cross-build self-test: break 8xx\n\n---\n'
	printf 'diff --git a/mm/page_alloc.c b/mm/page_alloc.c\n'
	diff -u --label a/mm/page_alloc.c --label b/mm/page_alloc.c "$tmp/page_alloc.c.orig" "$tmp/page_alloc.c.broken"
} >"$tmp/patches/0001-break-8xx.patch"
echo 0001-break-8xx.patch >"$tmp/patches/series"
cross() { env VMAPSCOPE_PATCHDIR="$tmp/patches" "$LAB" cross-build "$@"; }

expect_rc 1 "a patch that breaks $BROKEN_CFG fails the cross-build" cross $GOOD_CFG $BROKEN_CFG
expect_in out "^FAIL $BROKEN_CFG \(powerpc mpc885_ads_defconfig\): mm/page_alloc\.o does not compile with the series; the stock tree compiles it" \
	"the failure names the configuration, the defconfig and the object, and clears the stock tree"
expect_in out '^    \| .*error: #error "cross-build self-test: breaks 8xx only"' "the compiler's error line is quoted"
expect_in out "^    log: $CACHE/out/cross-$BROKEN_CFG/" "the failure points at the build log"
expect_in out "^ok   $GOOD_CFG .*mm/vmalloc\.o mm/page_alloc\.o mm/percpu\.o" "$GOOD_CFG compiles the same patch"
expect_not_in out "^FAIL $GOOD_CFG" "no failure is reported for $GOOD_CFG"

expect_rc 1 "the same patch set again" cross $GOOD_CFG $BROKEN_CFG
expect_in out "^ok   $GOOD_CFG .*, cached\)" "the result comes from the cache"
expect_not_in err "compiling" "nothing is compiled for a cached result"
expect_in out "^FAIL $BROKEN_CFG .*mm/page_alloc\.o" "a cached failure is still a failure"

expect_rc 0 "a failure listed in --known-broken passes" cross --known-broken $BROKEN_CFG:mm/page_alloc.o $GOOD_CFG $BROKEN_CFG
expect_in out "^KNOWN BROKEN $BROKEN_CFG .*mm/page_alloc\.o" "the listed failure is printed as known broken"
expect_in out "KNOWN BROKEN: this passes only because --known-broken lists them" "the closing line says the pass depends on the list"
expect_rc 1 "an object listed in --known-broken that compiles fails" \
	cross --known-broken $BROKEN_CFG:mm/page_alloc.o --known-broken $GOOD_CFG:mm/page_alloc.o $GOOD_CFG $BROKEN_CFG
expect_in out "^FAIL $GOOD_CFG .*mm/page_alloc\.o is listed as known broken but compiles: take it off the list" \
	"the stale entry is named"
expect_rc 1 "a listed object that is not compiled fails" cross --known-broken $GOOD_CFG:mm/nosuch.o $GOOD_CFG
expect_in out "mm/nosuch\.o is listed as known broken but is not compiled here" "the unknown object is named"

# A file the configuration does not build (mm/memory-failure.c: 8xx has
# no MEMORY_FAILURE) is not compiled, even when it would not compile.
git -C "$CACHE/linux/repo" show base:mm/memory-failure.c >"$tmp/mf.c.orig" ||
	{ fail "cannot read mm/memory-failure.c of the lab's kernel tree"; exit 1; }
{ cat "$tmp/mf.c.orig"; printf '\n#error "cross-build self-test: not built on 8xx"\n'; } >"$tmp/mf.c.broken"
mkdir -p "$tmp/offpatches"
{
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: lab <lab@vmapscope.invalid>\nSubject: [PATCH] cross-build self-test: a file 8xx does not build\n\n---\n'
	printf 'diff --git a/mm/memory-failure.c b/mm/memory-failure.c\n'
	diff -u --label a/mm/memory-failure.c --label b/mm/memory-failure.c "$tmp/mf.c.orig" "$tmp/mf.c.broken"
} >"$tmp/offpatches/0001-break-memory-failure.patch"
echo 0001-break-memory-failure.patch >"$tmp/offpatches/series"
expect_rc 0 "a broken file the configuration does not build passes" \
	env VMAPSCOPE_PATCHDIR="$tmp/offpatches" "$LAB" cross-build $BROKEN_CFG
expect_in out "^ok   $BROKEN_CFG .*mm/vmalloc\.o mm/page_alloc\.o mm/percpu\.o \[mm/memory-failure\.o: CONFIG_MEMORY_FAILURE off\]" \
	"the object is named as left out, with the option that leaves it out"
expect_rc 1 "listed as known broken, it is not compiled here" env VMAPSCOPE_PATCHDIR="$tmp/offpatches" \
	"$LAB" cross-build --known-broken $BROKEN_CFG:mm/memory-failure.o $BROKEN_CFG
expect_in out "mm/memory-failure\.o is listed as known broken but is not compiled here" "the stale entry is named"

# Bad input.
expect_rc 2 "an unknown configuration" "$LAB" cross-build nosuch-config
expect_in err "unknown cross-build configuration 'nosuch-config'" "the unknown configuration is named"
expect_rc 2 "--known-broken without an object" "$LAB" cross-build --known-broken $GOOD_CFG $GOOD_CFG
expect_in err "--known-broken takes NAME:OBJECT" "the expected form is given"
expect_rc 2 "--arch is not for cross-build" "$LAB" cross-build --arch x86_64
mkdir -p "$tmp/empty"
: >"$tmp/empty/series"
expect_rc 125 "an empty series" env VMAPSCOPE_PATCHDIR="$tmp/empty" "$LAB" cross-build $GOOD_CFG
expect_in err "is empty" "the empty series is named"
cat >"$tmp/list" <<'L'
selftest-nocc	powerpc	nosuch-linux-gnu-	mpc885_ads_defconfig
selftest-dropped	powerpc	powerpc-linux-gnu-	mpc885_ads_defconfig	CONFIG_ARM64_64K_PAGES=y
selftest-wrongcc	powerpc	riscv64-linux-gnu-	mpc885_ads_defconfig
L
expect_rc 125 "a configuration whose compiler is missing" env VMAPSCOPE_CROSS_LIST="$tmp/list" "$LAB" cross-build selftest-nocc
expect_in err "selftest-nocc needs nosuch-linux-gnu-gcc: run scripts/install-deps" "the missing compiler is named"
expect_rc 125 "a configuration whose option Kconfig drops" \
	env VMAPSCOPE_CROSS_LIST="$tmp/list" VMAPSCOPE_PATCHDIR="$tmp/patches" "$LAB" cross-build selftest-dropped
expect_in err "selftest-dropped: Kconfig did not keep CONFIG_ARM64_64K_PAGES=y on powerpc mpc885_ads_defconfig" \
	"the dropped option and the configuration are named"
# The riscv64 compiler on powerpc flags: the build stops in its host and
# generated files, before the first object.  That is this machine's
# problem, not a result.
expect_rc 125 "a build that stops before compiling the objects" \
	env VMAPSCOPE_CROSS_LIST="$tmp/list" VMAPSCOPE_PATCHDIR="$tmp/patches" "$LAB" cross-build selftest-wrongcc
expect_in err "selftest-wrongcc \(powerpc mpc885_ads_defconfig, the series\): the build stopped before compiling mm/vmalloc\.o; log: " \
	"the configuration and the first object are named"
expect_in err "^    \| .*error: .*860" "the build's first errors are quoted"
# Their build directories stay, as any configuration's: the next run
# then fails in seconds instead of building kconfig and the host tools.
for c in selftest-dropped selftest-wrongcc; do
	! ls "$CACHE/out/cross-$c"/*/.complete >/dev/null 2>&1 && pass "no result is cached for $c" ||
		fail "a result was cached for $c, which did not compile anything"
done

finish
