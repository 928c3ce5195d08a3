#!/bin/sh
# Guest side of "make demo": map memory through vmalloc while vmapscope
# watches, then print what was seen.  Runs inside the lab guest.
set -u
T=/sys/kernel/tracing
mod=$(find /lib/modules -name test_vmalloc.ko | head -n1)
# The workload: plain and huge vmalloc (use_huge=1 asks for PMD / cont-PTE).
cat >/tmp/workload.sh <<W
#!/bin/sh
kload -e 11 $mod run_test_mask=1 test_loop_count=200 nr_threads=1 >/dev/null
kload -e 11 $mod run_test_mask=1 test_loop_count=50 nr_threads=1 use_huge=1 nr_pages=512 >/dev/null
W
chmod +x /tmp/workload.sh

echo "== kernel: $(uname -r) ($(uname -m))"
if command -v vmapstat >/dev/null 2>&1; then
	echo "== vmapstat -p -- test_vmalloc (plain, then use_huge=1 nr_pages=512)"
	exec vmapstat -p -- /tmp/workload.sh
fi
echo "== vmapstat is not built yet: showing the kernel's vmalloc tracepoints"
ls $T/events/vmalloc/
for e in $T/events/vmalloc/*/enable; do echo 1 >"$e"; done
/tmp/workload.sh
for e in $T/events/vmalloc/*/enable; do echo 0 >"$e"; done
echo "== events per tracepoint"
grep -v '^#' $T/trace | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[a-z_]+:$/) { sub(":", "", $i); n[$i]++; break } }
	END { for (e in n) printf "%8d %s\n", n[e], e }' | sort -k2
echo "== first events"
grep -v '^#' $T/trace | head -n 12
