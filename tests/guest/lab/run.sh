#!/usr/bin/env bash
# Lab self-tests: the host sees the guest's exit status, a WARN in the guest
# kernel log fails the run, the cache key (not file times) decides rebuilds,
# and bad input gets a clear error with no half-written cache entry.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
LAB=$TOP/scripts/lab
CACHE=${VMAPSCOPE_CACHE:-/var/cache/vmapscope}
OUTDIR=${OUTDIR:-$TOP/out}
. "$(dirname "$0")/../../lib/harness.sh"
. "$(dirname "$0")/lib.sh"

for arch in x86_64 arm64; do
	expect_rc 0 "$arch guest boots and runs a command" \
		"$LAB" run --arch $arch --variant patched --timeout 300 -- sh -c 'uname -m; test -d /sys/kernel/tracing/events/vmalloc'
	grep -qx "$( [ $arch = arm64 ] && echo aarch64 || echo x86_64)" "$tmp/out" &&
		pass "$arch guest output reaches the host" || fail "$arch guest output missing: $(cat "$tmp/out")"
	# x86_64 guests run both vCPUs in one TCG thread (docs/lab.md, "Jump
	# labels on x86_64"); arm64 guests keep QEMU's thread per vCPU.
	want=multi
	[ $arch = arm64 ] || want=single
	got=multi
	! grep -q -- "-accel tcg,thread=single " "$(cat "$OUTDIR/lab/last-run")/qemu.cmd" || got=single
	[ "$got" = "$want" ] && pass "$arch guests run with TCG threads: $want" ||
		fail "$arch guests run with TCG threads: $got, wanted $want"
done

expect_rc 2 "an unknown --tcg-thread" "$LAB" run --arch x86_64 --variant patched --tcg-thread many -- true
expect_rc 2 "--tcg-thread multi with --icount" "$LAB" run --arch arm64 --variant patched --icount --tcg-thread multi -- true
expect_rc 2 "--numa 1" "$LAB" run --arch x86_64 --variant patched --numa 1 -- true
expect_rc 2 "--numa with less than 128 MiB per node" "$LAB" run --arch arm64 --variant patched --numa 8 --mem 512 -- true
# Only the arm64 debug kernel has CONFIG_NUMA.
expect_rc 125 "--numa on a kernel without NUMA" "$LAB" run --arch x86_64 --variant patched --numa 2 -- true
expect_err "has no CONFIG_NUMA" "--numa on a kernel without NUMA says why"
expect_rc 3 "guest exit status 3 is the host's exit status" \
	"$LAB" run --arch x86_64 --variant patched --timeout 300 -- sh -c 'echo about to fail; exit 3'
grep -q "about to fail" "$tmp/out" && pass "output before a failure is shown" || fail "output before failure lost"

printf '#!/bin/sh\necho from-script\nexit 0\n' >"$tmp/script.sh"
expect_rc 0 "--script runs a script file" "$LAB" run --arch x86_64 --variant patched --timeout 300 --script "$tmp/script.sh"
grep -q from-script "$tmp/out" && pass "--script output shown" || fail "--script output missing"

# A real WARN from a module fails the run; --expect-warn lets it pass.
if "$LAB" kmod --arch x86_64 --variant patched "$TOP/tests/guest/lab/kmod_warn" >"$tmp/kmod" 2>&1; then
	expect_rc 123 "a WARN in the guest kernel log fails the run" \
		"$LAB" run --arch x86_64 --variant patched --timeout 300 -- kload /opt/vmapscope/kmod/lab_warn.ko
	expect_err "WARN|WARNING" "the WARN is quoted on stderr"
	expect_rc 0 "--expect-warn accepts the WARN" \
		"$LAB" run --arch x86_64 --variant patched --timeout 300 --expect-warn -- kload /opt/vmapscope/kmod/lab_warn.ko
	rm -f "$TOP/out/kmod/x86_64-patched/lab_warn.ko"
else
	fail "building the lab_warn module: $(tail -n 3 "$tmp/kmod")"
fi

expect_rc 124 "a hung guest times out" "$LAB" run --arch x86_64 --variant patched --timeout 20 -- sleep 600

# The cache key follows the patch files' content, not their times.
mkdir -p "$tmp/patches"
cp -a "$TOP/kernel-patches/linux-6.12/." "$tmp/patches/" 2>/dev/null
touch "$tmp/patches/series"
k0=$(VMAPSCOPE_PATCHDIR=$tmp/patches "$LAB" key --arch x86_64 --variant patched)
touch "$tmp/patches"/*
k1=$(VMAPSCOPE_PATCHDIR=$tmp/patches "$LAB" key --arch x86_64 --variant patched)
[ "$k0" = "$k1" ] && pass "touching patch files keeps the cache key" || fail "touch changed the key"
cat >"$tmp/patches/9999-lab-selftest.patch" <<'P'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: lab <lab@vmapscope.invalid>
Subject: [PATCH] lab self-test: a patch that does not apply

---
 mm/vmalloc.c | 1 +
 1 file changed, 1 insertion(+)

diff --git a/mm/vmalloc.c b/mm/vmalloc.c
--- a/mm/vmalloc.c
+++ b/mm/vmalloc.c
@@ -1,3 +1,4 @@
 this line is not in vmalloc.c
+neither is this one
 nor this
 nor that
P
echo 9999-lab-selftest.patch >>"$tmp/patches/series"
k2=$(VMAPSCOPE_PATCHDIR=$tmp/patches "$LAB" key --arch x86_64 --variant patched)
[ "$k2" != "$k0" ] && pass "a changed series changes the cache key" || fail "key did not change"
k3=$(VMAPSCOPE_PATCHDIR=$tmp/patches "$LAB" key --arch x86_64 --variant stock)
k4=$("$LAB" key --arch x86_64 --variant stock)
[ "$k3" = "$k4" ] && pass "the stock key ignores the series" || fail "stock key depends on patches"
expect_rc 0 "an unchanged input is a cache hit" "$LAB" build --arch x86_64 --variant patched
expect_err "cached" "the cache hit says so"
# series-build's base step is the stock kernel: "make check" runs
# series-build --whole first (lab-kernels), so the stock kernel must now be
# cached, built from the same fragments as the patched one, and really
# without the series.
for arch in x86_64 arm64; do
	expect_rc 0 "$arch stock kernel cached after series-build" "$LAB" build --arch $arch --variant stock
	expect_err "cached" "$arch stock: the cache hit says so"
	sdir=$("$LAB" path --arch $arch --variant stock 2>/dev/null)
	pdir=$("$LAB" path --arch $arch --variant patched 2>/dev/null)
	[ -n "$sdir" ] && [ -n "$pdir" ] && diff -q <(grep -v '^#' "$sdir/config") <(grep -v '^#' "$pdir/config") >/dev/null &&
		pass "$arch stock and patched kernels share one configuration" ||
		fail "$arch stock and patched configurations differ"
done
expect_rc 0 "the stock guest has the stock vmalloc events and none of the series'" \
	"$LAB" run --arch x86_64 --variant stock --timeout 300 -- sh -c \
	'test -d /sys/kernel/tracing/events/vmalloc/alloc_vmap_area && ! test -e /sys/kernel/tracing/events/vmalloc/vmap_mapped'
expect_rc 125 "a patch that does not apply fails the build" \
	env VMAPSCOPE_PATCHDIR="$tmp/patches" "$LAB" build --arch x86_64 --variant patched
expect_err "9999-lab-selftest.patch does not apply" "the error names the broken patch"
expect_err "does not apply to Linux $(dpkg-query -W -f='${Version}' linux-source-6.12 | sed 's/[.+]/\\&/g')" \
	"the error names the kernel source version it was applied to"
[ ! -e "$CACHE/out/x86_64-patched/$k2" ] && ! ls -d "$CACHE/out/x86_64-patched/$k2".tmp* >/dev/null 2>&1 &&
	pass "no cache entry is left for the broken series" || fail "a cache entry was left for $k2"

# series-build: every prefix of the series must build.  Patch 1 breaks the
# top Makefile (make fails before compiling anything), patch 2 repairs it:
# the series as a whole is fine, the prefix is not.  Both are made from the
# Makefile of the source tree under test, so no line a point release
# changes (SUBLEVEL) is written here.
mkdir -p "$tmp/brk"
git -C "$CACHE/linux/repo" show base:Makefile >"$tmp/brk/Makefile.orig" ||
	fail "cannot read the Makefile of the lab's kernel tree"
sed '1a $(error lab self-test: broken by patch 1)' "$tmp/brk/Makefile.orig" >"$tmp/brk/Makefile.broken"
# selftest_patch N/M SUBJECT FROM TO: a git-am-able patch of the top Makefile.
selftest_patch() {
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: lab <lab@vmapscope.invalid>\nSubject: [PATCH %s] lab self-test: %s\n\n---\n' "$1" "$2"
	printf 'diff --git a/Makefile b/Makefile\n'
	diff -u --label a/Makefile --label b/Makefile "$3" "$4"
}
selftest_patch 1/2 "break the build" "$tmp/brk/Makefile.orig" "$tmp/brk/Makefile.broken" >"$tmp/brk/0001-break.patch"
selftest_patch 2/2 "repair the build" "$tmp/brk/Makefile.broken" "$tmp/brk/Makefile.orig" >"$tmp/brk/0002-repair.patch"
printf '0001-break.patch\n0002-repair.patch\n' >"$tmp/brk/series"
expect_rc 125 "series-build fails when a prefix of the series does not build" \
	env VMAPSCOPE_PATCHDIR="$tmp/brk" "$LAB" series-build --arch x86_64
expect_err "does not build with patches 1-1 \\(stops at 0001-break\\.patch\\)" "the error names the first patch that breaks"
kb=$(VMAPSCOPE_PATCHDIR=$tmp/brk "$LAB" key --arch x86_64 --variant patched)
[ ! -e "$CACHE/out/x86_64-series/$kb/.complete" ] && pass "no series-build result is cached for it" ||
	fail "a series-build result was cached for the broken series"
# That failed run left the patched tree at base; the next kmod rebuilds it
# under the same key.  The guest must then boot the rebuilt kernel, or it
# refuses the module's BTF (made against the new vmlinux's type ids).
if "$LAB" kmod --arch x86_64 --variant patched "$TOP/tests/guest/lab/kmod_warn" >"$tmp/kmod" 2>&1; then
	cmp -s "$CACHE/build/x86_64-patched/arch/x86/boot/bzImage" \
		"$("$LAB" path --arch x86_64 --variant patched)/kernel" &&
		pass "after a rebuild, kmod leaves the artifact matching the build tree" ||
		fail "the artifact's kernel differs from the rebuilt build tree"
	expect_rc 0 "a module built after the rebuild loads in the guest" \
		"$LAB" run --arch x86_64 --variant patched --timeout 300 --expect-warn -- kload /opt/vmapscope/kmod/lab_warn.ko
	rm -f "$TOP/out/kmod/x86_64-patched/lab_warn.ko"
else
	fail "building the lab_warn module after the rebuild: $(tail -n 3 "$tmp/kmod")"
fi
expect_rc 2 "series-build of another variant" "$LAB" series-build --arch x86_64 --variant stock
expect_rc 2 "series-build --whole of another variant" "$LAB" series-build --arch x86_64 --variant stock --whole
expect_rc 2 "series-build with an unknown option" "$LAB" series-build --arch x86_64 --all
expect_err "series-build: unexpected '--all'" "the unknown option is named"
expect_rc 0 "series-build --whole of a cached series builds nothing" "$LAB" series-build --arch x86_64 --whole
expect_err "cached" "the whole-series cache hit says so"

# Bad input.
expect_rc 2 "unknown arch" "$LAB" build --arch riscv64 --variant patched
expect_err "unknown arch 'riscv64'" "unknown arch is named"
expect_rc 2 "unknown variant" "$LAB" build --arch x86_64 --variant fast
expect_err "unknown variant 'fast'" "unknown variant is named"
expect_rc 2 "missing command" "$LAB" run --arch x86_64 --variant patched
expect_rc 125 "missing KVM" env VMAPSCOPE_KVM_DEV=/nonexistent/kvm "$LAB" run --arch x86_64 --variant patched --accel kvm -- true
expect_err "/nonexistent/kvm does not exist" "missing KVM is named"

finish
