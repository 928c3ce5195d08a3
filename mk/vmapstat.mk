# vmapstat guest tests: the workload module's known mappings, recorded by
# vmapstat -p -j and by tracefs in the same run, on both patched kernels.
#   make check-guest-vmapstat          patched and stock, x86_64 and arm64
#   make check-guest-vmapstat-ARCH     one patched arch
#   make check-guest-vmapstat-ARCH-stock   a kernel without the series: the
#                                      degraded report, and callers named
#                                      by kernel stack
# Kernels come from the lab cache (scripts/lab build); builds run one at a
# time because each arch is run in turn.

.PHONY: check-guest-vmapstat check-guest-vmapstat-x86_64 check-guest-vmapstat-arm64 \
	check-guest-vmapstat-x86_64-stock check-guest-vmapstat-arm64-stock

check-guest-vmapstat-x86_64: deps
	tests/guest/vmapstat/run.sh x86_64

check-guest-vmapstat-arm64: deps
	tests/guest/vmapstat/run.sh arm64

check-guest-vmapstat-x86_64-stock: deps
	tests/guest/vmapstat/run.sh x86_64 stock

check-guest-vmapstat-arm64-stock: deps
	tests/guest/vmapstat/run.sh arm64 stock

check-guest-vmapstat: check-guest-vmapstat-x86_64 check-guest-vmapstat-arm64 \
	check-guest-vmapstat-x86_64-stock check-guest-vmapstat-arm64-stock

CHECK_TARGETS += check-guest-vmapstat
