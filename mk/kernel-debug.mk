# The debug kernels' race and NUMA suites, part of check-guest-kernel-debug
# (docs/lab.md, "The race suites and the NUMA guest"):
#
#   make check-guest-kcore-race-ARCH  /proc/kcore read while vmalloc areas of
#                            every granule are mapped and freed
#                            (tests/guest/kernel/kcore_race.sh)
#   make check-guest-poison-race-ARCH memory_failure() racing vfree() of
#                            huge vmalloc() blocks; no poisoned page left
#                            free or handed out
#                            (tests/guest/kernel/poison_race.sh); on
#                            arm64 a second boot with inject=3, where
#                            memory_failure() gives up on every page
#                            poisoned between free_split_page_block()'s
#                            test and the free, and the free path's
#                            second test must take each off
#   make check-guest-numa-ARCH        vmalloc()'s node handling on a guest
#                            with two nodes (tests/guest/kernel/numa.sh);
#                            arm64 only in check-guest-kernel-debug: the
#                            x86_64 debug kernel has no NUMA
#                            (configs/arm64-debug.config says why)
#
# kcore_race.sh's reader is a static guest program in out/<arch>/bin/,
# which every lab guest carries.

VMAP_RACE	:= tests/kmod/vmap_race
VMAP_POISON	:= tests/kmod/vmap_poison
VMAP_NUMA	:= tests/kmod/vmap_numa
NUMA_ARCHES	:= arm64
# The x86_64 debug guest has one CPU: no shot lands between the test and
# the free there, so inject=3 would change nothing.
POISON_HELD_ARCHES := arm64

.PHONY: $(ARCHES:%=check-guest-kcore-race-%) $(ARCHES:%=check-guest-poison-race-%) \
	$(ARCHES:%=check-guest-numa-%)

define kcore_reader_rule
$(OUTDIR)/$(1)/bin/kcore-reader: tests/guest/kernel/kcore_reader.c
	@mkdir -p $$(@D)
	$$(CC_$(1)) -static -O2 -Wall -Wextra -o $$@ $$<
endef
$(foreach a,$(ARCHES),$(eval $(call kcore_reader_rule,$(a))))

$(ARCHES:%=check-guest-kcore-race-%): check-guest-kcore-race-%: deps $(OUTDIR)/%/bin/kcore-reader
	$(LAB) build --arch $* --variant debug >/dev/null
	$(LAB) kmod --arch $* --variant debug $(VMAP_RACE) >/dev/null
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) -- $(call kguest,kcore_race.sh)

$(ARCHES:%=check-guest-poison-race-%): check-guest-poison-race-%: deps
	$(LAB) build --arch $* --variant debug >/dev/null
	$(LAB) kmod --arch $* --variant debug $(VMAP_POISON) >/dev/null
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) -- $(call kguest,poison_race.sh)
	$(if $(filter $*,$(POISON_HELD_ARCHES)),$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) \
		-- env POISON_ARGS=inject=3 POISON_MAX=8 $(call kguest,poison_race.sh))

$(ARCHES:%=check-guest-numa-%): check-guest-numa-%: deps
	$(LAB) build --arch $* --variant debug >/dev/null
	$(LAB) kmod --arch $* --variant debug $(VMAP_NUMA) >/dev/null
	$(LAB) run --arch $* --variant debug --timeout $(KTIMEOUT) --numa 2 -- $(call kguest,numa.sh)

check-guest-kernel-debug: $(ARCHES:%=check-guest-kcore-race-%) $(ARCHES:%=check-guest-poison-race-%) \
	$(NUMA_ARCHES:%=check-guest-numa-%)
