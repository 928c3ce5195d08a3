# The Linux 6.12 series (kernel-patches/linux-6.12/) and its in-guest tests.
#
#   make check-guest-kernel        patched x86_64 + arm64: mappings, granules, exact
#                            events (and again booted with nohugevmalloc: 4K
#                            PTEs only), tracefs/perf, ioremap of an ivshmem BAR,
#                            test_vmalloc; misuses that must warn (misuse.sh,
#                            in a run of its own with --expect-warn)
#   make check-guest-kernel-debug  debug x86_64 + arm64 (KASAN, DEBUG_VM, lockdep,
#                            DEBUG_ATOMIC_SLEEP; lockdep still on at the end
#                            of each run): the same mapping checks (and
#                            vfree() of memcg-charged and poisoned areas),
#                            vfree() with page_owner=on
#                            and with allocation profiling on, test_vmalloc,
#                            fault injection and the misuses
#   make check-series-build  the kernel builds after each patch, both arches
#                            ("make check-full")
#   make check-series-prefixes  the prefixes of the series that change what
#                            the map and misuse suites see, each booted on
#                            both arches and checked against what a kernel
#                            with only those patches must do ("make
#                            check-full")
#   make check-series-checkpatch  scripts/checkpatch.pl --strict on every patch
#   make check-kernel-series-script  scripts/kernel-series export's sign-off
#                            and output options, on a small repo of its own
#   make check-bench-compare  bench-kernel's table scripts (compare.sh,
#                            reps.py) on made-up outputs: medians over boots
#   make bench-kernel        stock vs patched timings (docs/benchmarks.md)
#
# A guest test that fails makes its lab run exit non-zero, which fails the
# target (and "make check").

KSERIES		:= scripts/kernel-series
VMAP_TEST	:= tests/kmod/vmap_test
VMAP_BENCH	:= tests/kmod/vmap_bench
# tests/guest/kernel/ in the guest: /opt/vmapscope/tests/kernel, or
# .../tests/guest/kernel when out/<arch>/ brings its own tests/ directory.
kguest = sh -c 'for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do \
	[ -f $$d/$(1) ] && exec sh $$d/$(1); done; echo "no $(1) in the guest" >&2; exit 1'
KTIMEOUT	?= 900

.PHONY: check-guest-kernel check-guest-kernel-debug $(ARCHES:%=check-guest-kernel-%) \
	$(ARCHES:%=check-guest-kernel-debug-%) check-series-build \
	check-series-prefixes $(ARCHES:%=check-series-prefixes-%) check-series-checkpatch \
	check-kernel-series-script check-bench-compare bench-kernel kernel-export

# Regenerate the patch files from the dev branch (see docs/kernel-series.md).
kernel-export:
	$(KSERIES) export

# perf-tools: tracefs.sh's perf record/script part runs when the guest has perf.
$(ARCHES:%=check-guest-kernel-%): check-guest-kernel-%: deps perf-tools
	$(LAB) build --arch $* --variant patched >/dev/null
	$(LAB) kmod --arch $* --variant patched $(VMAP_TEST) >/dev/null
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) -- $(call kguest,map.sh)
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) --append nohugevmalloc \
		-- env VMAP_NOHUGE=1 $(call kguest,map.sh)
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) -- $(call kguest,tracefs.sh)
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) --ivshmem 64 -- $(call kguest,ioremap.sh)
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) -- $(call kguest,test_vmalloc.sh)
	$(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) --expect-warn -- $(call kguest,misuse.sh)

$(ARCHES:%=check-guest-kernel-debug-%): check-guest-kernel-debug-%: deps
	$(LAB) build --arch $* --variant debug >/dev/null
	$(LAB) kmod --arch $* --variant debug $(VMAP_TEST) >/dev/null
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) -- $(call kguest,map.sh)
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) --append page_owner=on \
		-- env VMAP_MODE=vfree VMAP_MEMCG=0 $(call kguest,map.sh)
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) --append sysctl.vm.mem_profiling=1 \
		-- env VMAP_MODE=vfree $(call kguest,map.sh)
	$(LAB) run --arch $* --variant debug --timeout 1800 -- $(call kguest,test_vmalloc.sh)
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) -- $(call kguest,fault.sh)
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) --expect-warn -- $(call kguest,misuse.sh)

check-guest-kernel: $(ARCHES:%=check-guest-kernel-%)

# The debug kernels are the only ones no other suite needs, and each is a
# cold build of its own (KASAN instruments every object, about 7 minutes
# per arch here): "make check-full" runs them, first among its own suites
# (docs/lab.md, "What make check builds").
check-guest-kernel-debug: $(ARCHES:%=check-guest-kernel-debug-%)
CHECK_FULL_TARGETS := check-guest-kernel-debug $(CHECK_FULL_TARGETS)

# Every prefix of the series builds, on both arches (scripts/lab
# series-build: incremental, cached by the patched key; it leaves the
# patched kernels built).  "make check" builds the whole series only
# (lab-kernels); this adds the per-patch steps.
check-series-build: deps
	@set -e; for a in $(ARCHES); do $(LAB) series-build --arch $$a; done

# The prefixes after which the behaviour the map and misuse suites check
# changes (vmap_test's table of the patch each behaviour comes with; the
# whole series is check-guest-kernel's).  Each is built as the lab's "patched"
# kernel from a patch directory of its own (scripts/kernel-series prefix:
# its build key is the prefix's, so it is cached like any kernel) and
# runs both suites told how many patches it has (VMAP_PATCHES).  The
# patched build directory is left at the last prefix: the next suite that
# needs the whole series rebuilds it incrementally.
SERIES_PREFIXES	?= 1 2 3 5 6 7 8 9 11 13 14
check-series-prefixes: $(ARCHES:%=check-series-prefixes-%)
$(ARCHES:%=check-series-prefixes-%): check-series-prefixes-%: deps
	@set -e; for n in $(SERIES_PREFIXES); do \
		d=$(OUTDIR)/series-prefix/$*-$$n; \
		$(KSERIES) prefix $$n $$d; \
		echo "== $*: patches 1-$$n"; \
		VMAPSCOPE_PATCHDIR=$$d $(LAB) build --arch $* --variant patched >/dev/null; \
		VMAPSCOPE_PATCHDIR=$$d $(LAB) kmod --arch $* --variant patched $(VMAP_TEST) >/dev/null; \
		VMAPSCOPE_PATCHDIR=$$d $(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) \
			-- env VMAP_PATCHES=$$n $(call kguest,map.sh); \
		VMAPSCOPE_PATCHDIR=$$d $(LAB) run --arch $* --variant patched --timeout $(KTIMEOUT) \
			--expect-warn -- env VMAP_PATCHES=$$n $(call kguest,misuse.sh); \
	done

# Needs the lab's kernel repo, which any lab build creates.
check-series-checkpatch: deps
	$(LAB) build --arch x86_64 --variant patched >/dev/null
	$(KSERIES) checkpatch

# scripts/kernel-series export (--signoff, --signoff-git, --out) against a
# small repo of its own: no kernel tree, a second or two.
check-kernel-series-script:
	TOPDIR=$(TOPDIR) bash tests/host/kernel/test_kernel_series.sh

# compare.sh and reps.py on made-up bench outputs, well under a second.
check-bench-compare:
	TOPDIR=$(TOPDIR) bash tests/host/kernel/test_bench_compare.sh

CHECK_TARGETS += check-guest-kernel check-series-checkpatch check-kernel-series-script \
	check-bench-compare
CHECK_FULL_TARGETS += check-series-build check-series-prefixes

# Stock vs patched, both arches, in one run: the in-kernel benchmark module
# under TCG, and again with -icount, where virtual time advances with the
# instructions executed (stable from run to run; arm64 also reads retired
# instructions from its PMU).  The fragmented-memory cases run in guest
# boots of their own (BENCH_FRAG_BOOTS of them), appended to the same
# file, with one CPU: on two, kswapd and kcompactd race kvmalloc()'s direct
# compaction, and whether kcompactd's failures defer it changes a boot's
# kvmalloc_frag median by 10x.  Under -icount the other cases also run in
# BENCH_ICOUNT_BOOTS boots: a case's instructions can differ by 2-3 % from
# boot to boot of one kernel (page-table history: arm64's ioremap_64M),
# so compare.sh takes the median over the boots (docs/benchmarks.md).
# Plain TCG runs the other cases in one boot: it cannot rank the kernels
# at that level.
# Results:
# out/bench/kernel/*.txt and the table out/bench/kernel/table.md, which
# docs/benchmarks.md quotes.  Not a test: nothing here can fail on speed.
BENCH_OUT	:= $(OUTDIR)/bench/kernel
BENCH_ITERS	?= 30
BENCH_FRAG_BOOTS ?= 5
BENCH_ICOUNT_BOOTS ?= 5

bench-kernel: deps
	@mkdir -p $(BENCH_OUT)
	@set -eo pipefail; for arch in $(ARCHES); do for v in stock patched; do \
		$(LAB) build --arch $$arch --variant $$v >/dev/null; \
		$(LAB) kmod --arch $$arch --variant $$v $(VMAP_BENCH) >/dev/null; \
		for mode in "" --icount; do \
			out=$(BENCH_OUT)/$$arch-$$v$${mode:+-icount}.txt; \
			: >$$out; \
			boots=1; [ -z "$$mode" ] || boots=$(BENCH_ICOUNT_BOOTS); \
			for b in $$(seq 1 $$boots); do \
				echo "== $$arch $$v $$mode, boot $$b of $$boots" | tee -a $$out; \
				$(LAB) run --arch $$arch --variant $$v --timeout 1800 --ivshmem 64 $$mode \
					-- env ITERS=$(BENCH_ITERS) FRAG=0 $(call kguest,bench.sh) | tee -a $$out; \
			done; \
			for b in $$(seq 1 $(BENCH_FRAG_BOOTS)); do \
				echo "== $$arch $$v $$mode, fragmented memory, boot $$b of $(BENCH_FRAG_BOOTS)" | tee -a $$out; \
				$(LAB) run --arch $$arch --variant $$v --timeout 1800 $$mode \
					--append maxcpus=1 \
					-- env ITERS=$(BENCH_ITERS) CASES=frag $(call kguest,bench.sh) | tee -a $$out; \
			done; \
		done; \
	done; done
	$(VMAP_BENCH)/compare.sh $(BENCH_OUT) | tee $(BENCH_OUT)/table.md
