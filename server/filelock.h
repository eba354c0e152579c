/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * filelock.h -- the exclusive lock a server holds on each region file it
 * exports, so that no second server (or rpmemd, or any other process that
 * locks the same way) exports or changes the same file.
 *
 * THE LOCK
 * flock(2) LOCK_EX | LOCK_NB, the lock rpmemd takes on its pool parts
 * (tools/rpmemd/pool.c), so that the two exclude each other too. It belongs
 * to the open file description, not to the process:
 * - two servers of one process (or two threads) conflict, as two processes
 *   do; a classic fcntl() lock would let a process lock a file twice;
 * - closing another descriptor of the same file (libpmem2, a second
 *   server that failed to lock it) does not drop it, where a classic
 *   fcntl() lock goes with the first close of any descriptor of the file;
 * - it lasts while the description does: the descriptor and every mapping
 *   of it (a mapping keeps the description), so it is released once the
 *   region is unmapped and its file closed.
 * The cost: fcntl(F_GETLK) cannot name the holder of a flock() lock (nor
 * of an OFD lock: it answers -1). The kernel's table (/proc/locks) can:
 * rpmaf__filelock_holder() looks there, and a holder not found there
 * (no /proc, another namespace) is reported as unknown. On NFS, where
 * Linux emulates flock() with a whole-file fcntl() lock, two servers of
 * one process do not exclude each other (two processes still do).
 */

#ifndef RPMAF_SERVER_FILELOCK_H
#define RPMAF_SERVER_FILELOCK_H

#include <sys/types.h>

/*
 * rpmaf__filelock_take -- lock the file open at fd exclusively, without
 * waiting. The lock goes when the open file description does (see above).
 * RETURN VALUE: 0; -EWOULDBLOCK (another description holds it); another
 * negative errno of flock(2).
 * CONCURRENCY: any thread.
 */
int rpmaf__filelock_take(int fd);

/*
 * rpmaf__filelock_holder -- the pid of a process holding a flock() lock on
 * the file open at fd (a process that took it: one that inherited the
 * descriptor is not named), or 0 when it cannot be known.
 * CONCURRENCY: any thread; reads /proc/locks.
 */
pid_t rpmaf__filelock_holder(int fd);

#endif /* RPMAF_SERVER_FILELOCK_H */
