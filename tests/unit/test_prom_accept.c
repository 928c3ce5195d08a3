// SPDX-License-Identifier: GPL-2.0
/*
 * Content negotiation (prom_accept.c): the headers Prometheus sends, with
 * and without native histograms, prefer the protobuf format exactly when
 * they ask for it; q-values decide; malformed, partial and hostile
 * headers fall back to the text format.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "prom_accept.h"

#define PB "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited"

static void test_prometheus_headers(void **state)
{
	/* Prometheus 2.42 with --enable-feature=native-histograms */
	assert_true(prom_accept_protobuf(PB ";q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"));
	/* later Prometheus versions: protobuf first, OpenMetrics, text */
	assert_true(prom_accept_protobuf(PB ",application/openmetrics-text;version=1.0.0;q=0.8,"
					 "application/openmetrics-text;version=0.0.1;q=0.75,"
					 "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	/* without the feature: OpenMetrics and text, no protobuf */
	assert_false(prom_accept_protobuf("application/openmetrics-text;version=1.0.0,"
					  "application/openmetrics-text;version=0.0.1;q=0.75,"
					  "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_false(prom_accept_protobuf("text/plain;version=0.0.4;q=1,*/*;q=0.1"));
	/* curl, browsers, none */
	assert_false(prom_accept_protobuf("*/*"));
	assert_false(prom_accept_protobuf("text/html,application/xhtml+xml,*/*;q=0.8"));
	assert_false(prom_accept_protobuf(""));
	assert_false(prom_accept_protobuf(NULL));
}

static void test_q_values(void **state)
{
	/* spaces, case of type and parameter names, quoted values */
	assert_true(prom_accept_protobuf(" Application/Vnd.Google.Protobuf ; Proto=\"io.prometheus.client.MetricFamily\" ; "
					 "Encoding=delimited ; Q=1.000 , text/plain ; q=0.5"));
	/* text preferred */
	assert_false(prom_accept_protobuf(PB ";q=0.3,text/plain;q=0.7"));
	assert_false(prom_accept_protobuf(PB ";q=0.3,*/*"));
	assert_false(prom_accept_protobuf(PB ";q=0.3,text/*;q=0.5"));
	/* equal: the scraper named protobuf, it gets it */
	assert_true(prom_accept_protobuf(PB ";q=0.5,text/plain;q=0.5"));
	/* q=0 means "not acceptable" */
	assert_false(prom_accept_protobuf(PB ";q=0"));
	assert_false(prom_accept_protobuf(PB ";q=0.000,*/*;q=0"));
	/* a text version we do not write does not count for text */
	assert_true(prom_accept_protobuf(PB ";q=0.2,text/plain;version=1.0.0"));
}

static void test_not_protobuf(void **state)
{
	/* the wrong message, another encoding, no parameters */
	assert_false(prom_accept_protobuf("application/vnd.google.protobuf;proto=io.prometheus.client.Metric;encoding=delimited"));
	assert_false(prom_accept_protobuf("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text"));
	assert_false(prom_accept_protobuf("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=compact-text"));
	assert_false(prom_accept_protobuf("application/vnd.google.protobuf"));
	assert_false(prom_accept_protobuf("application/vnd.google.protobuf;encoding=delimited"));
	assert_false(prom_accept_protobuf("application/*;proto=io.prometheus.client.MetricFamily;encoding=delimited"));
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		PB ";q=2", PB ";q=1.5", PB ";q=-1", PB ";q=0.1234", PB ";q=", PB ";q=abc",
		PB ";q", PB ";=", PB ";;", "application/vnd.google.protobuf/x;proto=io.prometheus.client.MetricFamily;encoding=delimited",
		"/;proto=io.prometheus.client.MetricFamily;encoding=delimited", ";;;,,,", ",", "\t",
		"\x01\x02\xff", "q=1", "\"" PB "\"",
	};
	char *big;
	size_t i, n = 1 << 20;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(prom_accept_protobuf(bad[i]));
	/* a malformed range is skipped, the rest still counts */
	assert_true(prom_accept_protobuf("garbage;;q=x," PB));
	assert_false(prom_accept_protobuf(PB ";q=abc,text/plain"));
	/* a megabyte of commas and parameters: an answer, and text */
	big = malloc(n + 1);
	assert_non_null(big);
	for (i = 0; i < n; i++)
		big[i] = ",;=/"[i % 4];
	big[n] = 0;
	assert_false(prom_accept_protobuf(big));
	memcpy(big + n - strlen(PB), PB, strlen(PB));
	big[n - strlen(PB) - 1] = ',';
	assert_true(prom_accept_protobuf(big));
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prometheus_headers),
		cmocka_unit_test(test_q_values),
		cmocka_unit_test(test_not_protobuf),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
