/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * bload.h -- the load of bare librpma, the upstream model: T threads, each
 * driving C connections that each have their own CQ, which the thread
 * polls round robin; the same writes as wload (params->window outstanding
 * per connection, in batches of params->batch with only the last
 * signaled), refilled when a batch's completion is taken.
 */

#ifndef RPMAF_BENCH_BLOAD_H
#define RPMAF_BENCH_BLOAD_H

#include "load.h"

/*
 * bload_run -- connect threads * conns_per_thread connections to the server
 * at params->port, write, measure (load_measure()), drain and disconnect.
 *
 * RETURN VALUE
 * 0 and r filled; -1 with r->fail set (a connection that could not be
 * made, a failed write, a time-out); r->conns then says how many
 * connections were established.
 *
 * THREAD SAFETY
 * One run at a time per process.
 */
int bload_run(const struct load_params *params, unsigned threads, unsigned conns_per_thread,
	      struct load_result *r);

#endif
