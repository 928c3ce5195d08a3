#!/bin/bash
# arm64 -icount: 4 more boots of each kernel, ioremap cases only
cd /work/main
G='for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && exec sh $d/bench.sh; done; exit 1'
for i in 2 3 4 5; do for v in stock patched; do
  scripts/lab run --arch arm64 --variant $v --timeout 900 --ivshmem 64 --icount -- env ITERS=30 FRAG=0 CASES=ioremap_1M,ioremap_64M sh -c "$G" > /tmp/reps/arm64-$v-icount-$i.txt 2>&1
done; done
echo done
