#!/usr/bin/env bash
# make check-host-deploy: the Prometheus rules and the Grafana dashboard name only
# what the exporter exports.
#  - every vmapscope_* metric an expression of contrib/prometheus/
#    vmapscope.rules.yml or a query of contrib/grafana/vmapscope-dashboard.json
#    reads is a family of a real exposition of this
#    build's vmapstat (--prometheus around a command, root, BPF), histogram
#    series by their _bucket/_sum/_count names or (native) their own;
#  - every label a selector matches on is a label docs/prometheus.md gives
#    that metric, and every label the rules group or match by is job,
#    instance or a label of a metric they read (recording rules' own
#    outputs are their inputs' labels).
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
OUTDIR=${OUTDIR:-$TOPDIR/out}
VMAPSTAT=${VMAPSTAT:-$OUTDIR/$(uname -m | sed s/aarch64/arm64/)/bin/vmapstat}
RULES=${RULES:-$TOPDIR/contrib/prometheus/vmapscope.rules.yml}
DASH=${DASH:-$TOPDIR/contrib/grafana/vmapscope-dashboard.json}
DOC=$TOPDIR/docs/prometheus.md


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$VMAPSTAT" --prometheus -- true >"$tmp/expo" 2>"$tmp/err" </dev/null; then
	die "$VMAPSTAT --prometheus -- true: $(tail -n1 "$tmp/err")"
fi
# exported series names: the families, histograms with their three series
# (a histogram also by its own name: its native series)
awk '$1 == "#" && $2 == "TYPE" { if ($4 == "histogram") { print $3; print $3 "_bucket"; print $3 "_sum"; print $3 "_count" } else print $3 }' \
	"$tmp/expo" | sort -u >"$tmp/exported"
[ -s "$tmp/exported" ] || die "no # TYPE line in the exposition"

# the expressions only (not annotations, where metric names are prose),
# and the Grafana dashboard's queries
python3 - "$RULES" "$DASH" >"$tmp/exprs" <<'EOF'
import sys, yaml, json
for g in yaml.safe_load(open(sys.argv[1]))["groups"]:
    for r in g["rules"]:
        print(r["expr"].replace("\n", " "))
d = json.load(open(sys.argv[2]))
for p in d["panels"]:
    for t in p.get("targets", []):
        print(t["expr"].replace("$__rate_interval", "5m").replace("$instance", ".*"))
for v in d["templating"]["list"]:
    q = v.get("query")
    if isinstance(q, dict):
        print(q["query"])
EOF
[ -s "$tmp/exprs" ] || die "no expression read from $RULES"
# recording rules' names (level:metric:operations) are the rules' own
sed -i -E 's/[A-Za-z_0-9]*:[A-Za-z_0-9:]+/RECORDED/g' "$tmp/exprs"
grep -oE '\bvmapscope_[a-z0-9_]+' "$tmp/exprs" | sort -u >"$tmp/used"
missing=$(comm -23 "$tmp/used" "$tmp/exported" | tr '\n' ' ')
[ -z "$missing" ] && pass "the rules and the dashboard read $(wc -l <"$tmp/used") exported metrics: $(tr '\n' ' ' <"$tmp/used")" ||
	fail "metrics in the rules or the dashboard that vmapstat does not export: $missing"

# labels per metric, from the metric table of docs/prometheus.md
labels_of() {	# METRIC (histogram series map to their family)
	local m=$1
	case $m in *_bucket|*_sum|*_count) grep -qx "${m%_*}_bucket" "$tmp/exported" && m=${m%_*} ;; esac
	awk -F'|' -v m="\`$m\`" '{ gsub(/^ +| +$/, "", $2) } $2 == m { gsub(/ /, "", $4); print $4 }' "$DOC" | tr ',' '\n' | grep .
	case $1 in *_bucket) echo le ;; esac
}
all_labels="job instance"
bad=
for m in $(cat "$tmp/used"); do
	have="$(labels_of "$m" | tr "\n" " ")job instance"
	all_labels="$all_labels $have"
	for sel in $(grep -oE "\b$m\{[^}]*\}" "$tmp/exprs" | sed 's/.*{//; s/}$//' | tr ',' '\n' | sed 's/[!=~].*//' | sort -u); do
		case " $have " in *" $sel "*) ;; *) bad="$bad $m{$sel}" ;; esac
	done
done
[ -z "$bad" ] && pass "every selector matches on a label its metric has" || fail "selectors on labels the metric lacks:$bad"

grouped=$(grep -oE '\b(by|on|ignoring|without) *\([^)]*\)' "$tmp/exprs" | sed 's/.*(//; s/)//' | tr ', ' '\n\n' | grep . | sort -u)
extra=
for l in $grouped; do case " $all_labels " in *" $l "*) ;; *) extra="$extra $l" ;; esac; done
[ -z "$extra" ] && pass "grouping and matching labels: $(echo $grouped)" || fail "the rules group or match by labels no metric has:$extra"

finish
