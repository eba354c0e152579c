/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wload.h -- the load of librpmaf's workers: W worker threads (busy
 * polling), each owning C connections and polling ONE send CQ shared by
 * all of them; every connection keeps params->window 64-byte RDMA writes
 * outstanding, in batches of params->batch admitted by rpmaf_wconn_admit()
 * (only the last write of a batch signaled), and refills a batch from the
 * worker's on_wc callback when the batch's completion comes.
 */

#ifndef RPMAF_BENCH_WLOAD_H
#define RPMAF_BENCH_WLOAD_H

#include "load.h"

/*
 * wload_run -- connect workers * conns_per_worker connections to the server
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
int wload_run(const struct load_params *params, unsigned workers, unsigned conns_per_worker,
	      struct load_result *r);

#endif
