# The unit suite and the tools' host suite (the build is mk/build.mk).
#
#   make check-unit             cmocka unit tests (tests/unit/test_*.c, host arch)
#   make check-unit T=NAME      only tests/unit/test_NAME.c; NAME may be a shell
#                               pattern (T='prom_*') or several (T='rows vocab')
#   make check-host-tools       tests/host/tools/*.sh against this machine's
#                               kernel (root)
#
# Every suite's target is check-<where>-<topic>: it runs
# tests/<where>/<topic>/ (tests/README.md); check-unit-<topic> is
# check-unit T='<topic>_*'.

.PHONY: check-unit check-host-tools

# ---- unit tests (host arch, dynamic link with cmocka) --------------------
UNIT_BINS	:= $($(HOST_ARCH)_UNIT_BINS)
# T: the tests to run, by name (test_ optional) or shell pattern
unit_selected	 = $(patsubst tests/unit/%.c,$($(HOST_ARCH)_TESTDIR)/%,$(sort \
		   $(wildcard $(patsubst %,tests/unit/test_%.c,$(patsubst test_%,%,$(1))))))
UNIT_RUN	:= $(if $(T),$(or $(call unit_selected,$(T)),$(error check-unit: no tests/unit/test_$(T).c)),$(UNIT_BINS))

check-unit: $(UNIT_RUN) tools
	@set -e; for t in $(UNIT_RUN); do echo "== $$t"; VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat $$t; done

# ---- host tests (this machine's kernel; need root) -----------------------
HOST_TESTS	:= $(sort $(wildcard tests/host/tools/*.sh))

check-host-tools: tools
	@set -e; for t in $(HOST_TESTS); do echo "== $$t"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat TOPDIR=$(TOPDIR) bash $$t; done

CHECK_TARGETS	+= check-unit check-host-tools
