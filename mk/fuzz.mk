# libFuzzer targets for the parsers that read outside input (tests/fuzz/):
#
#   fuzz_ksyms         /proc/kallsyms (ksyms_read)
#   fuzz_ksyms_ko      an unloaded module's .ko (ksyms_add_module_file)
#   fuzz_vmallocinfo   /proc/vmallocinfo (vmallocinfo_read, _parse_line)
#   fuzz_compare       "vmapstat compare" files (pmu_runs_read_json + reports)
#   fuzz_http          bytes of a client connection to the /metrics server
#   fuzz_pmu_event     --pmu event lists on the sysfs fixtures, sysfs formats
#   fuzz_options       option values: shared value parsers, argp children
#   fuzz_webconfig     --web.config.file YAML (prom_webconfig_load)
#
#   make fuzz             build them: $(OUTDIR)/fuzz/fuzz_TARGET, clang
#                         -fsanitize=fuzzer,address,undefined, the library
#                         built again for them (dynamic link)
#   make check-fuzz       per target: replay tests/fuzz/regressions/TARGET/
#                         and the seed corpus tests/fuzz/corpus/TARGET/,
#                         then FUZZ_RUNS_<TARGET> (FUZZ_RUNS) mutations with
#                         a fixed seed; all targets well under 2 minutes
#   make check-fuzz-long  FUZZ_LONG_SECONDS of fuzzing per target, random
#                         seed ("make check-full")
#   make fuzz-TARGET      one target, FUZZ_LONG_SECONDS
#
# A crash leaves its input in $(OUTDIR)/fuzz/artifacts/TARGET/; once the
# bug is fixed the input goes to tests/fuzz/regressions/TARGET/, which every
# run replays first.  tests/fuzz/run.sh does the running.
#
# Included before mk/tools.mk (name order): TOOLS_CFLAGS, TOOLS_LDLIBS and
# TOOL_NAMES are used in recipes only.  The BPF skeletons are the normal
# build's.

FUZZ_O		 = $(OUTDIR)/fuzz
FUZZ_CC		?= clang
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS	 = $(TOOLS_CFLAGS) -O1 $(FUZZ_SAN) -Iinclude -Iuser -I$(OUTDIR)/$(HOST_ARCH)/include
FUZZ_TARGETS	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS	 = $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%)
FUZZ_OBJS	 = $(patsubst user/%.c,$(FUZZ_O)/obj/%.o,$(wildcard user/*.c))
FUZZ_HDRS	:= $(wildcard user/*.h include/*.h tests/fuzz/*.h)
FUZZ_SKELS	:= $(patsubst bpf/%.bpf.c,$(OUTDIR)/$(HOST_ARCH)/include/%.skel.h,$(wildcard bpf/*.bpf.c))

# Mutations per target in "make check-fuzz", sized so that the whole suite
# takes about a minute on 2 busy cores; the server target pays a TCP
# connection (and up to 250 ms of waiting for an answer) per input.
FUZZ_RUNS		?= 10000
FUZZ_RUNS_options	?= 20000
FUZZ_RUNS_compare	?= 8000
FUZZ_RUNS_pmu_event	?= 4000
FUZZ_RUNS_http		?= 1000
FUZZ_RUNS_webconfig	?= 1000
FUZZ_LONG_SECONDS	?= 300

.PHONY: fuzz check-fuzz check-fuzz-long $(FUZZ_TARGETS:%=fuzz-%)

$(FUZZ_O)/obj/%.o: user/%.c $(FUZZ_HDRS) $(FUZZ_SKELS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# Every object but the tools' main files, as mk/tools.mk's library.
$(FUZZ_O)/lib/libvmapscope.a: $(FUZZ_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $(filter-out $(TOOL_NAMES:%=$(FUZZ_O)/obj/%.o),$^)

# Dynamic link: without prom_tls_stubs.o (see mk/prom.mk), libmicrohttpd.so
# brings the real GnuTLS.
$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_O)/lib/libvmapscope.a $(FUZZ_HDRS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz \
		-DFUZZ_FIXTURES='"$(TOPDIR)/tests/fixtures"' \
		$(if $(wildcard user/cli.c),-DFUZZ_HAVE_CLI) \
		-o $@ $< $(FUZZ_O)/lib/libvmapscope.a \
		$(filter-out %/prom_tls_stubs.o,$(TOOLS_LDLIBS))

fuzz: $(FUZZ_BINS)

check-fuzz: fuzz
	@fail=""; \
	$(foreach t,$(FUZZ_TARGETS),bash tests/fuzz/run.sh $(FUZZ_O) $(t) \
		$(or $(FUZZ_RUNS_$(t)),$(FUZZ_RUNS)) || fail="$$fail $(t)";) \
	[ -z "$$fail" ] || { echo "check-fuzz: failed:$$fail"; exit 1; }

check-fuzz-long: fuzz
	@fail=""; for t in $(FUZZ_TARGETS); do \
		bash tests/fuzz/run.sh $(FUZZ_O) $$t long:$(FUZZ_LONG_SECONDS) || fail="$$fail $$t"; done; \
	[ -z "$$fail" ] || { echo "check-fuzz-long: failed:$$fail"; exit 1; }

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_O)/fuzz_%
	bash tests/fuzz/run.sh $(FUZZ_O) $* long:$(FUZZ_LONG_SECONDS)

CHECK_TARGETS	+= check-fuzz
CHECK_FULL_TARGETS += check-fuzz-long
