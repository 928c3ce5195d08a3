#!/bin/sh
exec /usr/bin/qemu-system-aarch64 -d in_asm,exec,nochain -dfilter "$QTRACE_RANGE" -D "$QTRACE_LOG" "$@"
