# Prometheus export of vmapstat: --listen, --textfile, --prometheus,
# --top-callers.  The sources (user/prom/*.c) are built like every other
# (mk/build.mk: the library, the libraries it links, the dynamic build with
# TLS and the static one with user/prom/prom_tls_stubs.c), and the unit tests
# (tests/unit/test_prom_*.c) run in check-unit.  This file adds:
#
#   make check-unit-prom     the Prometheus unit tests alone
#   make check-host-prom    tests/host/prom/*.sh on this machine (root; BPF on the host
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
#   make check-guest-prom   on the patched x86_64 and arm64 lab kernels (the
#                      host kernel lacks the series' tracepoints): the
#                      vmap_test workload under vmapstat -p -j --textfile;
#                      promtool, textfile == sum of the -j intervals, 2M
#                      and 4K mappings, chunk and latency histograms.
#   make check-guest-prom-native   on the same kernels: the protobuf
#                      exposition of vmapstat --web.listen-address in the
#                      guest, replayed to a real Prometheus with native
#                      histograms; chunk-length and mapping-latency
#                      native histograms against the -j intervals and,
#                      bucket by bucket, the kernel's vmap_mapped lines.

PROM_TESTS	:= $(sort $(wildcard tests/host/prom/test_*.sh))

.PHONY: check-unit-prom check-host-prom check-guest-prom $(ARCHES:%=check-guest-prom-%) \
	check-guest-prom-native $(ARCHES:%=check-guest-prom-native-%)

check-unit-prom:
	@$(MAKE) --no-print-directory check-unit T='prom_*'

check-host-prom: tools tools-dynamic
	@set -e; for t in $(PROM_TESTS); do echo "== $$t"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat \
		VMAPSTAT_DYNAMIC=$(dynamic_BINDIR)/vmapstat TOPDIR=$(TOPDIR) bash $$t; done

check-guest-prom: $(ARCHES:%=check-guest-prom-%)

$(ARCHES:%=check-guest-prom-%): check-guest-prom-%: deps
	$(LAB) build --arch $* --variant patched >/dev/null
	$(MAKE) --no-print-directory tools-$*
	$(LAB) kmod --arch $* --variant patched tests/kmod/vmap_test >/dev/null
	$(LAB) kmod --arch $* --variant patched tests/kmod/snapshot_workload >/dev/null
	TOPDIR=$(TOPDIR) bash tests/guest/prom/run.sh $*

check-guest-prom-native: $(ARCHES:%=check-guest-prom-native-%)

$(ARCHES:%=check-guest-prom-native-%): check-guest-prom-native-%: deps
	$(LAB) build --arch $* --variant patched >/dev/null
	$(MAKE) --no-print-directory tools-$*
	$(LAB) kmod --arch $* --variant patched tests/kmod/vmap_test >/dev/null
	TOPDIR=$(TOPDIR) bash tests/guest/prom/native.sh $*

# The HTTP soak of docs/prometheus.md: a benchmark, not part of make check.
.PHONY: prom-soak
prom-soak: tools
	VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat TOPDIR=$(TOPDIR) bash tests/host/prom/soak_mixed.sh

CHECK_TARGETS	+= check-host-prom check-guest-prom check-guest-prom-native
