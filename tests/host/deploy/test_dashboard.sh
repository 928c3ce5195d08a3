#!/usr/bin/env bash
# make check-host-deploy-files: contrib/grafana/vmapscope-dashboard.json.
#  - valid JSON, unique panel ids, every panel has a query;
#  - every query parses as PromQL (promtool check rules, Grafana's
#    $__rate_interval and $instance replaced by values);
#  - every recorded series it reads (level:metric:operations) is recorded by
#    contrib/prometheus/vmapscope.rules.yml.
# The raw vmapscope_* metrics it reads are checked against a real exposition
# by test_rules_names.sh (make check-host-deploy).
. "$(dirname "$0")/../../lib/harness.sh"
set -uo pipefail
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
DASH=${DASH:-$TOPDIR/contrib/grafana/vmapscope-dashboard.json}
RULES=$TOPDIR/contrib/prometheus/vmapscope.rules.yml


tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

jq -e . "$DASH" >/dev/null 2>"$tmp/jq.err" || die "$DASH is not JSON: $(cat "$tmp/jq.err")"
ids=$(jq '[.panels[].id] | length' "$DASH"); uniq=$(jq '[.panels[].id] | unique | length' "$DASH")
noq=$(jq -r '.panels[] | select((.targets // []) | map(.expr // "") | map(select(. != "")) | length == 0) | .title' "$DASH")
[ "$ids" -gt 0 ] && [ "$ids" = "$uniq" ] && [ -z "$noq" ] && pass "$ids panels, unique ids, each with a query" ||
	fail "panels: $ids ids, $uniq unique; without a query: $noq"

jq -r '.panels[].targets[].expr' "$DASH" | sed 's/\$__rate_interval/5m/g; s/\$instance/.*/g' >"$tmp/exprs"
{
	echo "groups:"; echo "  - name: dashboard"; echo "    rules:"
	n=0; while IFS= read -r e; do
		n=$((n + 1)); echo "      - record: dashboard:query_$n"; echo "        expr: $(jq -Rn --arg e "$e" '$e')"
	done <"$tmp/exprs"
} >"$tmp/dash.rules.yml"
if promtool check rules "$tmp/dash.rules.yml" >"$tmp/check.out" 2>&1; then
	pass "all $(wc -l <"$tmp/exprs") queries parse (promtool check rules)"
else
	fail "queries that do not parse:"; sed 's/^/    /' "$tmp/check.out"
fi

recorded=$(sed -n 's/^ *- record: //p' "$RULES" | sort -u)
missing=
for r in $(grep -oE '[A-Za-z_][A-Za-z_0-9]*:[A-Za-z_0-9:]+' "$tmp/exprs" | sort -u); do
	grep -qx -- "$r" <<<"$recorded" || missing="$missing $r"
done
[ -z "$missing" ] && pass "recorded series it reads are all in vmapscope.rules.yml" ||
	fail "recorded series no rule records:$missing"

finish
