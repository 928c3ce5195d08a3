#!/usr/bin/env bash
# Live mapping audit, guest test: run guest.sh in the patched guest of
# ARCH (with an ivshmem BAR to ioremap) and check its output (check.py).
#   tests/guest/snapshot/run.sh x86_64|arm64 [VARIANT]
set -euo pipefail
arch=${1:?usage: run.sh x86_64|arm64 [variant]}
variant=${2:-patched}
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/out/lab/snapshot-$arch-$variant.log
mkdir -p "$(dirname "$out")"
"$top/scripts/lab" run --arch "$arch" --variant "$variant" --timeout 900 --ivshmem 64 \
	--script "$top/tests/guest/snapshot/guest.sh" >"$out"
python3 "$top/tests/guest/snapshot/check.py" "$arch" "$variant" "$out"
