#!/bin/sh
# Put into a directory as qemu-system-x86_64 or qemu-system-aarch64: runs
# the real QEMU of that name with the translation-block log added.
exec "/usr/bin/$(basename "$0")" -d in_asm,exec,nochain -dfilter "$QTRACE_RANGE" -D "$QTRACE_LOG" "$@"
