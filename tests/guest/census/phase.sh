#!/bin/sh
# The traced part of the census workload (guest.sh runs it under
# "vmapstat -p -j -- sh phase.sh"): the kernel's own callers of vmalloc(),
# vmap(), vm_map_ram() and ioremap(), driven by ordinary tools and
# census-drive.  Everything that census-drive maps stays mapped: it keeps
# running, in the background, after this script has ended; guest.sh ends it
# once the live areas have been read.
#
# Environment (from guest.sh): MODE (short|full), BDF (the ivshmem
# device, or empty), OUT (a directory for what guest.sh prints).  A step
# that fails is written to $OUT/phase.err and the rest still runs:
# check.py names it.
C=/opt/vmapscope/tests/census
step() {
	"$@" || echo "phase: '$*' failed (exit $?)" >>$OUT/phase.err
}
forks=200
[ "$MODE" != full ] || forks=2000

# The areas that were there before: the live comparison looks at the
# areas made from here on only (vmapstat's own BPF programs are older).
# vmapstat may still be freeing programs it loaded and dropped while it
# started (a BPF program is freed by deferred work): wait until the BPF
# programs' areas stay the same for half a second, or a freed one's range
# could come back as one of census-drive's, under the same caller, and be
# taken for an area that was there before.
prev= i=0
while [ $i -lt 40 ]; do
	cur=$(grep bpf_prog_alloc /proc/vmallocinfo)
	[ "$cur" != "$prev" ] || break
	prev=$cur
	sleep 0.5
	i=$((i + 1))
done
cat /proc/vmallocinfo >$OUT/vmallocinfo-before

# On a series kernel, the kernel's own account of the same mapping calls:
# vmalloc:vmap_mapped through tracefs, whose lines print each call's
# fallback reasons and caller, next to what vmapstat makes of the same
# events (check.py and report.py compare the two per caller).  From here
# to the end of this script: inside vmapstat's traced run.
T=/sys/kernel/tracing
tracefs=
if [ -d $T/events/vmalloc/vmap_mapped ]; then
	tracefs=1
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/vmalloc/vmap_mapped/enable
	echo 1 >$T/tracing_on
fi

# Module loading: execmem areas for the modules' text and data, the
# vmalloc() copy of each .ko file while it is loaded.  vim2m and its
# media modules are loaded and unloaded three times first, so that the
# modules loaded next may take text addresses they had.
i=0
while [ $i -lt 3 ]; do
	step modprobe vim2m
	step modprobe -r vim2m
	i=$((i + 1))
done
# libcrc32c asks the crypto API for crc32c, which the kernel would load
# through /sbin/modprobe: the guest has busybox's in /bin.
echo /bin/modprobe >/proc/sys/kernel/modprobe
step modprobe crc32c_generic
step modprobe erofs
step modprobe vim2m
step modprobe vfio enable_unsafe_noiommu_mode=1
step modprobe vfio-pci

# fork/exec: thread stacks (VMAP_STACK), from the per-CPU cache or vmalloc().
i=0
while [ $i -lt $forks ]; do
	/bin/true
	i=$((i + 1))
done

# erofs, LZ4 with 64 KiB physical clusters: vm_map_ram() of the pages a
# cluster decompresses into, vmap() of the per-CPU decompression buffers.
# erofs reads an image file through its address space's read_folio(),
# which tmpfs (the initramfs) lacks and ramfs has.
mkdir -p /mnt/erofs /mnt/image
step mount -t ramfs none /mnt/image
step cp /opt/vmapscope/extra/census.erofs /mnt/image/
step census-drive mount erofs /mnt/image/census.erofs /mnt/erofs
step cat /mnt/erofs/f000 /mnt/erofs/f001 /mnt/erofs/f002 /mnt/erofs/f003
cat /mnt/erofs/* >/dev/null 2>&1
if [ "$MODE" = full ]; then
	echo 3 >/proc/sys/vm/drop_caches
	cat /mnt/erofs/* >/dev/null 2>&1
fi

# ACPI tables (x86_64): the ACPI core ioremap()s each table it reads.
[ ! -d /sys/firmware/acpi/tables ] || cat /sys/firmware/acpi/tables/* >/dev/null 2>&1 || true

# vfio-pci for the ivshmem device, so that census-drive can read its BAR.
vfio=
if [ -n "$BDF" ]; then
	step sh -c "echo vfio-pci >/sys/bus/pci/devices/$BDF/driver_override"
	step sh -c "echo $BDF >/sys/bus/pci/drivers_probe"
	group=$(basename "$(readlink /sys/bus/pci/devices/$BDF/iommu_group)")
	vfio=vfio=/dev/vfio/noiommu-$group,$BDF,2
fi

video=
for v in /sys/class/video4linux/video*; do
	case "$(cat $v/name 2>/dev/null)" in vim2m*) video=/dev/${v##*/} ;; esac
done

rm -f $OUT/ready
setsid census-drive -r $OUT/ready bpf iouring ${video:+v4l2=$video} $vfio \
	>$OUT/drive.log 2>&1 </dev/null &
echo $! >$OUT/drive.pid
i=0
while [ ! -f $OUT/ready ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -f $OUT/ready ] || echo "phase: census-drive never became ready" >>$OUT/phase.err

# The live areas at the end of the traced run.
cat /proc/vmallocinfo >$OUT/vmallocinfo-after

# The tracefs lines, counted per (API, fallback reasons, caller function)
# while the modules that made them are still loaded (%pS resolves when
# read; a caller in a module unloaded since prints as an address), and
# what the ring buffer lost.
if [ -n "$tracefs" ]; then
	echo 0 >$T/tracing_on
	echo 0 >$T/events/vmalloc/vmap_mapped/enable
	sed -n 's/.* vmap_mapped: .* api=\([a-z_]*\) .* fallbacks=\([a-z|]*\) .* caller=\([^+ ]*\)[^ ]*\(.*\)$/\1 \2 \3\4/p' \
		$T/trace | sort | uniq -c >$OUT/tracefs-mapped
	cat $T/per_cpu/cpu*/stats | sed -n 's/^overrun: //p' | {
		n=0
		while read o; do n=$((n + o)); done
		echo "overrun=$n lines=$(grep -c ' vmap_mapped: ' $T/trace)"
	} >>$OUT/tracefs-mapped
	echo >$T/trace
fi
