# Cold builds that suites wait for, started in the background when "make
# check" (or "make check-full") starts.  Every build here is cached by
# content and guarded by the lab's locks, so a suite that needs one either
# finds it done, waits on the lock while it finishes, or builds it itself
# when the background run failed (and then reports the failure itself).
#
# Why: the suites leave a core idle most of the time (the host tests run
# one program at a time, a guest's TCG vCPU is one host thread), and so
# does a kernel build in its serial steps (link, BTF, modpost).  Run at
# nice 19, these builds take that idle CPU and little else; the suites'
# own order and results do not change (docs/lab.md, "What make check
# builds").
#
#   make prefetch-check   what "make check" builds: the stock and patched
#                         kernels of both arches, static perf, the
#                         cross-builds of the series' objects
#   make prefetch-full    the same, then the debug kernels
#                         ("make check-full")
#
# The background run's output: $(OUTDIR)/prefetch.log.

PREFETCH_LOG	:= $(OUTDIR)/prefetch.log

.PHONY: prefetch-check prefetch-full prefetch-lab-kernels prefetch-perf \
	prefetch-cross prefetch-debug-kernels

# In the order the suites need them; a step that fails does not stop the
# next one, and the run fails at the end naming it.
PREFETCH_CHECK_STEPS := prefetch-lab-kernels prefetch-perf prefetch-cross
PREFETCH_FULL_STEPS  := $(PREFETCH_CHECK_STEPS) prefetch-debug-kernels

define prefetch_steps
	@failed=""; for t in $(1); do \
		echo "== $$t ($$(date +%T))"; \
		$(MAKE) --no-print-directory $$t || failed="$$failed $$t"; \
	done; \
	echo "== prefetch done ($$(date +%T))$${failed:+, failed:$$failed}"; \
	[ -z "$$failed" ]
endef

prefetch-check:
	$(call prefetch_steps,$(PREFETCH_CHECK_STEPS))
prefetch-full:
	$(call prefetch_steps,$(PREFETCH_FULL_STEPS))

prefetch-lab-kernels:
	@set -e; for a in $(ARCHES); do \
		$(LAB) series-build --arch $$a --whole; \
		$(LAB) build --arch $$a --variant patched >/dev/null; \
	done

# The copy build-perf leaves in OUTDIR goes to a directory of its own: the
# suites copy out/<arch>/bin into their guests while this runs.
prefetch-perf:
	OUTDIR=$(OUTDIR)/prefetch scripts/build-perf >/dev/null

prefetch-cross:
	$(LAB) cross-build $(CROSS_KNOWN_ARGS) $(CROSS_CHECK_CONFIGS) >/dev/null

prefetch-debug-kernels:
	@set -e; for a in $(ARCHES); do $(LAB) build --arch $$a --variant debug >/dev/null; done

# $(call prefetch_start,TARGET): start TARGET in a session of its own at
# nice 19, and stop that session when the calling recipe's shell exits,
# however it exits (an interrupt, CI's timeout).  setsid does not fork
# here (the backgrounded subshell is not a process-group leader), so $$!
# is the new session's id.
define prefetch_start
	mkdir -p $(OUTDIR); \
	setsid nice -n 19 $(MAKE) --no-print-directory $(1) </dev/null >$(PREFETCH_LOG) 2>&1 & \
	pf=$$!; \
	trap 'kill -TERM -- -'$$pf' 2>/dev/null || true' EXIT; \
	trap 'exit 130' INT; trap 'exit 143' TERM HUP; \
	echo "==== $(1) started in the background at nice 19 (log: $(PREFETCH_LOG))"
endef

# The background run's start, stop and step handling, with stand-ins for
# the builds and suites (no kernel): a few seconds.
.PHONY: check-host-prefetch
check-host-prefetch:
	TOPDIR=$(TOPDIR) python3 tests/host/lab/test_prefetch.py

CHECK_TARGETS += check-host-prefetch
