# The snapshot: the page tables of live mappings (vmapstat --snapshot).
#
#   make check-host-snapshot   this machine's kernel: real areas, or the
#                              exact list of what it hides
#   make check-guest-snapshot  x86_64 and arm64 guests, patched and stock: a
#                              workload's live mappings, exact bytes per
#                              granule and mapping potential; x86_64 also
#                              against the kernel's own page-table dump
#   make bench-snapshot        cost of one snapshot with thousands of areas

SNAP_KMOD	:= tests/kmod/snapshot_workload
SNAP_GUEST	:= tests/guest/snapshot

.PHONY: check-host-snapshot check-guest-snapshot bench-snapshot \
	$(ARCHES:%=snapshot-kmod-%)

define snapshot_arch_rules
snapshot-kmod-$(1):
	scripts/lab kmod --arch $(1) --variant patched $(SNAP_KMOD) >/dev/null
	scripts/lab kmod --arch $(1) --variant stock $(SNAP_KMOD) >/dev/null
endef
$(foreach a,$(ARCHES),$(eval $(call snapshot_arch_rules,$(a))))

check-host-snapshot: $(OUTDIR)/$(HOST_ARCH)/bin/vmapstat
	VMAPSNAP="$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat --snapshot" TOPDIR=$(TOPDIR) \
		bash tests/host/snapshot/snapshot.sh

check-guest-snapshot: $(ARCHES:%=$(OUTDIR)/%/bin/vmapstat) $(ARCHES:%=snapshot-kmod-%)
	@set -e; for a in $(ARCHES); do for v in patched stock; do \
		echo "== snapshot guest test: $$a $$v"; \
		bash $(SNAP_GUEST)/run.sh $$a $$v; done; done

bench-snapshot: $(ARCHES:%=$(OUTDIR)/%/bin/vmapstat) $(ARCHES:%=snapshot-kmod-%)
	@set -e; for a in $(ARCHES); do \
		echo "== snapshot benchmark: $$a"; \
		scripts/lab run --arch $$a --variant patched --timeout 900 \
			--script $(SNAP_GUEST)/bench.sh | grep '^@@BENCH'; done

CHECK_TARGETS	+= check-host-snapshot check-guest-snapshot
