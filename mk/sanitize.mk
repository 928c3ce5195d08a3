# The library, the tools and the unit tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer, and the unit and host suites run on them.
#
#   make sanitize          $(OUTDIR)/sanitize/{bin,tests}/: host arch, clang
#                          -fsanitize=address,undefined, every report fatal
#                          (-fno-sanitize-recover=all), with TLS, linked
#                          dynamically (ASan has no static link)
#   make check-sanitize    tests/unit/test_* and tests/host/tools/*.sh against
#                          them, and tests/host/prom/test_web_config.sh (HTTPS,
#                          client certificates) with the sanitized vmapstat
#                          as its TLS build; any
#                          sanitizer report (leaks included) fails the
#                          suite, whatever the test itself made of the
#                          exit status
#
# Reports go to $(OUTDIR)/sanitize/reports/ (log_path), not to stderr: the
# host tests expect exact stderr lines from bad input, and a report in a
# file cannot be mistaken for, or hidden by, an expected failure.
#
# The build is mk/build.mk's "sanitize" flavour: the same sources and
# rules as every other, with clang, -O1, the sanitizers and TLS
# (-DVMAPSCOPE_TLS, libgnutls), so the HTTPS code runs under them too.  The
# BPF skeletons are the normal build's (BPF objects are not instrumented).

SAN_O		 = $(OUTDIR)/sanitize
SAN_UNIT_BINS	 = $(sanitize_UNIT_BINS)
# The TLS suite: the static vmapstat (which must refuse TLS keys) stays the
# normal build's; its TLS build is the sanitized one.
SAN_TLS_TESTS	:= tests/host/prom/test_web_config.sh
SAN_REPORTS	 = $(SAN_O)/reports
# Leaks count, a report names the whole stack.  One file prefix for all
# three (one runtime).  tests/lib/lsan.supp: leaks inside other
# libraries that the code cannot free.
SAN_ENV		 = ASAN_OPTIONS=log_path=$(SAN_REPORTS)/report:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1 \
		   UBSAN_OPTIONS=log_path=$(SAN_REPORTS)/report:print_stacktrace=1:halt_on_error=1 \
		   LSAN_OPTIONS=log_path=$(SAN_REPORTS)/report:suppressions=$(TOPDIR)/tests/lib/lsan.supp:print_suppressions=0

.PHONY: check-sanitize

# Every test runs even after a failure; then the reports are counted.
check-sanitize: sanitize tools
	@rm -rf $(SAN_REPORTS); mkdir -p $(SAN_REPORTS); fail=""; \
	export $(SAN_ENV); \
	for t in $(SAN_UNIT_BINS); do echo "== $$t"; \
		VMAPSTAT=$(SAN_O)/bin/vmapstat $$t || fail="$$fail $$(basename $$t)"; done; \
	for t in $(HOST_TESTS); do echo "== $$t (sanitized tools)"; \
		VMAPSTAT=$(SAN_O)/bin/vmapstat VMAPTOP=$(SAN_O)/bin/vmaptop TOPDIR=$(TOPDIR) \
			bash $$t || fail="$$fail $$(basename $$t)"; done; \
	for t in $(SAN_TLS_TESTS); do echo "== $$t (sanitized TLS build)"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat VMAPSTAT_DYNAMIC=$(SAN_O)/bin/vmapstat \
			TOPDIR=$(TOPDIR) bash $$t || fail="$$fail $$(basename $$t)"; done; \
	reports=$$(find $(SAN_REPORTS) -type f | sort); \
	for r in $$reports; do echo "==== sanitizer report $$r:"; cat $$r; done; \
	[ -z "$$fail" ] || echo "check-sanitize: failed:$$fail"; \
	[ -z "$$reports" ] || echo "check-sanitize: $$(echo $$reports | wc -w) sanitizer report(s)"; \
	[ -z "$$fail" ] && [ -z "$$reports" ]

CHECK_TARGETS	+= check-sanitize
