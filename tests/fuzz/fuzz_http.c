// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics server (prom_http.c): each input is sent as the bytes of
 * one client connection (request line, headers, body, or anything else)
 * to a real prom_server on 127.0.0.1, and the answer read to the end.
 * Whatever parses the request line and headers (libmicrohttpd, and the
 * server's own checks before it) sees exactly these bytes.  A refresh callback republishes on every
 * scrape, as vmapstat --listen without an interval does, in the text and
 * the protobuf format (a real exposition of each), and the server's own
 * metrics follow in the format the Accept header negotiates
 * (prom_accept.c), so hostile Accept headers reach every part of it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "fuzz.h"
#include "prom_expo.h"
#include "prom_http.h"

static struct prom_server *server;
static struct sockaddr_in addr;

static void refresh(void *arg)
{
	static const double le[] = { 1, 3 };
	static const uint64_t counts[] = { 1, 2, 1 };
	static const uint64_t native[] = { 1, 0, 2, 0, 0, 1 };
	static unsigned n;
	const struct prom_native pn = { 0, -1, 6, native };
	const struct prom_hist h = { 2, le, counts, 7.5, &pn };
	struct prom_buf text, pb;

	prom_buf_init(&text);
	prom_buf_init_protobuf(&pb, n & 1);
	for (struct prom_buf *b = &text; b; b = b == &text ? &pb : NULL) {
		prom_family(b, "vmapscope_scrapes_total", PROM_COUNTER, "scrapes");
		prom_sample_u64(b, "vmapscope_scrapes_total", NULL, 0, n);
		prom_family(b, "vmapscope_chunk_length_pages", PROM_HISTOGRAM, "chunks");
		prom_histogram(b, "vmapscope_chunk_length_pages", NULL, 0, &h);
		if (prom_buf_finish(b))
			abort();
	}
	n++;
	prom_server_publish_with_protobuf(server, text.data, text.len, pb.data, pb.len);
	prom_buf_free(&text);
	prom_buf_free(&pb);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct prom_server_opts o = { .timeout_s = 2, .refresh = refresh, .self_metrics = true };
	char err[256];

	if (prom_listen_parse("127.0.0.1:0", &o.listen, err, sizeof(err)) ||
	    prom_server_start(&o, &server, err, sizeof(err))) {
		fprintf(stderr, "fuzz_http: %s\n", err);
		abort();
	}
	addr.sin_family = AF_INET;
	addr.sin_port = htons(prom_server_port(server));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct timeval tv = { .tv_sec = 3 };
	char buf[4096];
	size_t off = 0;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
		abort();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (off < size) {
		ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;	/* the server closed: it answered already */
		off += (size_t)n;
	}
	/*
	 * The end of the input is the end of what the client sends.  Read
	 * the answer until the server closes, or until it has been quiet for
	 * a moment after answering (a kept-alive connection stays open until
	 * the server's idle deadline), or has said nothing for 250 ms.
	 */
	shutdown(fd, SHUT_WR);
	for (int wait_ms = 250;; wait_ms = 20) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, wait_ms) <= 0 || recv(fd, buf, sizeof(buf), 0) <= 0)
			break;
	}
	close(fd);
	return 0;
}
