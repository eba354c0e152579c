/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * overhead.h -- the framework's cost per operation against bare librpma,
 * in one run and one process (meant to run under callgrind):
 *
 *   bare-write-flush    rpma_write + rpma_flush(PERSISTENT) signaled, then
 *                       rpma_cq_get_wc() on the connection's own CQ until
 *                       the completion comes (rpma_cq_wait() while it is
 *                       empty); at depth D, D operations in flight on the
 *                       one connection, up to D completions taken per poll
 *                       and as many operations posted again
 *   bare-read           rpma_read signaled, polled the same way
 *   pool-write-persist  rpmaf_pool_write(RPMAF_OP_PERSIST) in D chains
 *                       (one at a time at depth 1): each operation's
 *                       callback submits the next; the worker polls event
 *                       (sleeps while its CQs are empty)
 *   pool-read           rpmaf_pool_read, chained the same way
 *
 * 64 bytes each, into one region of a forked server: an rpmaf_server
 * exporting a file-backed region with direct write (APM) for the pool, and
 * the same memory registered again and exported by a plain librpma server
 * (peer configuration: direct write to PMem) for the bare connection. The
 * bare phases run before the pool's worker exists, so that no other thread
 * of the process runs during them but softrdma's own.
 *
 * Each measured phase is bracketed by CALLGRIND_START_INSTRUMENTATION and
 * CALLGRIND_STOP_INSTRUMENTATION (every thread of the process is counted
 * between them) and dumped as CALLGRIND_DUMP_STATS_AT(phase name); the
 * pool's brackets run on the worker thread, at the first operation's
 * submission and in the last one's callback. Outside valgrind they do
 * nothing, and the program prints the phases' wall-clock time per op.
 */

#ifndef RPMAF_BENCH_OVERHEAD_H
#define RPMAF_BENCH_OVERHEAD_H

#define OVERHEAD_SIZE	   64 /* bytes of one operation */
#define OVERHEAD_WARMUP	   64 /* operations before each measured phase, at most */
#define OVERHEAD_OPS_MAX   10000000u
#define OVERHEAD_DEPTH_MAX 64 /* operations in flight, at most */

/*
 * overhead_run -- fork the server, run the four phases of ops operations
 * each with depth of them in flight (1 to OVERHEAD_DEPTH_MAX), print their
 * table and the server's end.
 *
 * RETURN VALUE
 * 0; -1 after printing what failed.
 *
 * THREAD SAFETY
 * Once per process (it forks).
 */
int overhead_run(unsigned ops, unsigned depth);

#endif
