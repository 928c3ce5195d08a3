/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exposition writer's two halves share this: prom_expo.c (the
 * buffer, the text format, the public calls) and prom_proto.c (the
 * protobuf format).  Nothing else includes it.
 */
#ifndef VMAPSCOPE_PROM_EXPO_INT_H
#define VMAPSCOPE_PROM_EXPO_INT_H

#include <stddef.h>

#include "prom_expo.h"

/* The buffer's sticky error: the first one is kept, later calls do nothing. */
void prom_buf_fail(struct prom_buf *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Bytes onto the buffer's stream; prom_buf_sync() makes data and len show them. */
void prom_buf_append(struct prom_buf *b, const char *s, size_t n);
void prom_buf_sync(struct prom_buf *b);

/*
 * The protobuf format (prom_proto.c): a family is built in memory from
 * its samples, and written as one length-delimited MetricFamily when the
 * next family starts or the buffer is finished.  Names are checked by
 * the callers in prom_expo.c, label names here.
 */
void prom_proto_family(struct prom_buf *b, const char *name, enum prom_type type,
		       const char *help);
void prom_proto_sample(struct prom_buf *b, const char *name,
		       const struct prom_label *labels, size_t nr_labels, double value);
void prom_proto_histogram(struct prom_buf *b, const char *name,
			  const struct prom_label *labels, size_t nr_labels,
			  const struct prom_hist *h);
void prom_proto_finish(struct prom_buf *b);
/* Forget the family being built (prom_buf_free). */
void prom_proto_drop(struct prom_buf *b);

#endif /* VMAPSCOPE_PROM_EXPO_INT_H */
