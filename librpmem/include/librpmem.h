/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * librpmem.h -- the public interface of librpmem, the remote persistent
 * memory library: a local memory pool replicated into a pool on another
 * host over RDMA, made persistent there range by range.
 *
 * The ABI is that of PMDK's librpmem 1.11 (API version 1.3): the same
 * SONAME (librpmem.so.1), the same symbols under the version node
 * LIBRPMEM_1.0, the same types, constants and signatures, so that programs
 * and libraries built against PMDK's librpmem (libpmemobj's remote
 * replicas) run unchanged. What differs is underneath: the library
 * connects to a running rpmemd(8) over the framework's RDMA connections,
 * authenticated with a pre-shared key, instead of starting rpmemd over ssh
 * for every pool. librpmem(7) describes the target string, the
 * configuration (LIBRPMEM_CONFIG) and the persistence methods.
 *
 * ERRORS
 * A function returning a pointer returns NULL on failure, one returning int
 * returns -1; both set errno to a positive errno value, and
 * rpmem_errormsg() gives a message saying what failed, for the calling
 * thread. A failure of the connection that carries a pool's data (lost:
 * ECONNRESET or ECONNABORTED; an operation beyond the configuration's
 * timeouts.operation_ms: ETIMEDOUT) breaks the pool: the call that meets it
 * and every later call on that pool fail with the same errno. No call
 * waits for ever: every exchange with the daemon is bounded by
 * timeouts.operation_ms, making a connection by timeouts.connect_ms.
 *
 * THREAD SAFETY
 * - rpmem_create(), rpmem_open() and rpmem_remove() may be called from any
 *   thread at any time, on any pools.
 * - A lane of a pool is used by one thread at a time: the library has no
 *   lock of its own per lane. Different lanes of one pool may be used by
 *   different threads at the same time, and give no ordering between each
 *   other.
 * - rpmem_close() is called once per pool, last: when no other thread is
 *   in a call on that pool, and the handle is not used after it.
 * - rpmem_check_version() and rpmem_errormsg() are thread-safe.
 */

#ifndef LIBRPMEM_H
#define LIBRPMEM_H 1

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the version of the API this header describes (rpmem_check_version()) */
#define RPMEM_MAJOR_VERSION 1
#define RPMEM_MINOR_VERSION 3

/* sizes of the fields of struct rpmem_pool_attr */
#define RPMEM_POOL_HDR_SIG_LEN	  8  /* signature */
#define RPMEM_POOL_HDR_UUID_LEN	  16 /* each UUID */
#define RPMEM_POOL_USER_FLAGS_LEN 16 /* user_flags */

/* rpmem_persist() flags: no ordering or atomicity promise within the call */
#define RPMEM_PERSIST_RELAXED (1U << 0)

/* rpmem_flush() flags: no ordering or atomicity promise within the call */
#define RPMEM_FLUSH_RELAXED (1U << 0)

/* rpmem_remove() flags */
#define RPMEM_REMOVE_FORCE    0x1 /* remove the parts of an inconsistent pool too */
#define RPMEM_REMOVE_POOL_SET 0x2 /* remove the pool set file as well */

/* the smallest pool_size of rpmem_create() and rpmem_open(): 8 KiB */
#define RPMEM_MIN_POOL ((size_t)(1024 * 8))

/* the smallest part file of a remote pool set: 2 MiB */
#define RPMEM_MIN_PART ((size_t)(1024 * 1024 * 2))

/* an open remote pool: an opaque handle */
typedef struct rpmem_pool RPMEMpool;

/*
 * The attributes of a remote pool, kept in its metadata (the first 4096
 * bytes of the pool, in PMDK's pool header format). 104 bytes, no padding;
 * the library stores them and gives them back bit for bit, it does not
 * interpret them.
 */
struct rpmem_pool_attr {
	char signature[RPMEM_POOL_HDR_SIG_LEN];		     /* the pool's format ("PMEMOBJ") */
	uint32_t major;					     /* the format's major version */
	uint32_t compat_features;			     /* features a reader may ignore */
	uint32_t incompat_features;			     /* features a reader must know */
	uint32_t ro_compat_features;			     /* unknown ones: read-only */
	unsigned char poolset_uuid[RPMEM_POOL_HDR_UUID_LEN]; /* the pool set it belongs to */
	unsigned char uuid[RPMEM_POOL_HDR_UUID_LEN];	     /* its first part */
	unsigned char next_uuid[RPMEM_POOL_HDR_UUID_LEN];    /* the next replica */
	unsigned char prev_uuid[RPMEM_POOL_HDR_UUID_LEN];    /* the previous replica */
	unsigned char user_flags[RPMEM_POOL_USER_FLAGS_LEN]; /* the caller's own */
};

/* ------------------------------------------------------------ remote pools */

/*
 * rpmem_create -- create the remote pool described by the pool set file
 * pool_set_name on the daemon at target ("[user@]host[:port]", port 7636 by
 * default, user ignored), and tie it to the local memory pool of pool_size
 * bytes at pool_addr, whose ranges rpmem_persist() and rpmem_flush() copy
 * into it. pool_set_name is relative to the daemon's rpmem.poolset_dir.
 * pool_addr and pool_size are multiples of the page size; pool_size is at
 * least RPMEM_MIN_POOL and the pool set provides at least pool_size bytes,
 * its first 4096 bytes counted ("Remote pool size" in rpmem_create(3)).
 * *nlanes is the number of lanes asked for (at least 1); on success it is
 * set to the lanes granted: the smallest of what was asked, the daemon's
 * rpmem.max_lanes, 1024 and RPMEM_MAX_NLANES of the environment when it is
 * a positive integer. create_attr, when neither NULL nor all zero,
 * is stored in the pool's metadata (its first 4096 bytes); NULL or all
 * zero makes a pool without metadata, which needs a pool set file with
 * OPTION NOHDRS.
 *
 * RETURN VALUE
 * The handle of the open pool; NULL with errno set on failure, *nlanes
 * untouched.
 *
 * ERRORS
 * - EINVAL       target is NULL or not [user@]host[:port]; pool_set_name is
 *                NULL, empty, absolute, longer than 255 bytes or has a "..",
 *                "." or empty element; pool_addr is NULL or pool_addr or
 *                pool_size is not page-aligned; pool_size is below
 *                RPMEM_MIN_POOL; nlanes is NULL or *nlanes is 0; the local
 *                pool cannot be registered with the RDMA device; the pool set
 *                file is not a valid remote pool set; attributes were given
 *                for a NOHDRS set, or none for a set with headers; the file
 *                named by LIBRPMEM_CONFIG is not a valid configuration, or
 *                has more than one target
 * - ENOENT       no such pool set file, or a part's directory is missing
 * - EEXIST       a part file of the set exists already
 * - EBUSY        a part file is in use (locked by an open pool)
 * - EFBIG        the pool set is smaller than pool_size
 * - EACCES       the daemon refused the library's key (or the library has
 *                none and the daemon requires one), or may not access a file
 * - E2BIG, EOVERFLOW, ENAMETOOLONG  the pool set file is too large, a size
 *                overflows, a part's path is too long
 * - ENOSPC, EDQUOT, EROFS, ENOTDIR, EPERM, EIO  the daemon's file system
 * - ENOMEM       out of memory, here or on the daemon
 * - EHOSTUNREACH no RDMA device of this host reaches the target's host
 * - ETIMEDOUT    no connection to a daemon at target was ready within
 *                timeouts.connect_ms (no daemon listening there, say), or
 *                the daemon did not answer within timeouts.operation_ms
 * - ECONNRESET, ECONNABORTED  the connection was lost during the call
 * - EPROTO       the daemon's answer is malformed
 * - EREMOTEIO    the daemon failed the request without saying why
 *
 * THREAD SAFETY
 * Thread-safe: any thread, at any time, on any pools.
 */
RPMEMpool *rpmem_create(const char *target, const char *pool_set_name, void *pool_addr,
			size_t pool_size, unsigned *nlanes,
			const struct rpmem_pool_attr *create_attr);

/*
 * rpmem_open -- open the existing remote pool of the pool set file
 * pool_set_name on the daemon at target, tied to the local memory pool of
 * pool_size bytes at pool_addr; the arguments are those of rpmem_create().
 * open_attr, when not NULL, receives the pool's attributes exactly as they
 * were given at creation (or by the last rpmem_set_attr()); all zero for a
 * pool without metadata.
 *
 * RETURN VALUE
 * The handle of the open pool; NULL with errno set on failure, *nlanes and
 * *open_attr untouched.
 *
 * ERRORS
 * Those of rpmem_create(), but EEXIST, and:
 * - ENOENT       no such pool set file, or a part file is missing
 * - EBUSY        the pool is open already (by this or another client), or a
 *                part is in use
 * - EFBIG        the pool is smaller than pool_size
 * - EUCLEAN      the part files do not make the pool the set describes: a
 *                size differs from the set's, a header is missing, damaged
 *                or disagrees with the others
 *
 * THREAD SAFETY
 * Thread-safe: any thread, at any time, on any pools.
 */
RPMEMpool *rpmem_open(const char *target, const char *pool_set_name, void *pool_addr,
		      size_t pool_size, unsigned *nlanes, struct rpmem_pool_attr *open_attr);

/*
 * rpmem_set_attr -- replace the attributes of the open pool rpp with attr
 * (NULL stands for all zero), written to its metadata on the daemon before
 * the call returns. A pool without metadata takes only zero attributes.
 *
 * RETURN VALUE
 * 0; -1 with errno set on failure (the pool keeps its old attributes).
 *
 * ERRORS
 * - EINVAL       rpp is NULL; attributes for a pool without metadata
 * - EIO, ENOSPC, ...  the daemon could not write the metadata
 * - ECONNRESET, ECONNABORTED, ETIMEDOUT, EPROTO, EREMOTEIO  as for
 *                rpmem_create(), or the errno of an earlier failure that
 *                broke the pool
 *
 * THREAD SAFETY
 * Any thread, while other threads use the pool's lanes; not from two
 * threads at once on one pool, and not during or after rpmem_close().
 */
int rpmem_set_attr(RPMEMpool *rpp, const struct rpmem_pool_attr *attr);

/*
 * rpmem_close -- close the remote pool rpp: wait for the flushes still in
 * flight on its lanes (their failures are not reported: drain first to
 * know), have the daemon close the pool (its data stays in the part files,
 * for a later rpmem_open()) and release every resource of the handle here
 * and on the daemon. The handle is freed even when the call fails, and
 * must not be used again.
 *
 * RETURN VALUE
 * 0; -1 with errno set when the daemon could not be told (the pool is
 * closed by the daemon all the same once the connection is gone).
 *
 * ERRORS
 * - EINVAL       rpp is NULL
 * - ECONNRESET, ECONNABORTED, ETIMEDOUT, EPROTO, EREMOTEIO  as for
 *                rpmem_create(), or the errno of an earlier failure that
 *                broke the pool
 *
 * THREAD SAFETY
 * Once per pool, last: no other call on rpp may be running or follow.
 */
int rpmem_close(RPMEMpool *rpp);

/*
 * rpmem_remove -- remove the part files of the remote pool of the pool set
 * file pool_set_name on the daemon at target. flags is 0 or an OR of
 * RPMEM_REMOVE_FORCE (remove the parts even when the pool is not
 * consistent, passing over missing ones; the set file must still be valid)
 * and RPMEM_REMOVE_POOL_SET (remove the pool set file too). Without FORCE
 * nothing is removed from an inconsistent pool.
 *
 * RETURN VALUE
 * 0; -1 with errno set on failure.
 *
 * ERRORS
 * - EINVAL       target or pool_set_name as for rpmem_create(); flags has
 *                bits other than the two above; the pool set file is not
 *                valid
 * - ENOENT       no such pool set file; without FORCE, a part is missing
 * - EBUSY        the pool is open
 * - EUCLEAN      without FORCE: the pool is not consistent (as rpmem_open())
 * - EACCES, EPERM, EIO, ...  the daemon's file system, or the key
 * - the connection errors of rpmem_create()
 *
 * THREAD SAFETY
 * Thread-safe: any thread, at any time, on any pools.
 */
int rpmem_remove(const char *target, const char *pool_set_name, int flags);

/* ------------------------------------------------------------- persistence */

/*
 * rpmem_persist -- copy the length bytes at offset of the local pool to the
 * same offset of the remote pool, on lane lane, and return once they are
 * persistent there. With flags 0 the transfer is ordered and every aligned
 * 8-byte word reaches the remote pool whole; RPMEM_PERSIST_RELAXED gives no
 * such promise within the call (the range is persistent all the same when
 * it returns). How persistence is reached, APM or GPSPM, is the daemon's
 * choice (librpmem(7)). It does not wait for the flushes started before it
 * on the lane: rpmem_drain() does.
 *
 * RETURN VALUE
 * 0; -1 with errno set on failure.
 *
 * ERRORS
 * - EINVAL       rpp is NULL; lane is not below the *nlanes granted;
 *                offset + length is beyond pool_size; flags has a bit other
 *                than RPMEM_PERSIST_RELAXED; the pool has metadata and
 *                offset is below 4096
 * - ECONNRESET, ECONNABORTED  the connection was lost
 * - ETIMEDOUT    the transfer did not complete within timeouts.operation_ms
 * - EREMOTEIO    the daemon failed to persist the range
 * The first three break the pool: every later call on it fails with the
 * same errno. After any of the four, whether the range is persistent on
 * the target is unknown.
 *
 * THREAD SAFETY
 * A lane by one thread at a time; different lanes concurrently.
 */
int rpmem_persist(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane, unsigned flags);

/*
 * rpmem_deep_persist -- rpmem_persist() with flags 0: the range is made
 * persistent by the pool's method, and flushed no further (PMDK's asked
 * the target for a deep flush as well). offset is at least 4096 whether or
 * not the pool has metadata.
 *
 * RETURN VALUE
 * 0; -1 with errno set on failure.
 *
 * ERRORS
 * Those of rpmem_persist(); EINVAL for any offset below 4096.
 *
 * THREAD SAFETY
 * A lane by one thread at a time; different lanes concurrently.
 */
int rpmem_deep_persist(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane);

/*
 * rpmem_flush -- start copying the length bytes at offset of the local pool
 * to the remote pool on lane lane, without waiting for them to be
 * persistent: the first half of rpmem_persist(), completed by
 * rpmem_drain() on the same lane. flags is 0 or RPMEM_FLUSH_RELAXED, with
 * the meaning of rpmem_persist()'s. The local bytes may be read by the
 * transfer until rpmem_drain() returns. A lane has a few flushes in flight
 * at most: beyond them, a flush first waits for the oldest one.
 *
 * RETURN VALUE
 * 0 once the transfer is started; -1 with errno set on failure. A failure
 * of the transfer itself is reported by the next rpmem_drain() of the lane.
 *
 * ERRORS
 * Those of rpmem_persist(), with RPMEM_FLUSH_RELAXED for the valid flag.
 *
 * THREAD SAFETY
 * A lane by one thread at a time; different lanes concurrently.
 */
int rpmem_flush(RPMEMpool *rpp, size_t offset, size_t length, unsigned lane, unsigned flags);

/*
 * rpmem_drain -- wait until every range rpmem_flush() started on lane lane
 * since its last drain is persistent on the remote node. flags must be 0.
 *
 * RETURN VALUE
 * 0; -1 with errno set on failure.
 *
 * ERRORS
 * - EINVAL       rpp is NULL; lane is not below the *nlanes granted; flags
 *                is not 0
 * - ECONNRESET, ECONNABORTED, ETIMEDOUT, EREMOTEIO  a flush of the lane
 *                failed, as rpmem_persist() does
 *
 * THREAD SAFETY
 * A lane by one thread at a time; different lanes concurrently.
 */
int rpmem_drain(RPMEMpool *rpp, unsigned lane, unsigned flags);

/*
 * rpmem_read -- copy the length bytes at offset of the remote pool into
 * buff, on lane lane. Reading the metadata (offsets below 4096) is allowed.
 *
 * RETURN VALUE
 * 0 once all the bytes are in buff; -1 with errno set on failure (buff may
 * then hold part of them).
 *
 * ERRORS
 * - EINVAL       rpp or buff is NULL; lane is not below the *nlanes
 *                granted; offset + length is beyond pool_size; buff cannot
 *                be registered with the RDMA device
 * - ENOMEM       registering buff (outside the local pool) ran out of memory
 * - ECONNRESET, ECONNABORTED, ETIMEDOUT, EREMOTEIO  as for rpmem_persist()
 *
 * THREAD SAFETY
 * A lane by one thread at a time; different lanes concurrently.
 */
int rpmem_read(RPMEMpool *rpp, void *buff, size_t offset, size_t length, unsigned lane);

/* ----------------------------------------------------- versions and errors */

/*
 * rpmem_check_version -- tell whether this library provides API version
 * major_required.minor_required: the same major version and a minor version
 * not above its own (RPMEM_MAJOR_VERSION, RPMEM_MINOR_VERSION).
 *
 * RETURN VALUE
 * NULL when it does; otherwise a string saying why not, the calling
 * thread's message (rpmem_errormsg()), which the caller neither modifies
 * nor frees.
 *
 * THREAD SAFETY
 * Thread-safe.
 */
const char *rpmem_check_version(unsigned major_required, unsigned minor_required);

/*
 * rpmem_errormsg -- the message of the last failure of a librpmem call in
 * the calling thread: what failed and, where the daemon said, why.
 *
 * RETURN VALUE
 * A string in a thread-local buffer, never NULL; meaningful right after a
 * call that failed, replaced by later failures of the same thread. The
 * caller neither modifies nor frees it.
 *
 * THREAD SAFETY
 * Thread-safe (the buffer is thread-local).
 */
const char *rpmem_errormsg(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMEM_H */
