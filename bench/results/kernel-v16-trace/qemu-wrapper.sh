#!/bin/sh
exec /usr/bin/qemu-system-x86_64 -d in_asm,exec,nochain -dfilter "$QTRACE_RANGE" -D "$QTRACE_LOG" "$@"
