# The library, the tools and the unit tests built with AddressSanitizer and
# UndefinedBehaviorSanitizer, and the unit and host suites run on them.
#
#   make sanitize          $(OUTDIR)/sanitize/{bin,tests}/: host arch, clang
#                          -fsanitize=address,undefined, every report fatal
#                          (-fno-sanitize-recover=all), linked dynamically
#                          (ASan has no static link)
#   make check-sanitize    tests/unit/test_* and tests/host/*.sh against
#                          them, and tests/prom/test_web_config.sh (HTTPS,
#                          client certificates) with the sanitized vmapstat
#                          as its TLS build; any sanitizer report (leaks
#                          included) fails the suite, whatever the test
#                          itself made of the exit status.  Built with TLS
#                          (SAN_TLS), as the dynamic vmapstat is.
#
# Reports go to $(OUTDIR)/sanitize/reports/ (log_path), not to stderr: the
# host tests expect exact stderr lines from bad input, and a report in a
# file cannot be mistaken for, or hidden by, an expected failure.
#
# Included before mk/tools.mk (name order): its variables (CC_<arch>,
# TOOLS_CFLAGS, TOOLS_LDLIBS, TOOL_NAMES, HOST_TESTS) are used in recipes
# only, and the source lists here are this file's own wildcards.  The BPF
# skeletons are the normal build's (BPF objects are not instrumented).

SAN_O		 = $(OUTDIR)/sanitize
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
# clang: its UBSan shares ASan's runtime and so its log_path (below); gcc's
# libubsan, a library of its own beside libasan, prints to stderr whatever
# UBSAN_OPTIONS says, where a test's expected error output would hide it.
SAN_CC		?= clang
# With TLS (-DVMAPSCOPE_TLS, the real libgnutls, as mk/prom.mk's dynamic
# vmapstat), so that the HTTPS and certificate code runs under the
# sanitizers too; without the static tools' GnuTLS stand-ins.
SAN_TLS		:= -DVMAPSCOPE_TLS
SAN_SRCS	:= $(filter-out user/prom_tls_stubs.c,$(wildcard user/*.c))
SAN_HDRS	:= $(wildcard user/*.h include/*.h)
SAN_SKELS	:= $(patsubst bpf/%.bpf.c,$(OUTDIR)/$(HOST_ARCH)/include/%.skel.h,$(wildcard bpf/*.bpf.c))
SAN_OBJS	:= $(patsubst user/%.c,$(SAN_O)/obj/%.o,$(SAN_SRCS))
SAN_UNIT_BINS	:= $(patsubst tests/unit/%.c,$(SAN_O)/tests/%,$(wildcard tests/unit/test_*.c))
# The tools: vmapstat, vmaptop (the host tests take them from these variables).
SAN_TOOLS	:= vmapstat vmaptop
SAN_REPORTS	 = $(SAN_O)/reports
# Leaks count, a report names the whole stack.  One file prefix for all
# three (one runtime).  tests/sanitize/lsan.supp: leaks inside other
# libraries that the code cannot free.
SAN_ENV		 = ASAN_OPTIONS=log_path=$(SAN_REPORTS)/report:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1 \
		   UBSAN_OPTIONS=log_path=$(SAN_REPORTS)/report:print_stacktrace=1:halt_on_error=1 \
		   LSAN_OPTIONS=log_path=$(SAN_REPORTS)/report:suppressions=$(TOPDIR)/tests/sanitize/lsan.supp:print_suppressions=0

.PHONY: sanitize check-sanitize

# -O1: near-full speed with exact report locations.
# (this file too: a change of flags, such as SAN_TLS, rebuilds them)
$(SAN_O)/obj/%.o: user/%.c $(SAN_HDRS) $(SAN_SKELS) mk/sanitize.mk
	@mkdir -p $(@D)
	$(SAN_CC) $(TOOLS_CFLAGS) -O1 $(SAN_FLAGS) $(SAN_TLS) -Iinclude -Iuser \
		-I$(OUTDIR)/$(HOST_ARCH)/include -c $< -o $@

# --version's git describe string (mk/tools.mk keeps it in a stamp).
$(SAN_O)/obj/cli.o: $(GIT_DESCRIBE_STAMP)

# Every object but the tools' main files, as mk/tools.mk's library.
$(SAN_O)/lib/libvmapscope.a: $(SAN_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $(filter-out $(TOOL_NAMES:%=$(SAN_O)/obj/%.o),$^)

# Dynamic: no prom_tls_stubs.o (mk/prom.mk adds it to static links named
# .../bin/...), libmicrohttpd.so brings the real GnuTLS.
$(SAN_O)/bin/%: $(SAN_O)/obj/%.o $(SAN_O)/lib/libvmapscope.a
	@mkdir -p $(@D)
	$(SAN_CC) $(SAN_FLAGS) -o $@ $< $(SAN_O)/lib/libvmapscope.a \
		$(filter-out %/prom_tls_stubs.o,$(TOOLS_LDLIBS)) -lgnutls

$(SAN_O)/tests/%: tests/unit/%.c $(SAN_O)/lib/libvmapscope.a $(SAN_HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(SAN_CC) $(TOOLS_CFLAGS) -O1 $(SAN_FLAGS) $(SAN_TLS) -Iinclude -Iuser \
		-I$(OUTDIR)/$(HOST_ARCH)/include \
		-DTEST_DATA_DIR='"$(TOPDIR)/tests/unit/data"' -o $@ $< \
		$(if $(wildcard tests/unit/$*.wrap),$(foreach s,$(shell cat tests/unit/$*.wrap),-Wl,--wrap=$(s))) \
		$(SAN_O)/lib/libvmapscope.a $(filter-out %/prom_tls_stubs.o,$(TOOLS_LDLIBS)) \
		-lgnutls -lcmocka

sanitize: $(SAN_TOOLS:%=$(SAN_O)/bin/%) $(SAN_UNIT_BINS)

# Every test runs even after a failure; then the reports are counted.
check-sanitize: sanitize tools
	@rm -rf $(SAN_REPORTS); mkdir -p $(SAN_REPORTS); fail=""; \
	export $(SAN_ENV); \
	for t in $(SAN_UNIT_BINS); do echo "== $$t"; \
		VMAPSTAT=$(SAN_O)/bin/vmapstat $$t || fail="$$fail $$(basename $$t)"; done; \
	for t in $(HOST_TESTS); do echo "== $$t (sanitized tools)"; \
		VMAPSTAT=$(SAN_O)/bin/vmapstat VMAPTOP=$(SAN_O)/bin/vmaptop TOPDIR=$(TOPDIR) \
			bash $$t || fail="$$fail $$(basename $$t)"; done; \
	echo "== tests/prom/test_web_config.sh (sanitized vmapstat as the TLS build)"; \
	VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat VMAPSTAT_DYNAMIC=$(SAN_O)/bin/vmapstat \
		TOPDIR=$(TOPDIR) bash tests/prom/test_web_config.sh || fail="$$fail test_web_config.sh"; \
	reports=$$(find $(SAN_REPORTS) -type f | sort); \
	for r in $$reports; do echo "==== sanitizer report $$r:"; cat $$r; done; \
	[ -z "$$fail" ] || echo "check-sanitize: failed:$$fail"; \
	[ -z "$$reports" ] || echo "check-sanitize: $$(echo $$reports | wc -w) sanitizer report(s)"; \
	[ -z "$$fail" ] && [ -z "$$reports" ]

CHECK_TARGETS	+= check-sanitize
