# PMU counting, --repeat tables, "vmapstat compare" and sample attribution
# The sources (user/pmu_*.c, bpf/pmu_sample.bpf.c) are built into
# libvmapscope.a / vmapstat by mk/tools.mk's wildcards, and the unit tests
# tests/unit/test_pmu_*.c run in its check-unit.  This file adds:
#
#   make pmu-unit         the PMU unit tests alone, built from the PMU sources
#                         only (quick iteration, independent of other modules)
#   make check-pmu-guest  guest tests (tests/guest/pmu/*.sh) on the patched
#                         x86_64 and arm64 kernels: software events and the
#                         ENOENT line on x86_64, cpu_cycles / multiplexing /
#                         the zero flag on arm64's PMUv3, --repeat around a
#                         real perf record where out/<arch>/bin/perf exists
#   make perf-tools       scripts/build-perf: static perf for both arches

PMU_SRCS	:= $(wildcard user/pmu_*.c) user/hooks.c user/ksyms.c
PMU_SKEL	:= $(OUTDIR)/$(HOST_ARCH)/include/pmu_sample.skel.h
PMU_UNIT_SRCS	:= $(wildcard tests/unit/test_pmu_*.c)
PMU_UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTDIR)/pmu-unit/%,$(PMU_UNIT_SRCS))
PMU_CFLAGS	:= -g -O2 -Wall -Wextra -Wno-unused-parameter \
		   -Wno-missing-field-initializers -D_GNU_SOURCE -std=gnu11 \
		   -Iinclude -Iuser -I$(OUTDIR)/$(HOST_ARCH)/include \
		   -DPMU_FIXTURE_DIR='"$(TOPDIR)/tests/fixtures/pmu"'

.PHONY: pmu-unit check-pmu-guest perf-tools

$(OUTDIR)/pmu-unit/test_pmu_%: tests/unit/test_pmu_%.c $(PMU_SRCS) $(wildcard user/pmu_*.h) $(PMU_SKEL)
	@mkdir -p $(@D)
	$(CC) $(PMU_CFLAGS) -o $@ $< $(PMU_SRCS) -ljson-c -lbpf -lelf -lz -lcmocka

pmu-unit: $(PMU_UNIT_BINS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

perf-tools: deps
	scripts/build-perf

check-pmu-guest: lab-kernels tools-all perf-tools
	TOPDIR=$(TOPDIR) bash tests/guest/pmu/lab.sh

CHECK_TARGETS	+= check-pmu-guest
