# PMU counting, --repeat tables, "vmapstat compare" and sample attribution
# The sources (user/pmu/*.c; the sampler's BPF side is bpf/area_track.h in
# the collector's object) are built into libvmapscope.a / vmapstat by
# mk/build.mk's wildcards (libpfm4 for event names that are not sysfs
# aliases), and the unit tests tests/unit/test_pmu_*.c run in check-unit.  This file adds:
#
#   make check-unit-pmu         the PMU unit tests alone
#   make check-guest-pmu  guest tests (tests/guest/pmu/*.sh) on the patched
#                         x86_64 and arm64 kernels: software events and the
#                         ENOENT line on x86_64, cpu_cycles / multiplexing /
#                         the zero flag on arm64's PMUv3, --repeat around a
#                         real perf record where out/<arch>/bin/perf exists
#   make perf-tools       scripts/build-perf: static perf for both arches

.PHONY: check-unit-pmu check-guest-pmu perf-tools

check-unit-pmu:
	@$(MAKE) --no-print-directory check-unit T='pmu_*'

perf-tools: deps
	scripts/build-perf

check-guest-pmu: lab-kernels tools-all perf-tools
	TOPDIR=$(TOPDIR) bash tests/guest/pmu/lab.sh

CHECK_TARGETS	+= check-guest-pmu
