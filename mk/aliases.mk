# The test targets' names before they followed one rule, check-<where>-<topic>
# (mk/tools.mk, tests/README.md).  Each old name still runs its suite, for
# this release only, and says what it is called now.

TARGET_ALIASES	:= check-host:check-host-tools check-prom:check-host-prom \
		   prom-unit:check-unit-prom check-prom-guest:check-guest-prom \
		   pmu-unit:check-unit-pmu check-pmu-guest:check-guest-pmu \
		   check-snapshot-host:check-host-snapshot \
		   check-snapshot-guest:check-guest-snapshot \
		   check-vmaptop-guest:check-guest-vmaptop check-aux-guest:check-guest-aux \
		   check-deploy-unit:check-host-deploy-files check-deploy:check-host-deploy \
		   check-install:check-host-install check-kernel:check-guest-kernel \
		   check-kernel-debug:check-guest-kernel-debug check-lab:check-guest-lab \
		   checkpatch:check-series-checkpatch check-census-guest:check-guest-census \
		   $(foreach a,$(ARCHES),check-prom-guest-$(a):check-guest-prom-$(a) \
			check-aux-guest-$(a):check-guest-aux-$(a) \
			check-kernel-$(a):check-guest-kernel-$(a) \
			check-kernel-debug-$(a):check-guest-kernel-debug-$(a))

define target_alias
.PHONY: $(1)
$(1): $(2)
	@echo "make $(1) is now make $(2); the old name goes after this release" >&2
endef
$(foreach p,$(TARGET_ALIASES),$(eval $(call target_alias,$(word 1,$(subst :, ,$(p))),$(word 2,$(subst :, ,$(p))))))
