# vmaptop: top-style live view (user/vmaptop.c, user/top/*.c).
#
# mk/build.mk builds out/<arch>/bin/vmaptop (static, x86_64 and arm64):
# user/vmaptop.c is a tool main file by name and user/top/*.c go into
# libvmapscope.a.  Unit tests (tests/unit/test_top_*.c) run in check-unit,
# host tests (tests/host/tools/vmaptop_host.sh: batch on this kernel;
# tests/host/tools/vmaptop_tui.sh: full screen driven in tmux) in check-host.
#
#   make check-guest-vmaptop   batch mode in the patched x86_64 and arm64
#                              guests against a workload with known callers
#   make bench-vmaptop         vmaptop's own CPU cost at a 1 s refresh

VMAPTOP_GUEST_ARCHES ?= $(ARCHES)

.PHONY: check-guest-vmaptop bench-vmaptop

check-guest-vmaptop: lab-kernels tools-all
	@set -e; for a in $(VMAPTOP_GUEST_ARCHES); do \
		echo "== vmaptop guest test ($$a)"; \
		TOPDIR=$(TOPDIR) bash tests/guest/vmaptop/run.sh $$a; done

CHECK_TARGETS	+= check-guest-vmaptop

# Not part of make check: a measurement for docs/benchmarks.md.
bench-vmaptop: tools
	TOPDIR=$(TOPDIR) bash tests/host/tools/vmaptop_bench.bash
