# vmapscope top-level Makefile.
#
# mk/build.mk is how the user-space code is built (one source list, one
# rule set, a flavour per compiler and link); every other concern keeps its
# rules in mk/<concern>.mk and adds its test target to CHECK_TARGETS;
# "make check" runs them all in order.  The two commands the README gives
# are "make demo" and "make check".

SHELL		:= /bin/bash
TOPDIR		:= $(CURDIR)
# Where built tools go: out/<arch>/ (bin/, bpf/, lib/); never committed.
OUTDIR		?= $(TOPDIR)/out
HOST_ARCH	:= $(shell uname -m | sed 's/aarch64/arm64/')
# The architectures everything is built and tested for: the tools, the lab
# kernels and guests.  Per-arch facts (compiler, BPF target) are in
# mk/build.mk; every list of arches in mk/ is this one.
ARCHES		:= x86_64 arm64
# Lab cache (kernel trees, builds); outside the repo on purpose.
export VMAPSCOPE_CACHE ?= /var/cache/vmapscope

CHECK_TARGETS	:=
CHECK_FULL_TARGETS :=

.PHONY: all deps demo check check-full clean
all:

# Install every package the project needs (idempotent; fast when done).
deps:
	scripts/install-deps

# The build first: the other fragments name its flavours' files in their
# rules.  They do not use each other's variables outside recipes, so
# their own order does not matter.
include mk/build.mk
include $(filter-out mk/build.mk,$(wildcard mk/*.mk))

all: tools

# Fast suites (unit, host, sanitizers, bounded fuzzing) first, then the lab (it builds the stock and
# patched kernels, one tree per arch), then every suite that needs only
# those kernels.  "make check-full" then adds the suites that need kernels
# of their own (the debug kernels, the kernel after each patch, the
# prefixes of the series) and the long fuzzing runs.
# Every suite runs even after a failure, then one closing line counts them.
# Within each part the suites run in name order, so the sequence does not
# depend on the order the fragments are read in.  Meanwhile the cold
# builds the suites wait for run in the background (mk/prefetch.mk).
CHECK_FAST	 = $(sort $(filter check-unit check-host-tools check-host-deploy-files \
		   check-sanitize check-fuzz,$(CHECK_TARGETS)))
CHECK_EARLY	 = $(CHECK_FAST) $(filter check-guest-lab,$(CHECK_TARGETS))
CHECK_REST	 = $(sort $(filter-out $(CHECK_EARLY),$(CHECK_TARGETS)))
CHECK_SEQUENCE	 = $(CHECK_EARLY) $(filter check-host-%,$(CHECK_REST)) \
		   $(filter-out check-host-%,$(CHECK_REST))

# $(call run_suites,SUITES,PREFETCH)
define run_suites
	@$(call prefetch_start,$(2)); \
	pass=0; failed=""; for t in $(1); do \
		echo "==== make $$t ($$(date +%T))"; \
		if $(MAKE) --no-print-directory $$t; then pass=$$((pass + 1)); \
		else failed="$$failed $$t"; echo "==== FAILED: make $$t"; fi; \
	done; \
	nfail=$$(echo $$failed | wc -w); \
	[ -z "$$failed" ] || echo "==== failed suites:$$failed"; \
	echo "suites: $$pass passed, $$nfail failed"; \
	[ -z "$$failed" ]
endef

check: deps
	$(call run_suites,$(CHECK_SEQUENCE),prefetch-check)

check-full: deps
	$(call run_suites,$(CHECK_SEQUENCE) $(CHECK_FULL_TARGETS),prefetch-full)

clean:
	rm -rf $(OUTDIR)
