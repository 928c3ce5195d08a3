/* SPDX-License-Identifier: GPL-2.0 */
/* The exporter's --web.listen-address: its syntax, and the socket bound to it. */
#ifndef VMAPSCOPE_PROM_LISTEN_H
#define VMAPSCOPE_PROM_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* What PORT alone binds. */
#define PROM_DEFAULT_ADDR	"127.0.0.1"
/*
 * What ADDR alone binds: vmapscope's port, the one every document, the
 * systemd unit and the examples use (they give an address only, or say
 * this number).
 */
#define PROM_DEFAULT_PORT	9798
#define PROM_STR_(x)		#x
#define PROM_STR(x)		PROM_STR_(x)
#define PROM_DEFAULT_PORT_S	PROM_STR(PROM_DEFAULT_PORT)

struct prom_listen {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char text[80];			/* "127.0.0.1:9100", "[::1]:9100", ":9100" */
	bool any;			/* ":PORT": every address, IPv6 and IPv4 */
};

/*
 * Parse "[ADDR]:PORT": PORT alone binds 127.0.0.1; ":PORT" binds every
 * address (IPv6 [::] accepting IPv4 too, or 0.0.0.0 without IPv6), as
 * Prometheus exporters read it; ADDR is an IPv4 address, "[IPv6]" or
 * "localhost", and ADDR alone binds PROM_DEFAULT_PORT on it.  PORT 0 asks
 * the kernel for a free port
 * (prom_server_port() tells which).  Returns 0, or -EINVAL with one line
 * in err.
 */
int prom_listen_parse(const char *spec, struct prom_listen *out,
		      char *err, size_t errlen);

/*
 * A listening, non-blocking socket on @l; @port and @host (for URLs:
 * "127.0.0.1", "[::1]", "[::]") say where it was bound.  ":PORT" falls
 * back to IPv4 where IPv6 is not supported.  The fd, or -errno with one
 * line in err.
 */
int prom_listen_open(const struct prom_listen *l, uint16_t *port, char *host, size_t hostlen,
		     char *err, size_t errlen);

#endif /* VMAPSCOPE_PROM_LISTEN_H */
