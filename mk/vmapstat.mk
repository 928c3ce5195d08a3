# vmapstat guest tests: the workload module's known mappings, recorded by
# vmapstat -p -j and by tracefs in the same run, on both patched kernels.
#   make check-guest-vmapstat          patched and stock, x86_64 and arm64
#   make check-guest-vmapstat-ARCH     one patched arch
#   make check-guest-vmapstat-ARCH-stock   a kernel without the series: the
#                                      degraded report, and callers named
#                                      by kernel stack
# Kernels come from the lab cache (scripts/lab build); builds run one at a
# time because each arch is run in turn.

.PHONY: check-guest-vmapstat $(ARCHES:%=check-guest-vmapstat-%) \
	$(ARCHES:%=check-guest-vmapstat-%-stock)

$(ARCHES:%=check-guest-vmapstat-%): check-guest-vmapstat-%: deps
	tests/guest/vmapstat/run.sh $*

$(ARCHES:%=check-guest-vmapstat-%-stock): check-guest-vmapstat-%-stock: deps
	tests/guest/vmapstat/run.sh $* stock

check-guest-vmapstat: $(ARCHES:%=check-guest-vmapstat-%) $(ARCHES:%=check-guest-vmapstat-%-stock)

CHECK_TARGETS += check-guest-vmapstat
