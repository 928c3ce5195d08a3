# The unit and host suites of the tools (the build is mk/build.mk).
#
#   make check-unit       cmocka unit tests (tests/unit/test_*.c, host arch)
#   make check-host       tests/host/tools/*.sh against this machine's kernel (root)

.PHONY: check-unit check-host

# ---- unit tests (host arch, dynamic link with cmocka) --------------------
UNIT_BINS	:= $($(HOST_ARCH)_UNIT_BINS)

check-unit: $(UNIT_BINS) tools
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat $$t; done

# ---- host tests (this machine's kernel; need root) -----------------------
HOST_TESTS	:= $(sort $(wildcard tests/host/tools/*.sh))

check-host: tools
	@set -e; for t in $(HOST_TESTS); do echo "== $$t"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat TOPDIR=$(TOPDIR) bash $$t; done

CHECK_TARGETS	+= check-unit check-host
