# The perf AUX buffer path end to end (docs/trbe-spe.md, "The lab run"):
# perf core AUX allocation -> a PMU's setup_aux() -> vmap() -> the series'
# walker -> vmapstat, with tests/kmod/aux_test_pmu standing in for the Arm
# trace units QEMU does not have.
#
#   make check-aux-guest         stock and patched, x86_64 and arm64, then
#                                vmapstat compare of the --repeat 5 runs
#   make check-aux-guest-ARCH    one arch
#
# aux-record (tests/guest/aux/aux_record.c) is the "perf record -m ,SIZE"
# for that PMU, built static per arch; CC_<arch> comes from mk/build.mk.

.PHONY: check-aux-guest $(ARCHES:%=check-aux-guest-%)

$(OUTDIR)/aux/%/aux-record: tests/guest/aux/aux_record.c
	@mkdir -p $(@D)
	$(CC_$*) -static -O2 -Wall -Wextra -o $@ $<

$(ARCHES:%=check-aux-guest-%): check-aux-guest-%: deps tools-% $(OUTDIR)/aux/%/aux-record
	TOPDIR=$(TOPDIR) bash tests/guest/aux/run.sh $*

check-aux-guest: deps tools-all $(ARCHES:%=$(OUTDIR)/aux/%/aux-record)
	TOPDIR=$(TOPDIR) bash tests/guest/aux/run.sh $(ARCHES)

CHECK_TARGETS	+= check-aux-guest
