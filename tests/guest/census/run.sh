#!/usr/bin/env bash
# Host side of the census workload: build what the guest needs, boot the
# lab kernel of ARCH and VARIANT with an ivshmem device (vfio-pci maps its
# BAR), run guest.sh, keep the console log; in "short" mode (make check)
# check it with check.py.
#   tests/guest/census/run.sh x86_64|arm64 patched|stock [short|full]
# The log: $OUTDIR/census/census-ARCH-VARIANT-MODE.log
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
arch=${1:?usage: run.sh x86_64|arm64 patched|stock [short|full]}
variant=${2:?usage: run.sh x86_64|arm64 patched|stock [short|full]}
mode=${3:-short}
case "$mode" in short|full) ;; *) echo "run.sh: mode is short or full, not '$mode'" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/../../.." && pwd)
here=$top/tests/guest/census
export OUTDIR=${OUTDIR:-$top/out}
work=$OUTDIR/census
log=$work/census-$arch-$variant-$mode.log
mkdir -p "$work"

"$top/scripts/lab" build --arch "$arch" --variant "$variant" >/dev/null
make -C "$top" --no-print-directory OUTDIR="$OUTDIR" "tools-$arch" "census-bins-$arch" >/dev/null

# The erofs image: compressible text in files of several 64 KiB physical
# clusters, LZ4HC, fixed time and UUID (the same image on every run).
image=$work/census-$mode.erofs
if [ ! -f "$image" ]; then
	rm -rf "$work/erofs-root"
	mkdir -p "$work/erofs-root"
	python3 - "$work/erofs-root" "$mode" <<'EOF'
import sys
root, mode = sys.argv[1], sys.argv[2]
files, size = (16, 256 << 10) if mode == "short" else (64, 512 << 10)
for i in range(files):
    with open("%s/f%03d" % (root, i), "w") as f:
        n, line = 0, 0
        while n < size:
            s = "file %d line %d: the kernel's own callers of vmalloc, vmap, vm_map_ram and ioremap %x\n" % (
                i, line, (line * 2654435761) & 0xffff)
            f.write(s)
            n += len(s)
            line += 1
EOF
	mkfs.erofs --quiet -zlz4hc -C65536 -T0 -U 6e8f1c2a-0d4b-4c5e-9a7b-3f2e1d0c9b8a --all-root \
		"$image.tmp" "$work/erofs-root" && mv "$image.tmp" "$image"
	rm -rf "$work/erofs-root"
fi

wrapper=$work/guest-$mode.sh
printf '#!/bin/sh\nMODE=%s exec sh /opt/vmapscope/tests/census/guest.sh\n' "$mode" >"$wrapper"
timeout=900
[ "$mode" = short ] || timeout=1800
set +e
"$top/scripts/lab" run --arch "$arch" --variant "$variant" --timeout $timeout --mem 1024 \
	--ivshmem 32 --add "$image:/opt/vmapscope/extra/census.erofs" --script "$wrapper" >"$log" 2>&1
rc=$?
set -e
note "census guest ($arch $variant $mode): log $log"
[ "$rc" = 0 ] || { tail -n 20 "$log"; die "census guest ($arch $variant $mode) exited $rc"; }
pass "census guest ($arch $variant $mode) ran"
[ "$mode" = short ] || finish
python3 "$here/check.py" "$arch" "$variant" "$log" || fail "census check ($arch $variant)"
finish
