/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * server.h -- the target of the benchmark: a plain librpma server that
 * exports one region and accepts every connection with the region's
 * descriptor as private data. It never polls a CQ (the clients only
 * write); one thread watches the listening endpoint and the connections'
 * event descriptors, and deletes each connection when it closes.
 */

#ifndef RPMAF_BENCH_SERVER_H
#define RPMAF_BENCH_SERVER_H

#include <stddef.h>

#define SERVER_REGION_SIZE (4u << 20) /* bytes of the exported region */

/*
 * server_run -- listen on UTIL_ADDR at the first port of first..last that
 * is free, write that port (an unsigned) to ready_fd when it is not -1 and
 * print it on stdout otherwise, then serve until SIGTERM or SIGINT.
 *
 * RETURN VALUE
 * 0 after a clean stop; -1 when the server could not start or serving
 * failed (the reason is printed on stderr).
 *
 * THREAD SAFETY
 * Once per process: it installs the signal handlers.
 */
int server_run(unsigned first, unsigned last, int ready_fd);

/*
 * server_run_apm -- server_run() exporting size bytes at ptr (the caller's
 * memory, which it keeps) as persistent memory written directly: registered
 * for persistent flushes too, and the private data of every connection is
 * the descriptor of a peer configuration with direct write to PMem set,
 * followed by the region's descriptor (the client applies the first with
 * rpma_conn_apply_remote_peer_cfg()).
 *
 * RETURN VALUE, THREAD SAFETY
 * As server_run().
 */
int server_run_apm(void *ptr, size_t size, unsigned first, unsigned last, int ready_fd);

#endif
