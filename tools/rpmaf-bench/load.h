/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * load.h -- what a load model (wload: librpmaf's workers, bload: bare
 * librpma) is given and what it measures, and the measurement window both
 * share, so that the two are timed exactly alike.
 *
 * A run: the model makes its connections, starts writing on all of them,
 * then load_measure() lets it warm up, samples its count of completed
 * writes, sleeps for the measured time and samples again.
 */

#ifndef RPMAF_BENCH_LOAD_H
#define RPMAF_BENCH_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct rpma_conn;
struct rpma_mr_local;
struct rpma_mr_remote;

#define LOAD_WRITE_SIZE 64   /* bytes of one RDMA write */
#define LOAD_PIPELINE	32   /* connection requests in flight at once */
#define LOAD_CONNECT_S	20.0 /* the longest wait for one connection event */
#define LOAD_DRAIN_S	5.0  /* the longest wait for outstanding writes or closes */

/* what to run */
struct load_params {
	const char *port; /* the server's port */
	unsigned window;  /* writes outstanding per connection */
	unsigned batch;	  /* writes per admitted batch (only the last signaled); divides window */
	double seconds;	  /* the measured time */
	double warmup;	  /* the time before it */
};

/* what a run gives */
struct load_result {
	double ops_per_sec; /* completed writes per second over the measured time */
	unsigned conns;	    /* connections established (all of them, or as many as could be) */
	struct util_fail fail;
};

/* where one connection writes, and from where; owned by the connection's thread */
struct load_dst {
	struct rpma_conn *conn;
	struct rpma_mr_remote *dst; /* the server's region */
	size_t dst_size;
	struct rpma_mr_local *src_mr; /* the source of every write */
	size_t src_off;
	unsigned idx;  /* the connection's number: its slice of the region */
	unsigned slot; /* the next write's slot in the slice */
};

/*
 * load_write_batch -- post params->batch 64-byte writes on d, the last one
 * signaled (RPMA_F_COMPLETION_ALWAYS, op_context ctx), the others
 * RPMA_F_COMPLETION_ON_ERROR; connection d->idx writes slots
 * d->idx * window .. + window - 1 of the region (wrapped at its size).
 * RETURN VALUE: 0; the librpma error of the first write that failed, with
 * *posted set to the writes posted before it.
 * THREAD SAFETY: d's thread only.
 */
int load_write_batch(const struct load_params *params, struct load_dst *d, void *ctx,
		     unsigned *posted);

/* the count of completed writes of one thread, alone on its cache line */
struct load_counter {
	_Alignas(64) atomic_uint_fast64_t ops;
};

/*
 * load_counters_new -- n counters, zeroed, one per thread of a model.
 * RETURN VALUE: the array (the caller frees it with free()); NULL when out
 * of memory. THREAD SAFETY: thread-safe.
 */
struct load_counter *load_counters_new(unsigned n);

/* load_count -- add n completed writes to c. Only c's own thread. */
void load_count(struct load_counter *c, unsigned n);

/*
 * load_measure -- wait params->warmup, then take the writes completed on the
 * n counters over params->seconds and store their rate in r->ops_per_sec.
 * RETURN VALUE: 0; -1 when a failure is recorded in r->fail meanwhile.
 * THREAD SAFETY: any thread; the counters' threads keep running.
 */
int load_measure(const struct load_params *params, struct load_counter *ctr, unsigned n,
		 struct load_result *r);

#endif
