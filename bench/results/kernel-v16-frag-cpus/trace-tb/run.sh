#!/bin/bash
# qtrun.sh TAG VARIANT APPEND
tag=$1 v=$2 app=$3
cd /work/main
cp /var/cache/vmapscope/build/arm64-$v/System.map /tmp/smap-$tag
start=$(date +%s)
PATH=/tmp/qwrap:$PATH QTRACE_RANGE=0xffff8000801e0000..0xffff800080262000 QTRACE_LOG=/tmp/qt-$tag.log scripts/lab run --arch arm64 --variant $v --timeout 1800 --icount --append "$app" -- env ITERS=30 CASES=frag sh -c 'for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && exec sh $d/bench.sh; done; echo "no bench.sh in the guest" >&2; exit 1' > /tmp/qt-$tag.out 2>&1
echo "$tag $(( $(date +%s) - start ))s $(grep -E 'kvmalloc_frag_128K metric=(inst|compact_stall)' /tmp/qt-$tag.out | sed 's/.*median=\([0-9]*\).*total=\([0-9]*\)/stalls=\2/;s/.*metric=inst median=\([0-9]*\).*/inst=\1/' | tr '\n' ' ') $(ls -la /tmp/qt-$tag.log | awk '{print $5}')"
