# Benchmarks: "make bench" runs every benchmark of the project in
# one go and collects the results.  Not part of "make check": nothing here
# fails on speed, only when a benchmark cannot run.
#
#   make bench            bench-kernel (mk/kernel.mk: stock vs patched, both
#                         arches), bench-vmaptop (mk/vmaptop.mk: vmaptop's
#                         CPU at 1 s refresh), bench-snapshot
#                         (mk/snapshot.mk), bench-overhead (below), then
#                         bench-results
#   make bench-overhead   the tools' overhead in the patched guests: the
#                         workload of tests/kmod/overhead_workload with no
#                         tool, vmalloc:vmap_mapped on without a consumer,
#                         recorded, counted by "perf stat", and for each
#                         of vmapstat's default (one program run per
#                         mapping call, on vmap_mapped), --runs and
#                         --call-latency its floor (bench/floor: the same
#                         attach points, each program only counting) and
#                         vmapstat itself; vmapstat's time to attach;
#                         vmapstat/vmaptop peak RSS.  Each arch in every
#                         BENCH_OVH_MODES: TCG -icount (virtual time =
#                         instructions, independent of the host's load)
#                         and plain TCG; then, under -icount, the "large"
#                         profile (2 MiB vmap + 1 MiB vmalloc per round:
#                         more mapping work per event), the "parts"
#                         profile (tests/guest/overhead/parts.sh: what the
#                         tally, an empty program on a per-run event and
#                         on vmap_mapped each cost per call) and the observer
#                         row (tests/guest/overhead/observer.sh: the
#                         mapping latency vmapstat reports for
#                         vmap_bench's ioremap_1M, vmalloc_huge_1M,
#                         vmap_o9_100M against vmap_bench's own timing).
#   make bench-overhead-stock  the same workload on the stock kernels: no
#                         tool, the floor of vmapstat's area program,
#                         vmapstat's default, --stack-callers (-icount).
#   make bench-results    raw outputs -> bench/results/ (committed), with
#                         the overhead tables (overhead-table.md, -summary.csv)
#                         made from them, plots -> docs/img/ (gnuplot)
#
# BENCH_OVH_RUNS repetitions of BENCH_OVH_ROUNDS (large profile:
# BENCH_OVH_ROUNDS_LARGE) workload rounds each: 21, the fewest the
# overhead goals in docs/benchmarks.md are read from.

BENCH_DIR	:= $(OUTDIR)/bench
BENCH_RESULTS	:= bench/results
BENCH_OVH_ARCHES ?= $(ARCHES)
BENCH_OVH_MODES	?= icount tcg
BENCH_OVH_RUNS	?= 21
BENCH_OVH_PARTS_RUNS ?= 11
BENCH_OVH_ROUNDS ?= 2000
BENCH_OVH_ROUNDS_LARGE ?= 500
# observer row: repetitions, and vmap_bench's iters per case and repetition
BENCH_OBS_RUNS	?= 5
BENCH_OBS_ITERS	?= 30
BENCH_OVH_RAW	 = $(foreach a,$(BENCH_OVH_ARCHES),$(BENCH_OVH_MODES:%=$(BENCH_DIR)/overhead/$(a)-%.txt) \
		   $(BENCH_DIR)/overhead/$(a)-icount-large.txt $(BENCH_DIR)/overhead/$(a)-icount-parts.txt \
		   $(BENCH_DIR)/overhead/$(a)-icount-observer.txt \
		   $(BENCH_DIR)/overhead/$(a)-icount-stock.txt)
BENCH_SUITES	:= bench-kernel bench-vmaptop bench-snapshot bench-overhead

.PHONY: bench bench-overhead bench-results floor-tools

# The floor program, static for each guest arch: out/<arch>/bin/ goes into
# the guest.  Its BPF object and skeleton come from the tools' rules
# (mk/build.mk, BPF_DIRS); it is not part of the library.
define floor_rules
.SECONDARY: $(OUTDIR)/$(1)/bpf/floor.bpf.o
$(OUTDIR)/$(1)/bin/vmapscope-floor: bench/floor/floor.c $(OUTDIR)/$(1)/include/floor.skel.h
	@mkdir -p $$(@D)
	$$(CC_$(1)) $$(TOOLS_CFLAGS) -static -I$(OUTDIR)/$(1)/include -o $$@ $$< -lbpf -lelf -lz
endef
$(foreach a,$(ARCHES),$(eval $(call floor_rules,$(a))))

floor-tools: $(ARCHES:%=$(OUTDIR)/%/bin/vmapscope-floor)

# Every benchmark runs even if an earlier one failed; the failures are
# listed at the end and make the target fail.
bench: deps
	@mkdir -p $(BENCH_DIR); failed=""; for t in $(BENCH_SUITES); do \
		echo "==== make $$t ($$(date +%T))"; \
		if $(MAKE) --no-print-directory $$t 2>&1 | tee $(BENCH_DIR)/$$t.log; \
			[ $${PIPESTATUS[0]} = 0 ]; then :; \
		else failed="$$failed $$t"; echo "==== FAILED: make $$t"; fi; \
	done; \
	$(MAKE) --no-print-directory bench-results || failed="$$failed bench-results"; \
	[ -z "$$failed" ] || { echo "==== failed benchmarks:$$failed"; exit 1; }

bench-overhead: deps floor-tools perf-tools
	@set -e; for a in $(BENCH_OVH_ARCHES); do for m in $(BENCH_OVH_MODES); do \
		echo "== tool overhead: $$a ($$m)"; \
		OUTDIR=$(OUTDIR) tests/guest/overhead/run.sh $$a $$m $(BENCH_OVH_RUNS) $(BENCH_OVH_ROUNDS) small; \
	done; \
	echo "== tool overhead: $$a (icount, large mappings)"; \
	OUTDIR=$(OUTDIR) tests/guest/overhead/run.sh $$a icount $(BENCH_OVH_RUNS) $(BENCH_OVH_ROUNDS_LARGE) large; \
	echo "== where the floor goes: $$a (icount, parts)"; \
	OUTDIR=$(OUTDIR) tests/guest/overhead/run.sh $$a icount $(BENCH_OVH_PARTS_RUNS) $(BENCH_OVH_ROUNDS) parts; \
	echo "== observer effect: $$a (icount, vmap_bench's calls)"; \
	OUTDIR=$(OUTDIR) tests/guest/overhead/run.sh $$a icount $(BENCH_OBS_RUNS) $(BENCH_OBS_ITERS) observer; \
	done
	scripts/overhead-report --csv $(BENCH_DIR)/overhead/summary.csv \
		$$(ls -U $(BENCH_OVH_RAW) 2>/dev/null) | tee $(BENCH_DIR)/overhead/table.md

# Stock kernels (docs/benchmarks.md, "Stock kernels"): no tool, the floor
# of vmapstat's area program, vmapstat's stock default, --stack-callers;
# TCG -icount, small profile.
.PHONY: bench-overhead-stock
bench-overhead-stock: deps floor-tools
	@set -e; for a in $(BENCH_OVH_ARCHES); do OUTDIR=$(OUTDIR) tests/guest/overhead/run.sh \
		$$a icount $(BENCH_OVH_RUNS) $(BENCH_OVH_ROUNDS) small stock; done
	scripts/overhead-report $$(ls -U $(BENCH_OVH_ARCHES:%=$(BENCH_DIR)/overhead/%-icount-stock.txt) \
		2>/dev/null) | tee $(BENCH_DIR)/overhead/table-stock.md

# Copy what exists (a benchmark that did not run leaves the older committed
# files in place), stamped with the date (kernel-DATE: when the kernel table
# itself was copied, for the cover letter); then the plots.
bench-results:
	@mkdir -p $(BENCH_RESULTS)
	@set -e; d=$$(date -u +%Y-%m-%dT%H:%MZ); \
	for f in $(BENCH_OVH_RAW); do \
		if [ -f "$$f" ]; then cp "$$f" $(BENCH_RESULTS)/overhead-$$(basename $$f); fi; done; \
	for f in $(BENCH_DIR)/kernel/*.txt $(BENCH_DIR)/kernel/table.md; do \
		if [ -f "$$f" ]; then cp "$$f" $(BENCH_RESULTS)/kernel-$$(basename $$f); fi; done; \
	if [ -f $(BENCH_DIR)/kernel/table.md ]; then echo "$$d" > $(BENCH_RESULTS)/kernel-DATE; fi; \
	for t in vmaptop snapshot; do \
		if [ -s $(BENCH_DIR)/bench-$$t.log ]; then cp $(BENCH_DIR)/bench-$$t.log $(BENCH_RESULTS)/$$t.txt; fi; done; \
	echo "$$d" > $(BENCH_RESULTS)/DATE
	raw=$$(ls -U $(BENCH_OVH_RAW:$(BENCH_DIR)/overhead/%=$(BENCH_RESULTS)/overhead-%) 2>/dev/null); \
	if [ -n "$$raw" ]; then scripts/overhead-report --csv $(BENCH_RESULTS)/overhead-summary.csv \
		$$raw >$(BENCH_RESULTS)/overhead-table.md; fi
	scripts/plot-bench --out docs/img --kernel $(BENCH_RESULTS)/kernel-table.md \
		--overhead $$(ls -U $(BENCH_OVH_RAW:$(BENCH_DIR)/overhead/%=$(BENCH_RESULTS)/overhead-%) 2>/dev/null)
