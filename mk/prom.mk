# Prometheus export of vmapstat: --listen, --textfile, --prometheus,
# --top-callers.  The sources (user/prom_*.c) go into libvmapscope.a and the
# unit tests (tests/unit/test_prom_*.c) run in check-unit, both through
# mk/tools.mk's wildcards.  This file adds:
#
#   the link flags: libmicrohttpd for every tool and unit test, and for the
#       static tools (out/<arch>/bin/*) the GnuTLS stand-ins of
#       user/prom_tls_stubs.c (why: see that file).  TOOLS_LDLIBS is
#       expanded in the link recipe, so $@ tells a static tool link
#       (.../bin/NAME) from a unit test link (.../tests/NAME).
#   make prom-unit     the Prometheus unit tests alone
#   make check-prom    tests/prom/*.sh on this machine (root; BPF on the host
#                      kernel): promtool on every output form, a real
#                      Prometheus scraping vmapstat --listen compared with
#                      vmapstat -j of the same intervals, node_exporter's
#                      textfile collector, bad requests and slow clients,
#                      --by comm / cgroup labels under --top-callers,
#                      and (with the dynamic build) TLS and basic auth from
#                      a web configuration file, scraped by Prometheus.
#   make prom-soak     100,000 mixed requests (good, wrong password, none,
#                      garbage, slow) against the static exporter with basic
#                      auth: figures for docs/prometheus.md ("Soak")
#   make check-prom-guest   on the patched x86_64 and arm64 lab kernels (the
#                      host kernel lacks the series' tracepoints): the
#                      vmap_test workload under vmapstat -p -j --textfile;
#                      promtool, textfile == sum of the -j intervals, 2M
#                      and 4K mappings, chunk and latency histograms.

TOOLS_LDLIBS	+= -lmicrohttpd -lm $(if $(findstring /bin/,$@),$(dir $(@D))obj/prom_tls_stubs.o) \
		   -lyaml -lcrypt

# ---- the dynamically linked vmapstat, with TLS --------------------------
#   make tools-dynamic   out/$(HOST_ARCH)/bin-dynamic/vmapstat: the same
#       sources compiled with -DVMAPSCOPE_TLS (GnuTLS certificate checks,
#       client certificate verification) into obj-dynamic/, linked against
#       the shared libmicrohttpd and the real libgnutls, so that
#       --web.config.file can serve HTTPS.  The static out/ARCH/bin/vmapstat
#       links user/prom_tls_stubs.c instead and refuses TLS keys at start.
#       This file is read before mk/tools.mk: the rules use tools.mk's
#       variables only in recipes.
DYN_O		:= $(OUTDIR)/$(HOST_ARCH)
DYN_MAINS	:= $(wildcard user/vmapstat.c)
DYN_LIB_SRCS	:= $(filter-out user/vmaptop.c $(DYN_MAINS) user/prom_tls_stubs.c,$(wildcard user/*.c))
DYN_OBJS	:= $(patsubst user/%.c,$(DYN_O)/obj-dynamic/%.o,$(DYN_LIB_SRCS))
DYN_SKELS	:= $(patsubst bpf/%.bpf.c,$(DYN_O)/include/%.skel.h,$(wildcard bpf/*.bpf.c))

.PHONY: tools-dynamic
tools-dynamic: $(DYN_O)/bin-dynamic/vmapstat

$(DYN_O)/obj-dynamic/%.o: user/%.c $(wildcard user/*.h include/*.h) $(DYN_SKELS)
	@mkdir -p $(@D)
	$(CC_$(HOST_ARCH)) $(TOOLS_CFLAGS) -DVMAPSCOPE_TLS -Iinclude -Iuser -I$(DYN_O)/include -c $< -o $@

$(DYN_O)/bin-dynamic/vmapstat: $(DYN_O)/obj-dynamic/vmapstat.o $(DYN_OBJS)
	@mkdir -p $(@D)
	$(CC_$(HOST_ARCH)) -o $@ $^ $(TOOLS_LDLIBS) -lgnutls

PROM_UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTDIR)/$(HOST_ARCH)/tests/%,$(wildcard tests/unit/test_prom_*.c))
PROM_TESTS	:= $(sort $(wildcard tests/prom/test_*.sh))

.PHONY: prom-unit check-prom check-prom-guest $(ARCHES:%=check-prom-guest-%)

prom-unit: $(PROM_UNIT_BINS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

check-prom: tools tools-dynamic
	@set -e; for t in $(PROM_TESTS); do echo "== $$t"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat \
		VMAPSTAT_DYNAMIC=$(DYN_O)/bin-dynamic/vmapstat TOPDIR=$(TOPDIR) bash $$t; done

check-prom-guest: $(ARCHES:%=check-prom-guest-%)

$(ARCHES:%=check-prom-guest-%): check-prom-guest-%: deps
	$(LAB) build --arch $* --variant patched >/dev/null
	$(MAKE) --no-print-directory tools-$*
	$(LAB) kmod --arch $* --variant patched tests/kmod/vmap_test >/dev/null
	$(LAB) kmod --arch $* --variant patched tests/kmod/snapshot_workload >/dev/null
	TOPDIR=$(TOPDIR) bash tests/prom/guest/run.sh $*

# The HTTP soak of docs/prometheus.md: a benchmark, not part of make check.
.PHONY: prom-soak
prom-soak: tools
	VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat TOPDIR=$(TOPDIR) bash tests/prom/soak_mixed.sh

CHECK_TARGETS	+= check-prom check-prom-guest
