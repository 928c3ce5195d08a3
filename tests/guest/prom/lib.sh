# Shared by the Prometheus guest checks (run.sh, native.sh), after tests/host/prom/lib.sh:
# run one script in a patched guest of $arch and read the sections it prints.

# prom_guest_run SCRIPT: its serial output, carriage returns dropped, in $T/log.
prom_guest_run() {
	scripts/lab run --arch "$arch" --variant patched --timeout 600 \
		--script "$1" >"$T/serial" 2>&1 ||
		{ tail -40 "$T/serial"; die "lab run failed"; }
	tr -d '\r' <"$T/serial" >"$T/log"
}

# section NAME: the lines between "@@@ NAME" and the next "@@@ " line of $T/log.
section() { awk -v s="@@@ $1" '$0 == s {on = 1; next} /^@@@ / {on = 0} on' "$T/log"; }
