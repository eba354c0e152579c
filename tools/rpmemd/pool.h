/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * pool.h -- a remote pool on the target's disk: the part files of one pool
 * set file (poolset.h), their headers (pool_hdr.h), locked and mapped as
 * one contiguous range that rpmemd's request handlers serve to a librpmem
 * client (rpmem_create, rpmem_open, rpmem_set_attr, rpmem_close,
 * rpmem_remove).
 *
 * LAYOUT: WHICH BYTES THE CLIENT'S OFFSETS ADDRESS
 * Byte 0 of the pool is byte 0 of the first part file: its header when the
 * set has headers (the client's metadata, "the first 4096 bytes of the
 * pool"), its data with NOHDRS. The parts follow one another in the order
 * of the set, each rounded down to a multiple of 4096 bytes; a later part
 * that has a header of its own (a set without options) is mapped from byte
 * 4096 of its file on, so its header is not part of the pool and the pool's
 * bytes run on from one part's data to the next. With SINGLEHDR and NOHDRS
 * a later part is mapped whole. Pool offset X is thus at
 *   part 0:   file offset X,                   X < S0
 *   part k:   file offset X - (S0 + ... + S(k-1)) + H
 * where Si is the bytes part i adds to the pool and H is 4096 for a set
 * without options, 0 otherwise. The pool's size, the bytes the client may
 * address, is
 *   (the sum of the part sizes, each rounded down to 4096) - (N - 1) * 4096
 * for a set whose N parts have headers, and the whole sum with SINGLEHDR
 * (N = 1) or NOHDRS (N = 0, nothing taken away). It counts the first
 * header: the librpmem manual's "remote pool size" (poolset_pool_size())
 * leaves it out and is 4096 bytes less, except with NOHDRS. A client's
 * pool_size counts its own header as well (libpmemobj passes the whole
 * size of its local replica, header included), so it is compared with the
 * pool's size: a set whose parts have the client's sizes is large enough.
 * This is how PMDK maps a pool set: util_replica_map_local() and
 * util_poolset_set_size() in src/common/set.c, rpmemd_db_pool_create() and
 * rpmemd_check_pool() in src/tools/rpmemd (PMDK 1.11).
 *
 * LOCKING
 * Every part file is locked with flock(2) LOCK_EX | LOCK_NB while a pool,
 * a create or a remove holds it. flock() locks belong to the open file
 * description, not to the process (as fcntl(2) record locks do): a second
 * open of a pool in the same process is refused like one from another
 * process, and closing some other descriptor of the file does not drop the
 * lock. PMDK's libraries and pmempool lock their part files the same way,
 * so a pool in use by them is refused too. The descriptors are close-on-
 * exec; a child of fork(2) shares them and so keeps the lock until it
 * closes them. Over NFS Linux emulates flock() with record locks, and the
 * per-process semantics come back: keep pools on local file systems.
 *
 * FILES
 * Every file is reached beneath one directory, the dir argument
 * (beneath.h): the set file's path is relative to it, and so is a part's
 * when the set file writes it relative (then to the set file's own
 * directory beneath it); an absolute part must name a file beneath it
 * too. Nothing is reached through a symbolic link, and nothing outside:
 * such a set file or part is refused with -EPERM before any file is
 * created, opened or unlinked. Parts are created and unlinked by their
 * names in their directories' descriptors, never by a path looked up
 * again. The set file must be a regular file owned by the daemon's
 * effective user or by root, that neither its group nor others may write
 * (-EPERM otherwise): whoever may write it chooses the files the daemon
 * creates and removes.
 *
 * ERRORS
 * Every function returns 0 or a negative errno, as librpmem reports them
 * to its caller, and puts one message in err (err_len bytes at most, NUL
 * included; POOL_ERR_MAX is enough when paths are shorter than PATH_MAX)
 * naming the file and what is wrong. err may be NULL. Files are named by
 * their paths relative to dir, never by an absolute path, except a part
 * refused for being outside dir (-EPERM), whose message quotes it as the
 * set file writes it: a daemon passes -EPERM's messages to its log only. Beside those listed:
 * -EACCES, -ENOSPC, -EIO and the like, from the system call named in the
 * message, and -ENOMEM.
 *
 * ASSUMPTIONS
 * pool_create(), pool_open() and pool_remove() keep no state of their own
 * and share none: any thread may call them at any time, on any pools. On
 * one pool set they exclude each other through the parts' locks: the
 * later call gets -EBUSY (or, creating, -EEXIST), and a call that meets a
 * pool being created or removed may get -EBUSY, -ENOENT or -EUCLEAN. Two
 * sets that name one file exclude each other the same way. A struct pool
 * is owned by its caller: the getters may be called from any thread at
 * any time while it is open, the persist function on its bytes too;
 * pool_set_attr() by one thread at a time, not beside pool_get_attr();
 * pool_close() once, last, when no other thread uses the pool or its
 * bytes.
 */

#ifndef RPMEMD_POOL_H
#define RPMEMD_POOL_H

#include <stddef.h>

#include <libpmem2.h>

#include "beneath.h"
#include "pool_hdr.h"
#include "poolset.h"

#define POOL_ERR_MAX POOLSET_ERR_MAX /* holds any message when paths are shorter than PATH_MAX */

#define POOL_REMOVE_FORCE    0x1 /* librpmem's RPMEM_REMOVE_FORCE */
#define POOL_REMOVE_POOL_SET 0x2 /* librpmem's RPMEM_REMOVE_POOL_SET */

struct pool;

/*
 * pool_create -- a new pool of the set file set_path beneath dir: every part file
 * created (O_EXCL, mode 0666 less the umask), given all its blocks
 * (posix_fallocate(3), so that a store into the mapping never meets a full
 * file system), locked, its header written from attr and synced, then all
 * mapped as LAYOUT says; into *pool_ptr (close it with pool_close())
 *
 * attr NULL or all zero makes a pool without headers: the set must have
 * OPTION NOHDRS, and a NOHDRS set takes no other attributes. The
 * attributes are stored as pool_hdr.h says and come back from pool_open()
 * bit for bit. size is the client's pool_size; 0 asks for nothing.
 *
 * RETURN VALUE
 * 0; or a negative errno with *pool_ptr untouched and no file left that
 * this call created:
 * -EINVAL   dir, set_path or pool_ptr is NULL; the set file is not a valid
 *           remote pool set (poolset_parse()); attributes given for a
 *           NOHDRS set or none for a set with headers; the attributes'
 *           incompat SINGLEHDR bit (POOL_FEAT_SINGLEHDR) and the set's
 *           OPTION SINGLEHDR disagree (as PMDK's rpmemd refuses them)
 * -EPERM    the set file or a part is outside dir or reached through a
 *           symbolic link; the set file is not trusted (FILES)
 * -ENOENT   no set file, or a part's directory does not exist
 * -EFBIG    the pool is smaller than size (checked before any file is made)
 * -EEXIST   a part file exists (it is left as it is)
 * -EBUSY    a part was locked by another caller in the instant after it
 *           was created
 * -E2BIG, -EOVERFLOW, -ENAMETOOLONG  the set file, as poolset_parse() says
 */
int pool_create(const struct beneath_dir *dir, const char *set_path,
		const struct pool_hdr_attr *attr, size_t size, struct pool **pool_ptr, char *err,
		size_t err_len);

/*
 * pool_open -- the existing pool of the set file set_path beneath dir: every part
 * opened and locked, its size checked against the set, every header read
 * and verified, alone and as a set, then all mapped as LAYOUT says; into
 * *pool_ptr (close it with pool_close())
 *
 * RETURN VALUE
 * 0; or a negative errno with *pool_ptr untouched:
 * -EINVAL   dir, set_path or pool_ptr is NULL; the set file is not valid; a
 *           part is not a regular file
 * -EPERM    as for pool_create()
 * -ENOENT   no set file, or a part file is missing
 * -EFBIG    the pool is smaller than size (0 asks for nothing)
 * -EBUSY    a part is locked: the pool, or a set sharing a part, is open
 * -EUCLEAN  the part files do not make the pool the set describes: a part's
 *           size is not the set's, a header is missing, damaged or does not
 *           agree with the others, or the headers' SINGLEHDR bit is not the
 *           set's option
 */
int pool_open(const struct beneath_dir *dir, const char *set_path, size_t size,
	      struct pool **pool_ptr, char *err, size_t err_len);

/*
 * pool_set_attr -- new attributes for an open pool, as rpmem_set_attr()
 * sets them: every header rewritten and synced, the first part's UUID
 * taken from attr->id.uuid (and its neighbours' links to it), the other
 * parts' UUIDs, creation times and shutdown states kept; attr NULL is all
 * zero. A pool without headers takes only zero attributes, and stores
 * nothing.
 *
 * RETURN VALUE
 * 0; -EINVAL when pool is NULL or the attributes do not fit the set (as for
 * pool_create()); an error of writing or syncing a header, after which the
 * headers on disk may be part old and part new (the message says which
 * part failed) and the pool keeps its old attributes.
 */
int pool_set_attr(struct pool *pool, const struct pool_hdr_attr *attr, char *err, size_t err_len);

/*
 * pool_close -- unmap *pool_ptr, unlock and close its parts, free it and
 * set *pool_ptr to NULL (NULL or *pool_ptr NULL is fine). The bytes the
 * client persisted are on disk already: closing adds nothing.
 *
 * RETURN VALUE
 * 0; or the negative errno of a failed unmapping (everything is released
 * all the same).
 */
int pool_close(struct pool **pool_ptr, char *err, size_t err_len);

/*
 * pool_remove -- unlink the part files of the set file set_path beneath dir, and the
 * set file as well with POOL_REMOVE_POOL_SET. Each part is locked before
 * it is unlinked, so a pool in use is never removed. Without
 * POOL_REMOVE_FORCE the pool is checked first as pool_open() checks it and
 * nothing is removed if it is not consistent; with it, a missing part is
 * passed over and the sizes and headers are not looked at (the set file
 * must still be valid). When a part cannot be unlinked the others still
 * are, and the set file is kept.
 *
 * RETURN VALUE
 * 0; or a negative errno: -EINVAL (dir or set_path NULL, flags other than
 * the two above, an invalid set file), -EPERM (as for pool_create(): then
 * nothing is unlinked, even with FORCE), -ENOENT (no set file; a missing part
 * without FORCE), -EBUSY (a part is locked), -EUCLEAN (without FORCE: as
 * pool_open()), or an unlink(2) error.
 */
int pool_remove(const struct beneath_dir *dir, const char *set_path, int flags, char *err,
		size_t err_len);

/*
 * pool_get_addr -- byte 0 of the pool (LAYOUT), page-aligned
 */
void *pool_get_addr(const struct pool *pool);

/*
 * pool_get_size -- the bytes of the pool, from pool_get_addr() on (LAYOUT)
 */
size_t pool_get_size(const struct pool *pool);

/*
 * pool_get_persist_fn -- the function that makes any range of the pool's
 * bytes durable: libpmem2's, of the part mapped with the coarsest store
 * granularity (msync(2) for files that are not on persistent memory), so
 * that it holds for every part and for ranges that cross parts
 */
pmem2_persist_fn pool_get_persist_fn(const struct pool *pool);

/*
 * pool_get_granularity -- the coarsest store granularity libpmem2 reports
 * for the pool's parts: PMEM2_GRANULARITY_PAGE unless every part is
 * persistent memory mapped with DAX, in which case a CPU cache flush (or
 * nothing, at byte granularity) makes a store durable
 */
enum pmem2_granularity pool_get_granularity(const struct pool *pool);

/*
 * pool_get_attr -- the pool's attributes into *attr: those given to
 * pool_create() or to the last pool_set_attr(), or read from the headers
 * by pool_open(); all zero for a pool without headers
 */
void pool_get_attr(const struct pool *pool, struct pool_hdr_attr *attr);

#endif /* RPMEMD_POOL_H */
