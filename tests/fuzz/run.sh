#!/usr/bin/env bash
# Run one libFuzzer target of tests/fuzz (mk/fuzz.mk):
#
#   run.sh BIN_DIR TARGET replay|RUNS|long:SECONDS
#
# First every input of tests/fuzz/regressions/TARGET/ (crashes found
# earlier, fixed since) and of the seed corpus runs once; then, unless
# "replay", the fuzzer mutates from the seed corpus for RUNS inputs with a
# fixed seed (the same inputs every time: make check-fuzz), or for
# SECONDS with a random one (make check-fuzz-long).  New coverage goes to
# a scratch corpus under BIN_DIR/work, never into the repository; a crash
# is written to BIN_DIR/artifacts/TARGET/ and fails the run.
set -euo pipefail

bin_dir=$1 target=$2 mode=$3
. "$(dirname "$0")/../lib/harness.sh"
HARNESS_NAME=fuzz_$target
here=$(cd "$(dirname "$0")" && pwd)
bin=$bin_dir/fuzz_$target
seeds=$here/corpus/$target
regr=$here/regressions/$target
dict=$here/dict/$target.dict
art=$bin_dir/artifacts/$target/
# The bounded run starts from the seeds alone each time (same inputs, same
# time); the long runs keep what they found for the next long run.
case $mode in
long:*)	work=$bin_dir/work/long/$target ;;
*)	work=$bin_dir/work/check/$target; rm -rf "$work" ;;
esac
mkdir -p "$work" "$art"

# Sanitizer reports: whole stacks; leaks count (libFuzzer checks each input).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

common=(-timeout=10 -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$art"
	-close_fd_mask=1 -print_final_stats=0)
[ -f "$dict" ] && common+=(-dict="$dict")

on_fail() {
	echo "fuzz $target: reproduce with: $bin ${common[*]} <input>"
	echo "fuzz $target: once fixed, keep the input in tests/fuzz/regressions/$target/"
}

replay=()
for d in "$regr" "$seeds"; do
	[ -d "$d" ] && while IFS= read -r -d '' f; do replay+=("$f"); done \
		< <(find "$d" -type f ! -name '.*' ! -name 'README*' -print0 | sort -z)
done
if [ ${#replay[@]} -gt 0 ]; then
	"$bin" "${common[@]}" -runs=1 "${replay[@]}" >"$work/replay.log" 2>&1 ||
		{ tail -60 "$work/replay.log"; die "a regression or seed input fails"; }
fi
pass "replayed ${#replay[@]} inputs"
[ "$mode" = replay ] && finish

case $mode in
long:*)	limits=(-max_total_time="${mode#long:}" -seed=0) ;;
*)	limits=(-runs="$mode" -seed=1) ;;
esac
start=$(date +%s%N)
"$bin" "${common[@]}" "${limits[@]}" "$work" "$seeds" >"$work/fuzz.log" 2>&1 ||
	{ tail -80 "$work/fuzz.log"; die "crash (artifact in $art)"; }
end=$(date +%s%N)
stats=$(grep -E '^#[0-9]+' "$work/fuzz.log" | tail -1 | sed -E 's/^#([0-9]+).*cov: ([0-9]+).*/\1 runs, cov \2/') || true
ms=$(((end - start) / 1000000))
pass "$(printf '%s, %d.%d s' "${stats:-done}" $((ms / 1000)) $((ms % 1000 / 100)))"
finish
