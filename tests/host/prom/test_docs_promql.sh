#!/usr/bin/env bash
# Every ```promql example in docs/prometheus.md parses (promtool check
# rules on a rule file holding each as a recording rule) and names only
# metrics the exporter really exposes (checked against --prometheus output
# of this build).
. "$(dirname "$0")/lib.sh"
need promtool python3

"$VMAPSTAT" --prometheus 0.2 1 >"$T/expo.prom" 2>/dev/null || die "vmapstat --prometheus failed"
python3 - "$TOPDIR/docs/prometheus.md" "$T/rules.yml" "$T/expo.prom" <<'EOP' || exit 1
import json, re, sys
doc, rules, expo = sys.argv[1:4]
blocks = re.findall(r"```promql\n(.*?)```", open(doc).read(), re.S)
if len(blocks) < 5:
    sys.exit("FAIL: only %d promql examples in %s" % (len(blocks), doc))
families = {l.split()[2] for l in open(expo) if l.startswith("# TYPE ")}
# families only present with data or options on other kernels
families |= {"vmapscope_live_bytes", "vmapscope_live_areas", "vmapscope_pmu_events_total"}
with open(rules, "w") as f:
    f.write("groups:\n  - name: docs\n    rules:\n")
    for i, b in enumerate(blocks):
        f.write("      - record: docs_example_%d\n        expr: %s\n" % (i, json.dumps(" ".join(b.split()))))
        for m in set(re.findall(r"\bvmapscope_[a-z_]+", b)):
            base = re.sub(r"_(bucket|sum|count)$", "", m)
            if m not in families and base not in families:
                sys.exit("FAIL: example %d uses %s, which the exporter does not expose" % (i, m))
print("ok - %d promql examples name only exposed metrics" % len(blocks))
EOP
out=$(promtool check rules "$T/rules.yml" 2>&1) || die "promtool check rules: $out"
pass "every promql example parses (promtool check rules)"
finish
