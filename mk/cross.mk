# The series' objects on configurations the lab does not boot: scripts/lab
# cross-build compiles mm/vmalloc.o, mm/page_alloc.o, mm/percpu.o and the
# .c files the series touches for each configuration of configs/cross-builds
# with Debian's cross compilers (docs/lab.md, "Cross-builds").
#
#   make check-series-cross       the whole series on every configuration (or on
#                          CROSS_CHECK_CONFIGS), then the checker's own
#                          test (tests/guest/lab/cross.sh)
#   make check-series-cross-each-patch  every configuration on the stock tree and after
#                          each patch of the series: names the patch from
#                          which an object fails ("make check-full")
#
# Results are cached by content, so a warm run compiles nothing.  A failure
# names the configuration and the object and quotes the compiler.
#
# CROSS_KNOWN_BROKEN: NAME:OBJECT pairs the series is known to break, e.g.
# "ppc64le:mm/vmalloc.o".  A listed pair that fails is printed as KNOWN
# BROKEN and passes; one that compiles fails the check, so the list cannot
# outlive the fix.  Empty: every configuration must build.  Series v12
# broke ppc64le:mm/vmalloc.o (patch 7) and ppc-8xx:mm/vmalloc.o (patch 8);
# v13 builds both.

# Empty: every configuration (about 30 s each, cold; docs/lab.md).
CROSS_CHECK_CONFIGS ?=
# A listed pair that compiles fails the check, so a fix must take its pair
# off this list.
CROSS_KNOWN_BROKEN ?=
CROSS_KNOWN_ARGS = $(CROSS_KNOWN_BROKEN:%=--known-broken %)

.PHONY: check-series-cross check-series-cross-each-patch

# Both parts run even when the first fails.
check-series-cross: deps
	@rc=0; \
	$(LAB) cross-build $(CROSS_KNOWN_ARGS) $(CROSS_CHECK_CONFIGS) || rc=1; \
	TOPDIR=$(TOPDIR) bash tests/guest/lab/cross.sh || rc=1; \
	exit $$rc

check-series-cross-each-patch: deps
	$(LAB) cross-build --each-patch $(CROSS_KNOWN_ARGS)

CHECK_TARGETS += check-series-cross
CHECK_FULL_TARGETS += check-series-cross-each-patch
