/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * prom.h -- metrics in the Prometheus text exposition format (version
 * 0.0.4, what node_exporter's textfile collector reads): a family's HELP
 * and TYPE lines, then its samples "name{label="value"} number", one a
 * line. Counters are named *_total by the caller; a latency histogram is
 * written in seconds as cumulative buckets name_bucket{le="..."} (powers
 * of two of nanoseconds, 1.024 us to 8.6 s, and +Inf), name_sum and
 * name_count.
 *
 * PRECISION
 * A bucket "le" counts the samples below its bound: a sample of exactly
 * the bound's nanoseconds falls in the next one (hist.h's buckets do not
 * split there).
 *
 * CONCURRENCY
 * As stdio: what is written to one stream from two threads may interleave.
 * Errors are the stream's: the caller checks ferror() once at the end.
 */

#ifndef RPMAF_STATS_PROM_H
#define RPMAF_STATS_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "hist.h"

/* a sample's one label (name NULL: none); the value is escaped as the format says */
struct rpmaf__prom_label {
	const char *name;
	const char *value;
};

/* rpmaf__prom_family -- the HELP and TYPE ("counter", "gauge", "histogram") lines of name */
void rpmaf__prom_family(FILE *f, const char *name, const char *type, const char *help);

/* rpmaf__prom_sample -- one sample of an integer value */
void rpmaf__prom_sample(FILE *f, const char *name, const struct rpmaf__prom_label *l, uint64_t v);

/* rpmaf__prom_hist -- the buckets, sum and count of s (nanoseconds), in seconds */
void rpmaf__prom_hist(FILE *f, const char *name, const struct rpmaf__prom_label *l,
		      const struct rpmaf__hist_snap *s);

#endif /* RPMAF_STATS_PROM_H */
