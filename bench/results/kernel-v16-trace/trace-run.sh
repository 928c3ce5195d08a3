#!/bin/bash
# usage: trace-run.sh TAG VARIANT ITERS [CASE]   (env VMAPSCOPE_PATCHDIR optional)
tag=$1 v=$2 it=$3 case=${4:-vmalloc_frag_128K}
B=/var/cache/vmapscope/build/x86_64-$v
o=$(nm $B/mm/vmalloc.o | awk '$3=="vmalloc_dump_obj"{print $1}'); a=$(awk '$3=="vmalloc_dump_obj"{print $1}' $B/System.map); sz=$(size -A $B/mm/vmalloc.o | awk '$1==".text"{print $2}')
R=$(python3 -c "o=int('$o',16);a=int('$a',16);s=a-o;print(hex(s)+'..'+hex(s+$sz))")
cp $B/System.map /tmp/smap-$tag
cd /work/main
scripts/lab kmod --arch x86_64 --variant $v tests/kmod/vmap_bench >/dev/null || exit 1
PATH=${QWRAP_DIR:?directory holding qemu-wrapper.sh as qemu-system-x86_64}:$PATH QTRACE_RANGE=$R QTRACE_LOG=/tmp/qtrace-$tag-$it.log scripts/lab run --arch x86_64 --variant $v --icount --timeout 1200 -- sh -c 'for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && ITERS='$it' CASES='$case' exec sh $d/bench.sh; done' 2>&1 | grep "RESULT.*=ns"
