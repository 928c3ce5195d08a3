#!/usr/bin/env bash
# vmaptop guest test, host side: build the workload module for ARCH's
# patched kernel, boot the guest, run guest.sh, and check the last batch
# frame: one row per workload caller, with the API, the number of
# mappings (vmap_mapped events, one per call), the granule shares the
# series must produce on ARCH, chunk and mapping-latency columns, no
# call-latency column (not asked for), and exactly one live area each.
#
# usage: run.sh ARCH   (x86_64 | arm64)
set -euo pipefail
. "$(dirname "$0")/../../lib/harness.sh"
TOP=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
LAB=$TOP/scripts/lab
arch=${1:?usage: run.sh x86_64|arm64}
LOOPS=50
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$TOP/out/$arch/bin/vmaptop" ] || die "out/$arch/bin/vmaptop missing (make tools-$arch)"
# VMAPTOP_SKIP_KMOD=1: use the vmaptop_load.ko an earlier "lab kmod" left in out/kmod/
if [ "${VMAPTOP_SKIP_KMOD:-0}" != 1 ]; then
	"$LAB" kmod --arch "$arch" --variant patched "$TOP/tests/guest/vmaptop/kmod" >"$tmp/kmod" 2>&1 ||
		{ tail -n 20 "$tmp/kmod"; die "building vmaptop_load for $arch"; }
fi

rc=0
# --script: the lab copies the file in (guest.sh maps LOOPS=50 per caller)
"$LAB" run --arch "$arch" --variant patched --timeout 600 \
	--script "$TOP/tests/guest/vmaptop/guest.sh" >"$tmp/log" 2>"$tmp/err" || rc=$?
if [ $rc != 0 ]; then
	tail -n 40 "$tmp/log" "$tmp/err"; die "guest run exited $rc"
fi

python3 - "$tmp/log" "$arch" $LOOPS <<'PY'
import re, sys

log, arch, loops = open(sys.argv[1], errors="replace").read(), sys.argv[2], int(sys.argv[3])
m = re.search(r"@@FRAME-BEGIN\r?\n(.*?)@@FRAME-END", log, re.S)
assert m, "no frame in the guest output:\n" + log[-3000:]
assert "@@GUEST-DONE" in log, "guest script did not finish:\n" + log[-2000:]
frame = [l.rstrip("\r") for l in m.group(1).splitlines()]
print("\n".join(frame))

hdr_i = next(i for i, l in enumerate(frame) if l.startswith("CALLER "))
hdr = frame[hdr_i].split()
# the series' tracepoints are there: nothing may be n/a
missing = [l for l in frame[:hdr_i] if l.startswith("n/a ")]
assert not missing, f"columns missing on the patched {arch} kernel: {missing}"
assert " since start " in frame[0], frame[0]

rows = {}
for l in frame[hdr_i + 1:]:
    if not l.strip():
        continue
    f = l.split()
    # module callers read "func+0x../0x.. [vmaptop_load]": two words
    assert f[1] == "[vmaptop_load]", f"unexpected row: {l}"
    name = f[0].split("+")[0]
    assert name not in rows, f"two rows for {name}"
    rows[name] = dict(zip(hdr, [f[0] + " " + f[1]] + f[2:]))

exp4k, exp64k, exp2m = ("4K%", "64K%", "2M%")
cont = arch == "arm64"
want = {
    # caller: (api, {column: share})
    "vt_vmalloc_small": ("vmalloc", {exp4k: 100, exp2m: 0}),
    "vt_vmalloc_huge_2m": ("vmalloc", {exp4k: 0, exp2m: 100}),
    "vt_vmalloc_huge_128k": ("vmalloc", {exp4k: 0, exp64k: 100, exp2m: 0} if cont
                             else {exp4k: 100, exp2m: 0}),
    "vt_vmap_order9": ("vmap", {exp4k: 0, exp2m: 100}),
    "vt_vmap_mixed": ("vmap", {exp4k: 50, exp2m: 50}),
}
assert set(rows) == set(want), f"rows {sorted(rows)} != callers {sorted(want)}"
assert (exp64k in hdr) == cont, f"64K column on {arch}: {hdr}"
assert "CP50" not in hdr and "CP99" not in hdr, f"call-latency columns without --call-latency: {hdr}"
for name, (api, shares) in want.items():
    r = rows[name]
    assert r["API"] == api, f"{name}: API {r['API']} != {api}"
    assert r["MAPS"] == str(loops), f"{name}: MAPS {r['MAPS']} != {loops}"
    for col, v in shares.items():
        assert r[col] == str(v), f"{name}: {col} {r[col]} != {v}"
    if cont and exp64k not in shares:
        assert r[exp64k] == "0", f"{name}: 64K% {r[exp64k]} != 0"
    assert r["1G%"] == "0", f"{name}: 1G% {r['1G%']}"
    assert r["CHUNK"] not in ("n/a", "-"), f"{name}: CHUNK empty"
    for col in ("P50", "P99"):
        # every mapping call is timed by the kernel (vmap_mapped's ns)
        assert r[col] not in ("n/a", "-"), f"{name}: {col} {r[col]}"
    # exactly the one mapping the module keeps is live
    assert r["AREAS"] == "1", f"{name}: AREAS {r['AREAS']} != 1"
print(f"# {len(rows)} callers with the expected granule shares")
PY
pass "vmaptop guest test on $arch: the module's callers with the expected granule shares"
finish
