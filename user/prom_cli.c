// SPDX-License-Identifier: GPL-2.0
/*
 * vmapstat's Prometheus option group (prom_group, see vmapstat_groups.h):
 *
 *   --web.listen-address [ADDR]:PORT  (alias --listen) serve GET /metrics
 *                          (127.0.0.1 unless ADDR given; ":PORT" = every
 *                          address; ADDR alone: PROM_DEFAULT_PORT)
 *   --web.telemetry-path PATH   scrapes GET PATH instead of /metrics
 *   --listen-timeout SECS  close idle / stalled HTTP connections after SECS
 *   --web.config.file PATH exporter-toolkit web configuration: TLS, basic
 *                          auth (prom_webconfig.h); alias --web-config
 *   --textfile PATH        rewrite a node_exporter textfile every interval
 *   --prometheus           print one exposition to stdout at the end
 *                          (instead of vmapstat's report)
 *   --top-callers N        callers with their own label; the rest: "other"
 *   --live-bytes           also export what the page tables map right now
 *                          (snapshot.h audit, once per interval)
 *   --classic-histograms   with --web.listen-address: the protobuf exposition
 *                          (native histograms) keeps the classic buckets too
 *
 * --web.listen-address also renders the exposition in the protobuf format,
 * with every histogram a native one, for the scrapes that ask for it.
 *
 * With an INTERVAL the exposition is rendered once per vmapstat interval
 * from the deltas vmapstat reports (prom_metrics.h), and only published or
 * written then; the HTTP thread just hands out the latest text.  --listen
 * without an INTERVAL reads the counters at each scrape instead (refresh()).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmapstat_groups.h"
#include "parse.h"
#include "prom_expo.h"
#include "prom_http.h"
#include "prom_metrics.h"
#include "prom_textfile.h"
#include "prom_webconfig.h"
#include "snapshot.h"

enum {
	OPT_LISTEN = 0x300,
	OPT_LISTEN_TIMEOUT,
	OPT_TEXTFILE,
	OPT_PROMETHEUS,
	OPT_TOP_CALLERS,
	OPT_LIVE_BYTES,
	OPT_WEB_CONFIG,
	OPT_TELEMETRY_PATH,
	OPT_CLASSIC_HISTOGRAMS,
};

static const struct argp_option prom_options[] = {
	{ "web.listen-address", OPT_LISTEN, "[ADDR]:PORT", 0,
	  "Serve the metrics (Prometheus text format, or protobuf with native histograms to a "
	  "scraper that asks for it) on ADDR:PORT: PORT alone binds 127.0.0.1, "
	  "\":PORT\" every address, ADDR alone port " PROM_DEFAULT_PORT_S "; without INTERVAL "
	  "each scrape reads the counters and nothing goes to stdout (service mode)", 0 },
	{ "listen", OPT_LISTEN, NULL, OPTION_ALIAS, NULL, 0 },
	{ "web.telemetry-path", OPT_TELEMETRY_PATH, "PATH", 0,
	  "The path scrapes GET (default /metrics); / is a landing page linking to it", 0 },
	{ "listen-timeout", OPT_LISTEN_TIMEOUT, "SECS", 0,
	  "Close HTTP connections idle for SECS (default 10)", 0 },
	{ "web.config.file", OPT_WEB_CONFIG, "PATH", 0,
	  "With --web.listen-address: TLS and basic auth from an exporter-toolkit web "
	  "configuration file (docs/prometheus.md); TLS needs the dynamically linked build", 0 },
	{ "web-config", OPT_WEB_CONFIG, "PATH", OPTION_ALIAS, NULL, 0 },
	{ "textfile", OPT_TEXTFILE, "PATH", 0,
	  "Rewrite PATH (*.prom, for node_exporter's textfile collector) atomically every interval", 0 },
	{ "prometheus", OPT_PROMETHEUS, NULL, 0,
	  "Print one Prometheus exposition to stdout at the end instead of the report", 0 },
	{ "top-callers", OPT_TOP_CALLERS, "N", 0,
	  "Label at most N callers, sum the rest as caller=\"other\" (default 20)", 0 },
	{ "live-bytes", OPT_LIVE_BYTES, NULL, 0,
	  "Also export vmapscope_live_bytes: a page-table audit of every live vmalloc area each interval", 0 },
	{ "classic-histograms", OPT_CLASSIC_HISTOGRAMS, NULL, 0,
	  "With --web.listen-address: scrapes that get native histograms (the protobuf format) "
	  "get the classic buckets too", 0 },
	{ 0 },
};

static struct {
	bool listen;
	struct prom_listen addr;
	const char *path;
	unsigned int timeout_s;
	const char *web_config;
	const char *textfile;
	bool to_stdout;
	unsigned int top;
	bool live;
	bool classic;
} popt = {
	.top = PROM_DEFAULT_TOP_CALLERS,
};

static struct prom_state *state;
static struct prom_server *server;
static struct prom_buf buf;
static struct prom_buf pb_buf;	/* --web.listen-address: the protobuf format */
static bool textfile_failing;
static char textfile_err[512];	/* the last write's error */
static bool live_failing;
static struct snapshot_auditor *auditor;	/* --live-bytes: walker loaded once */
static struct prom_webconfig *webconfig;

/*
 * Scrape mode (--listen, no INTERVAL): the server thread reads the
 * collector at each scrape and adds what changed since the last one.
 * lock serializes it with the main thread's hooks (state, buf).
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct collector *scrape_collector;
static struct vmapscope_sample scrape_prev;

/*
 * One snapshot into the state.  At start a failure is fatal
 * (the user asked for it and should learn why at once); later ones are
 * reported once, and the gauges are dropped until an audit works again.
 */
static int take_live(bool fatal)
{
	struct snapshot ls;
	char err[512];
	int rc;

	rc = snapshot_auditor_take(auditor, &ls, err, sizeof(err));
	if (rc) {
		if (fatal) {
			fprintf(stderr, "vmapstat: --live-bytes: %s\n", err);
			return -1;
		}
		if (!live_failing)
			fprintf(stderr, "vmapstat: --live-bytes: %s (will retry)\n", err);
		live_failing = true;
		prom_state_set_live(state, NULL);
		return 0;
	}
	live_failing = false;
	rc = prom_state_set_live(state, &ls);
	snapshot_free(&ls);
	if (rc) {
		fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		return -1;
	}
	return 0;
}

static int render_into(struct prom_buf *b)
{
	prom_buf_reset(b);
	if (prom_render(state, b)) {
		fprintf(stderr, "vmapstat: prometheus: %s\n",
			b->errmsg[0] ? b->errmsg : strerror(ENOMEM));
		return -1;
	}
	return 0;
}

static int render(void)
{
	return render_into(&buf) || (server && render_into(&pb_buf)) ? -1 : 0;
}

/*
 * Publish and write the current exposition.  The first write of the
 * textfile (at start) must work: a path that cannot be written then is
 * the user's mistake, and a run that never writes it must not look
 * successful.  A later failure (disk full, directory gone) is reported
 * once and retried next interval, the collector and the HTTP endpoint
 * keep going; prom_cli_end() fails the run if the last write failed.
 */
static int publish(bool first)
{
	if (render())
		return -1;
	if (server && prom_server_publish_with_protobuf(server, buf.data, buf.len,
						       pb_buf.data, pb_buf.len)) {
		fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		return -1;
	}
	if (popt.textfile) {
		if (prom_textfile_write(popt.textfile, buf.data, buf.len,
					textfile_err, sizeof(textfile_err))) {
			if (first) {
				fprintf(stderr, "vmapstat: %s\n", textfile_err);
				return -1;
			}
			if (!textfile_failing)
				fprintf(stderr, "vmapstat: %s (will retry)\n",
					textfile_err);
			textfile_failing = true;
		} else if (textfile_failing) {
			fprintf(stderr, "vmapstat: --textfile %s: written again\n",
				popt.textfile);
			textfile_failing = false;
		}
	}
	return 0;
}

/* Scrape mode: the counters as of now, before the server answers. */
static void refresh(void *arg)
{
	struct vmapscope_sample cur, delta;

	pthread_mutex_lock(&lock);
	if (collector_read(scrape_collector, &cur)) {
		pthread_mutex_unlock(&lock);
		return;		/* the scrape gets the last exposition */
	}
	if (!sample_delta(&cur, &scrape_prev, &delta)) {
		if (prom_state_add(state, &delta))
			fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		else if (!popt.live || !take_live(false))
			publish(false);
		sample_free(&delta);
	}
	sample_free(&scrape_prev);
	scrape_prev = cur;
	pthread_mutex_unlock(&lock);
}

static int prom_cli_start(struct vmapstat_run *run)
{
	struct vmapscope_sample snap;
	char err[512];

	if (!popt.listen && !popt.textfile && !popt.to_stdout)
		return 0;
	if (popt.textfile && prom_textfile_check(popt.textfile, err, sizeof(err))) {
		fprintf(stderr, "vmapstat: %s\n", err);
		return -1;
	}
	if (popt.listen && run->command) {
		fprintf(stderr, "vmapstat: --web.listen-address serves until vmapstat is stopped: "
			"give an INTERVAL or none, not -- COMMAND\n");
		return -1;
	}
	state = prom_state_new(popt.top);
	if (!state) {
		fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		return -1;
	}
	prom_buf_init(&buf);
	prom_buf_init_protobuf(&pb_buf, popt.classic);
	/* kernel, features and symbols before the first interval */
	if (!collector_read(run->collector, &snap)) {
		prom_state_set_info(state, &snap);
		if (popt.listen && run->interval_s <= 0) {
			scrape_collector = run->collector;
			scrape_prev = snap;
		} else {
			sample_free(&snap);
		}
	}
	if (popt.live) {
		/* the collector's kallsyms: read once, not once per audit */
		struct snapshot_opts o = { .ksyms = collector_ksyms(run->collector) };

		if (snapshot_auditor_open(&o, &auditor, err, sizeof(err))) {
			fprintf(stderr, "vmapstat: --live-bytes: %s\n", err);
			return -1;
		}
		if (take_live(true))
			return -1;
	}
	if (popt.listen) {
		struct prom_server_opts o = {
			.listen = popt.addr,
			.metrics_path = popt.path,
			.self_metrics = true,
			.timeout_s = popt.timeout_s,
			.refresh = scrape_collector ? refresh : NULL,
		};

		if (popt.web_config) {
			if (prom_webconfig_load(popt.web_config, &webconfig, err, sizeof(err)) ||
			    prom_webconfig_check_tls(webconfig, popt.web_config, err, sizeof(err))) {
				fprintf(stderr, "vmapstat: %s\n", err);
				return -1;
			}
			if (webconfig->tls) {
				o.tls_cert_pem = webconfig->cert_pem;
				o.tls_key_pem = webconfig->key_pem;
				o.tls_client_ca_pem = webconfig->client_ca_pem;
				o.tls_priorities = webconfig->priorities;
			}
			if (webconfig->nr_users) {
				o.authorize = prom_webconfig_authorize;
				o.auth_cached = prom_webconfig_auth_cached;
				o.auth_arg = webconfig;
			}
		}
		if (prom_server_start(&o, &server, err, sizeof(err))) {
			fprintf(stderr, "vmapstat: %s\n", err);
			return -1;
		}
		/* the real port (tests and scripts may ask for port 0) */
		fprintf(stderr, "vmapstat: serving %s://%s:%u%s%s%s\n",
			webconfig && webconfig->tls ? "https" : "http",
			prom_server_host(server), prom_server_port(server),
			popt.path ? popt.path : "/metrics",
			popt.addr.any ? " (every address)" : "",
			webconfig && webconfig->nr_users ? " (basic auth)" : "");
	}
	if (server || popt.textfile)
		return publish(true);
	return 0;
}

/*
 * The interval's PMU counts (run->pmu, left by the PMU group, which runs
 * first) go into vmapscope_pmu_events_total with the mappings.
 */
static int add_pmu(const struct vmapstat_run *run)
{
	if (run->pmu && prom_state_add_pmu(state, run->pmu)) {
		fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		return -1;
	}
	return 0;
}

static int prom_cli_interval(struct vmapstat_run *run,
			     const struct vmapscope_sample *cum,
			     const struct vmapscope_sample *delta)
{
	int ret = 0;

	if (!state)
		return 0;
	pthread_mutex_lock(&lock);
	if (add_pmu(run)) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	/* scrape mode: the counters are added at each scrape, and once more now */
	if (scrape_collector) {
		pthread_mutex_unlock(&lock);
		refresh(NULL);
		return 0;
	}
	if (prom_state_add(state, delta)) {
		fprintf(stderr, "vmapstat: prometheus: out of memory\n");
		ret = -1;
	} else if (popt.live && take_live(false)) {
		ret = -1;
	} else if (server || popt.textfile) {
		ret = publish(false);
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int prom_cli_end(struct vmapstat_run *run,
			const struct vmapscope_sample *cum)
{
	int ret = 0;

	if (!state)
		return 0;
	/* no scrape may run while the state goes away */
	prom_server_stop(server);
	server = NULL;
	/*
	 * render() says why it failed; a failed write is vmapstat's to
	 * report, once, with its errno (cli_stdout_check())
	 */
	if (popt.to_stdout &&
	    (render() || fwrite(buf.data, 1, buf.len, stdout) != buf.len || fflush(stdout)))
		ret = -1;
	if (textfile_failing) {
		fprintf(stderr, "vmapstat: %s (the last write failed: the file is stale)\n",
			textfile_err);
		ret = -1;
	}
	textfile_failing = false;
	sample_free(&scrape_prev);
	scrape_collector = NULL;
	snapshot_auditor_close(auditor);
	auditor = NULL;
	prom_webconfig_free(webconfig);
	webconfig = NULL;
	prom_buf_free(&buf);
	prom_buf_free(&pb_buf);
	prom_state_free(state);
	state = NULL;
	return ret;
}

/*
 * A telemetry path a request line can carry as it is: "/" then visible
 * ASCII, no query or fragment, and not "/" (the landing page).
 */
static int check_path(const char *p, char *err, size_t errlen)
{
	size_t i;

	if (p[0] != '/' || !p[1] || strlen(p) >= 200) {
		snprintf(err, errlen, "--web.telemetry-path '%.100s': a path such as /metrics "
			 "(starting with /, not / itself, under 200 characters)", p);
		return -1;
	}
	for (i = 1; p[i]; i++)
		if (p[i] <= ' ' || p[i] >= 0x7f || p[i] == '?' || p[i] == '#' || p[i] == '%') {
			snprintf(err, errlen, "--web.telemetry-path '%.100s': only visible ASCII, "
				 "without ?, # or %%", p);
			return -1;
		}
	return 0;
}

static error_t prom_parse(int key, char *arg, struct argp_state *st)
{
	char err[256];
	unsigned long v = 0;

	switch (key) {
	case OPT_LISTEN:
		if (prom_listen_parse(arg, &popt.addr, err, sizeof(err)))
			argp_error(st, "%s", err);
		popt.listen = true;
		break;
	case OPT_TELEMETRY_PATH:
		if (check_path(arg, err, sizeof(err)))
			argp_error(st, "%s", err);
		popt.path = arg;
		break;
	case OPT_LISTEN_TIMEOUT:
		if (parse_ulong(arg, 3600, &v) || !v)
			argp_error(st, "invalid --listen-timeout '%s' (1..3600 seconds)", arg);
		popt.timeout_s = (unsigned int)v;
		break;
	case OPT_WEB_CONFIG:
		if (!*arg)
			argp_error(st, "empty --web.config.file");
		popt.web_config = arg;
		break;
	case OPT_TEXTFILE:
		/* the directory is this host's: checked at start (exit 1) */
		if (prom_textfile_check_name(arg, err, sizeof(err)))
			argp_error(st, "%s", err);
		popt.textfile = arg;
		break;
	case OPT_PROMETHEUS:
		popt.to_stdout = true;
		break;
	case OPT_TOP_CALLERS:
		if (parse_ulong(arg, PROM_MAX_TOP_CALLERS, &v))
			argp_error(st, "invalid --top-callers '%s' (0..%d)", arg,
				   PROM_MAX_TOP_CALLERS);
		popt.top = (unsigned int)v;
		break;
	case OPT_LIVE_BYTES:
		popt.live = true;
		break;
	case OPT_CLASSIC_HISTOGRAMS:
		popt.classic = true;
		break;
	case ARGP_KEY_END:
		/*
		 * vmapstat hands argp the arguments before "--" and keeps the
		 * command that follows: argv[argc] is "--" in command mode.
		 */
		if (popt.listen && st->argv[st->argc] &&
		    !strcmp(st->argv[st->argc], "--"))
			argp_error(st, "--web.listen-address serves until vmapstat is stopped: "
				   "give an INTERVAL or none, not -- COMMAND");
		else if (popt.web_config && !popt.listen)
			argp_error(st, "--web.config.file configures --web.listen-address: give both");
		else if (popt.path && !popt.listen)
			argp_error(st, "--web.telemetry-path configures --web.listen-address: give both");
		else if (popt.classic && !popt.listen)
			argp_error(st, "--classic-histograms shapes what --web.listen-address serves: give both");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static void prom_cli_parsed(struct vmapstat_run *run)
{
	run->stdout_taken = popt.to_stdout;
	run->serving = popt.listen;
}

static const struct argp prom_argp = {
	.options = prom_options,
	.parser = prom_parse,
};

const struct vmapstat_group prom_group = {
	.title = "Prometheus export:",
	.argp = &prom_argp,
	.parsed = prom_cli_parsed,
	.start = prom_cli_start,
	.interval = prom_cli_interval,
	.end = prom_cli_end,
};
