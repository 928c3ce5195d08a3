#!/usr/bin/env bash
# node_exporter's textfile collector reads vmapstat --textfile: every
# vmapscope_ sample node_exporter serves equals the file's, and it reports
# no textfile error, while vmapstat keeps rewriting the file.
. "$(dirname "$0")/lib.sh"
need prometheus-node-exporter curl python3

mkdir "$T/textfile"
start_vmapstat -p --textfile "$T/textfile/vmapscope.prom" 0.5
wait_for 20 grep -q '^vmapscope_intervals_total [1-9]' "$T/textfile/vmapscope.prom" ||
	die "vmapstat wrote no interval: $(cat "$T/vmapstat.err")"

nport=$(free_port)
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$T/textfile" \
	--web.listen-address="127.0.0.1:$nport" >"$T/node.log" 2>&1 &
STARTED_PIDS+=($!)
wait_for 30 curl -sf "http://127.0.0.1:$nport/metrics" ||
	die "node_exporter did not start: $(tail -3 "$T/node.log")"
pass "node_exporter up on 127.0.0.1:$nport"

# vmapstat rewrites the file twice a second; compare several scrapes
# with the file as it was right after each (retry when an interval
# ended in between: both must then agree on the next try)
same=0
for i in $(seq 20); do
	workload 10
	cp "$T/textfile/vmapscope.prom" "$T/before.prom"
	curl -sf "http://127.0.0.1:$nport/metrics" -o "$T/node.prom" || die "scrape failed"
	cp "$T/textfile/vmapscope.prom" "$T/after.prom"
	grep -q '^node_textfile_scrape_error 0$' "$T/node.prom" ||
		die "node_exporter reports a textfile error: $(grep textfile "$T/node.prom")"
	cmp -s "$T/before.prom" "$T/after.prom" || continue	# rewritten meanwhile
	# node_exporter reorders series and labels, and adds none to ours
	grep '^vmapscope_' "$T/before.prom" | sort >"$T/want"
	grep '^vmapscope_' "$T/node.prom" | sort >"$T/got"
	python3 - "$T/want" "$T/got" <<'EOP' || die "node_exporter serves other values than the textfile"
import re, sys
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
def load(p):
    d = {}
    for line in open(p):
        k, v = line.rsplit(" ", 1)
        name, _, labels = k.partition("{")
        d[(name, tuple(sorted(LABEL.findall(labels))))] = float(v)
    return d
want, got = load(sys.argv[1]), load(sys.argv[2])
if want != got:
    for k in sorted(set(want) | set(got)):
        if want.get(k) != got.get(k):
            print("  %s: file %s, node_exporter %s" % (k, want.get(k), got.get(k)), file=sys.stderr)
    sys.exit(1)
EOP
	same=$((same + 1))
	[ $same -lt 3 ] || break
done
[ $same -ge 3 ] || die "could not catch the file unchanged around a scrape ($same of 3)"
n=$(grep -c '^vmapscope_' "$T/node.prom")
pass "node_exporter serves the textfile's $n vmapscope_ samples unchanged ($same scrapes)"
grep -q '^node_textfile_mtime_seconds{file="' "$T/node.prom" || die "no node_textfile_mtime_seconds"
pass "node_textfile_scrape_error 0 and an mtime for the file"
finish
