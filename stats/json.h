/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * json.h -- one snapshot of statistics as one JSON line (JSON Lines: a
 * complete object, then "\n"), for dumps on request (a signal) or at exit:
 *
 *   {"time_ms":T,"scope":"worker","id":0,
 *    "counters":{"write_ops":N,...,"credit_stalls":N},"completions_per_poll":"1.500",
 *    "latency_ns":{"write":{"count":N,"mean":N,"min":N,"p50":N,"p90":N,
 *                           "p99":N,"p99.9":N,"max":N},...}}
 *
 * (one line in the output). Integers only, so the output never depends on
 * the locale; completions_per_poll is a decimal string with three digits
 * after the point. An empty histogram prints zeros.
 *
 * ERRORS
 * Negative codes in their own range (-220 and below), apart from those of
 * rpmaf.h, the protocol and the region table.
 */

#ifndef RPMAF_STATS_JSON_H
#define RPMAF_STATS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "hist.h"

#define RPMAF__STATS_E_INVAL (-220) /* a NULL, or a name that is not [a-z0-9_.-]{1,63} */
#define RPMAF__STATS_E_NOSPC (-221) /* the line does not fit the buffer */
#define RPMAF__STATS_E_IO    (-222) /* writing to the stream failed */

/* one latency histogram of the line, under "latency_ns".name */
struct rpmaf__stats_lat {
	const char *name; /* "write", "read", ... */
	const struct rpmaf__hist_snap *snap;
};

/* what one line says */
struct rpmaf__stats_view {
	uint64_t time_ms;  /* when the snapshot was taken (the caller's clock) */
	const char *scope; /* "worker", "conn", "total", ... */
	uint64_t id;	   /* the worker's or connection's number */
	const struct rpmaf__ctrs_snap *ctrs;
	const struct rpmaf__stats_lat *lat; /* n_lat of them; NULL when n_lat is 0 */
	size_t n_lat;
};

/*
 * rpmaf__stats_json_buf -- write v's line, "\n" included, into buf (size
 * bytes) and terminate it with a NUL.
 *
 * RETURN VALUE
 * The line's length without the NUL; RPMAF__STATS_E_INVAL,
 * RPMAF__STATS_E_NOSPC (buf then holds a truncated, NUL-terminated prefix).
 *
 * CONCURRENCY
 * Thread-safe for distinct buffers; v and what it points to are only read.
 */
int rpmaf__stats_json_buf(const struct rpmaf__stats_view *v, char *buf, size_t size);

/*
 * rpmaf__stats_json_file -- write v's line, "\n" included, to f.
 *
 * RETURN VALUE
 * 0; RPMAF__STATS_E_INVAL, RPMAF__STATS_E_IO.
 *
 * CONCURRENCY
 * As stdio: lines written concurrently to one stream may interleave.
 */
int rpmaf__stats_json_file(const struct rpmaf__stats_view *v, FILE *f);

/*
 * rpmaf__stats_json_hist -- the summary of histogram l as one member of an
 * object, "name":{"count":N,"mean":N,...,"max":N} (as under "latency_ns"
 * above), to f; the caller writes what surrounds it.
 *
 * RETURN VALUE
 * 0; RPMAF__STATS_E_INVAL (a NULL, or a name that is not [a-z0-9_.-]{1,63}),
 * RPMAF__STATS_E_IO.
 *
 * CONCURRENCY
 * As stdio; l is only read.
 */
int rpmaf__stats_json_hist(const struct rpmaf__stats_lat *l, FILE *f);

#endif /* RPMAF_STATS_JSON_H */
