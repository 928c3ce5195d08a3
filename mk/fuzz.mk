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
# The library is mk/build.mk's "fuzz" flavour (clang, -O1, ASan + UBSan,
# -fsanitize=fuzzer-no-link); each target links it with libFuzzer.  The BPF
# skeletons are the normal build's.

FUZZ_O		 = $(OUTDIR)/fuzz
FUZZ_TARGETS	:= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS	 = $(FUZZ_TARGETS:%=$(FUZZ_O)/fuzz_%)

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

$(FUZZ_O)/fuzz_%: tests/fuzz/fuzz_%.c $(fuzz_LIB) $(USER_HDRS) $(wildcard tests/fuzz/*.h)
	$(fuzz_COMPILE) $(fuzz_LDFLAGS) -fsanitize=fuzzer -Itests/fuzz \
		-DFUZZ_FIXTURES='"$(TOPDIR)/tests/fixtures"' \
		$(if $(wildcard user/cli.c),-DFUZZ_HAVE_CLI) \
		-o $@ $< $(fuzz_LINK_LIBS)

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
