#!/bin/bash
cd /work/main
G='for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && exec sh $d/bench.sh; done; exit 1'
export VMAPSCOPE_PATCHDIR=/tmp/v14p/kernel-patches/linux-6.12
scripts/lab build --arch arm64 --variant patched || exit 1
scripts/lab kmod --arch arm64 --variant patched tests/kmod/vmap_bench >/dev/null || exit 1
for i in 1 2 3; do
  scripts/lab run --arch arm64 --variant patched --timeout 900 --icount -- env ITERS=30 FRAG=0 CASES=vfree_huge_1M,vfree_huge_2M sh -c "$G" > /tmp/reps/arm64-v14-vfree-$i.txt 2>&1
done
unset VMAPSCOPE_PATCHDIR
scripts/lab kmod --arch arm64 --variant patched tests/kmod/vmap_bench >/dev/null || exit 1
for i in 1 2 3; do
  scripts/lab run --arch arm64 --variant patched --timeout 900 --icount -- env ITERS=30 FRAG=0 CASES=vfree_huge_1M,vfree_huge_2M sh -c "$G" > /tmp/reps/arm64-v15-vfree-$i.txt 2>&1
done
echo done
