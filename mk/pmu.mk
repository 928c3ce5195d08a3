# PMU counting, --repeat tables, "vmapstat compare" and sample attribution
# The sources (user/pmu/*.c; the sampler's BPF side is bpf/area_track.h in
# the collector's object) are built into libvmapscope.a / vmapstat by
# mk/build.mk's wildcards (libpfm4 for event names that are not sysfs
# aliases), and the unit tests tests/unit/test_pmu_*.c run in check-unit.  This file adds:
#
#   make pmu-unit         the PMU unit tests alone
#   make check-pmu-guest  guest tests (tests/guest/pmu/*.sh) on the patched
#                         x86_64 and arm64 kernels: software events and the
#                         ENOENT line on x86_64, cpu_cycles / multiplexing /
#                         the zero flag on arm64's PMUv3, --repeat around a
#                         real perf record where out/<arch>/bin/perf exists
#   make perf-tools       scripts/build-perf: static perf for both arches

PMU_UNIT_BINS	:= $(patsubst tests/unit/%.c,$($(HOST_ARCH)_TESTDIR)/%,$(wildcard tests/unit/test_pmu_*.c))

.PHONY: pmu-unit check-pmu-guest perf-tools

pmu-unit: $(PMU_UNIT_BINS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

perf-tools: deps
	scripts/build-perf

check-pmu-guest: lab-kernels tools-all perf-tools
	TOPDIR=$(TOPDIR) bash tests/guest/pmu/lab.sh

CHECK_TARGETS	+= check-pmu-guest
