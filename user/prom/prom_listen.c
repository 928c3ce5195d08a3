// SPDX-License-Identifier: GPL-2.0
/* The exporter's listening address: --web.listen-address parsed, the socket bound (prom_listen.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "parse.h"
#include "prom_listen.h"

static bool port_ok(const char *s, unsigned long *port)
{
	return !parse_ulong(s, 65535, port);
}

int prom_listen_parse(const char *spec, struct prom_listen *out,
		      char *err, size_t errlen)
{
	static const char default_port[] = PROM_DEFAULT_PORT_S;
	char host[64] = PROM_DEFAULT_ADDR;
	const char *port_s = spec, *colon;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&out->addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out->addr;
	unsigned long port;
	bool v6 = false;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec) {
		errbuf_set(err, errlen, "--web.listen-address: empty address, expected [ADDR]:PORT");
		return -EINVAL;
	}
	if (strlen(spec) > 80) {
		errbuf_set(err, errlen, "--web.listen-address: '%.20s...' is too long for [ADDR]:PORT", spec);
		return -EINVAL;
	}
	if (spec[0] == ':' && !strchr(spec + 1, ':')) {
		/* ":PORT": every address, IPv6 and IPv4, as Go exporters do */
		if (!port_ok(spec + 1, &port)) {
			errbuf_set(err, errlen, "--web.listen-address '%s': bad port '%s' (0-65535)",
				   spec, spec + 1);
			return -EINVAL;
		}
		out->any = true;
		out->addr.ss_family = AF_INET6;
		in6->sin6_addr = in6addr_any;
		in6->sin6_port = htons((uint16_t)port);
		out->addrlen = sizeof(*in6);
		snprintf(out->text, sizeof(out->text), ":%lu", port);
		return 0;
	}
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || (close[1] != ':' && close[1]) ||
		    (size_t)(close - spec - 1) >= sizeof(host)) {
			errbuf_set(err, errlen,
				"--web.listen-address '%s': expected [IPv6]:PORT", spec);
			return -EINVAL;
		}
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port_s = close[1] ? close + 2 : default_port;
		v6 = true;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= sizeof(host) ||
		    memchr(spec, ':', (size_t)(colon - spec))) {
			errbuf_set(err, errlen,
				"--web.listen-address '%s': expected ADDR:PORT (IPv6 as [ADDR]:PORT)",
				spec);
			return -EINVAL;
		}
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port_s = colon + 1;
	} else if (strchr(spec, '.') || !strcmp(spec, "localhost")) {
		/* ADDR alone (an IPv4 address, localhost): the default port */
		if (strlen(spec) >= sizeof(host)) {
			errbuf_set(err, errlen, "--web.listen-address '%s': address too long", spec);
			return -EINVAL;
		}
		snprintf(host, sizeof(host), "%s", spec);
		port_s = default_port;
	}
	if (!port_ok(port_s, &port)) {
		errbuf_set(err, errlen, "--web.listen-address '%s': bad port '%s' (0-65535)",
			spec, port_s);
		return -EINVAL;
	}
	if (!v6 && !strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	out->addr.ss_family = v6 ? AF_INET6 : AF_INET;
	if (inet_pton(out->addr.ss_family, host,
		      v6 ? (void *)&in6->sin6_addr : (void *)&in4->sin_addr) != 1) {
		errbuf_set(err, errlen, v6 ? "--web.listen-address '%s': bad IPv6 address '%s'" :
			   "--web.listen-address '%s': bad IPv4 address '%s' (use a numeric address or localhost)",
			   spec, host);
		return -EINVAL;
	}
	/* sin_port and sin6_port are at the same offset */
	in4->sin_port = htons((uint16_t)port);
	out->addrlen = v6 ? sizeof(*in6) : sizeof(*in4);
	snprintf(out->text, sizeof(out->text), v6 ? "[%s]:%lu" : "%s:%lu", host, port);
	return 0;
}

/*
 * Bind the socket ourselves: libmicrohttpd's own bind failure is a bare
 * NULL, and the user deserves "Address already in use".  ":PORT" binds
 * [::] for IPv6 and IPv4 alike, or 0.0.0.0 where IPv6 is not available.
 */
int prom_listen_open(const struct prom_listen *l, uint16_t *port, char *host, size_t hostlen,
		     char *err, size_t errlen)
{
	struct sockaddr_storage bound, any4;
	const struct sockaddr_storage *addr = &l->addr;
	socklen_t blen = sizeof(bound), alen = l->addrlen;
	int fd, one = 1, v6only = !l->any, e;

	fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 && l->any && errno == EAFNOSUPPORT) {
		struct sockaddr_in *in4 = (struct sockaddr_in *)&any4;

		memset(&any4, 0, sizeof(any4));
		in4->sin_family = AF_INET;
		in4->sin_addr.s_addr = htonl(INADDR_ANY);
		in4->sin_port = ((const struct sockaddr_in6 *)&l->addr)->sin6_port;
		addr = &any4;
		alen = sizeof(*in4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	}
	if (fd < 0) {
		e = errno;
		errbuf_set(err, errlen, "--web.listen-address %s: socket: %s", l->text, strerror(e));
		return -e;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	if (bind(fd, (const struct sockaddr *)addr, alen) ||
	    listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen)) {
		e = errno;
		errbuf_set(err, errlen, "--web.listen-address %s: %s", l->text, strerror(e));
		close(fd);
		return -e;
	}
	if (bound.ss_family == AF_INET6) {
		struct sockaddr_in6 *b6 = (struct sockaddr_in6 *)&bound;
		char a[INET6_ADDRSTRLEN];

		*port = ntohs(b6->sin6_port);
		inet_ntop(AF_INET6, &b6->sin6_addr, a, sizeof(a));
		snprintf(host, hostlen, "[%s]", a);
	} else {
		struct sockaddr_in *b4 = (struct sockaddr_in *)&bound;

		*port = ntohs(b4->sin_port);
		inet_ntop(AF_INET, &b4->sin_addr, host, hostlen);
	}
	return fd;
}
