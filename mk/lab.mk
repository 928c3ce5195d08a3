# The QEMU kernel lab: scripts/lab builds cached kernels and runs guests.

LAB		:= scripts/lab
DEMO_ARCH	?= x86_64

.PHONY: demo lab-kernels check-guest-lab

# Build (or find cached) the stock and patched kernels "make check" needs,
# one at a time: there are two cores and each build uses both.  Per arch,
# the patched kernel is the stock build plus the whole series, incremental
# in one tree (scripts/lab series-build --whole).
lab-kernels: deps
	@echo "lab: kernel source $$($(LAB) source)"
	@set -e; for a in $(ARCHES); do \
		$(LAB) series-build --arch $$a --whole; \
		$(LAB) build --arch $$a --variant patched >/dev/null; \
	done

# The README's main job: the patched x86_64 guest, a workload, and what
# vmapscope (or, before the tools exist, the kernel's tracepoints) saw.
demo: deps
	$(LAB) build --arch $(DEMO_ARCH) --variant patched >/dev/null
	$(MAKE) --no-print-directory tools-$(DEMO_ARCH)
	$(LAB) run --arch $(DEMO_ARCH) --variant patched --timeout 600 --script scripts/guest/demo.sh

check-guest-lab: lab-kernels
	tests/guest/lab/run.sh

CHECK_TARGETS += check-guest-lab
