# The census: the kernel's own callers of vmalloc(), vmap(), vm_map_ram()
# and ioremap() under a realistic guest workload, stock kernel against the
# series (docs/census.md).
#
#   make census              the full workload on x86_64 and arm64, stock
#                            and patched, traced by vmapstat -p -j; writes
#                            docs/census.md
#   make check-guest-census  the short workload on the same four kernels:
#                            traced live areas against /proc/vmallocinfo,
#                            the snapshot against the kernel's page-table
#                            dump (x86_64) and a walk through /proc/kcore
#                            (tests/guest/census/check.py)
#
# The guest programs (tests/guest/census/*.c) are static binaries in
# out/<arch>/bin/, which every lab guest carries.

CENSUS_DIR	:= tests/guest/census
CENSUS_BINS	:= census-drive census-kwalk
CENSUS_VARIANTS	:= stock patched

.PHONY: census check-guest-census $(ARCHES:%=census-bins-%)

define census_arch_rules
census-bins-$(1): $(CENSUS_BINS:%=$(OUTDIR)/$(1)/bin/%)

$(OUTDIR)/$(1)/bin/census-drive: $(CENSUS_DIR)/drive.c
	@mkdir -p $$(@D)
	$$(CC_$(1)) -static -O2 -Wall -Wextra -o $$@ $$<

$(OUTDIR)/$(1)/bin/census-kwalk: $(CENSUS_DIR)/kwalk.c
	@mkdir -p $$(@D)
	$$(CC_$(1)) -static -O2 -Wall -Wextra -o $$@ $$<
endef
$(foreach a,$(ARCHES),$(eval $(call census_arch_rules,$(a))))

check-guest-census: deps
	@set -e; for a in $(ARCHES); do for v in $(CENSUS_VARIANTS); do \
		echo "== census guest test: $$a $$v"; \
		bash $(CENSUS_DIR)/run.sh $$a $$v short; done; done

census: deps
	@set -e; for a in $(ARCHES); do for v in $(CENSUS_VARIANTS); do \
		echo "== census: $$a $$v"; \
		bash $(CENSUS_DIR)/run.sh $$a $$v full; done; done
	python3 $(CENSUS_DIR)/report.py --out docs/census.md \
		$(foreach a,$(ARCHES),$(foreach v,$(CENSUS_VARIANTS),$(OUTDIR)/census/census-$(a)-$(v)-full.log))

CHECK_TARGETS	+= check-guest-census
