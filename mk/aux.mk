# The perf AUX buffer path end to end (docs/trbe-spe.md, "The lab run"):
# perf core AUX allocation -> a PMU's setup_aux() -> vmap() -> the series'
# walker -> vmapstat, with tests/kmod/aux_test_pmu standing in for the Arm
# trace units QEMU does not have.
#
#   make check-guest-aux         stock and patched, x86_64 and arm64, then
#                                vmapstat compare of the --repeat 5 runs
#   make check-guest-aux-ARCH    one arch
#
# aux-record (tests/guest/aux/aux_record.c) is the "perf record -m ,SIZE"
# for that PMU, built static per arch; CC_<arch> comes from mk/build.mk.

.PHONY: check-guest-aux $(ARCHES:%=check-guest-aux-%)

$(OUTDIR)/aux/%/aux-record: tests/guest/aux/aux_record.c
	@mkdir -p $(@D)
	$(CC_$*) -static -O2 -Wall -Wextra -o $@ $<

$(ARCHES:%=check-guest-aux-%): check-guest-aux-%: deps tools-% $(OUTDIR)/aux/%/aux-record
	TOPDIR=$(TOPDIR) bash tests/guest/aux/run.sh $*

check-guest-aux: deps tools-all $(ARCHES:%=$(OUTDIR)/aux/%/aux-record)
	TOPDIR=$(TOPDIR) bash tests/guest/aux/run.sh $(ARCHES)

CHECK_TARGETS	+= check-guest-aux
