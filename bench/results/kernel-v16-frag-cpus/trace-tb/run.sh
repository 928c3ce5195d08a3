#!/bin/bash
# run.sh TAG VARIANT APPEND: one arm64 -icount boot of the fragmented-memory
# cases with QEMU's translation-block log over mm/'s text, leaving
# /tmp/qt-TAG.log, /tmp/qt-TAG.out and /tmp/smap-TAG.  QWRAP_DIR holds
# ../../kernel-v16-trace/qemu-wrapper.sh as qemu-system-aarch64.
tag=$1 v=$2 app=$3
cd "$(dirname "$0")/../../../.." || exit 1
cp /var/cache/vmapscope/build/arm64-$v/System.map /tmp/smap-$tag
PATH=${QWRAP_DIR:?directory holding qemu-wrapper.sh as qemu-system-aarch64}:$PATH \
QTRACE_RANGE=0xffff8000801e0000..0xffff800080262000 QTRACE_LOG=/tmp/qt-$tag.log \
	scripts/lab run --arch arm64 --variant $v --timeout 1800 --icount --append "$app" \
	-- env ITERS=30 CASES=frag sh -c 'for d in /opt/vmapscope/tests/kernel /opt/vmapscope/tests/guest/kernel; do [ -f $d/bench.sh ] && exec sh $d/bench.sh; done; echo "no bench.sh in the guest" >&2; exit 1' \
	>/tmp/qt-$tag.out 2>&1
grep -E 'kvmalloc_frag_128K metric=(inst|compact_stall)' /tmp/qt-$tag.out
