/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shareable memory regions: memory a process maps from a file or a memfd
 * (MAP_SHARED), which is what rpma-server, rpmemd and libpmem2 map. Its
 * peers on the same host can map the same pages themselves and reach them
 * with plain loads and stores, instead of a process_vm_readv/writev per
 * one-sided operation.
 *
 * Target side (registration): softrdma__share_probe() finds out whether
 * the registered range is one such mapping and keeps a descriptor of the
 * file for as long as the MR is registered; the descriptor's number, the
 * file's identity and the range's offset in it are published in the MR
 * table of the process segment (shm.h).
 *
 * Initiator side (the requester connection's map cache): the first
 * one-sided operation on an rkey fetches that descriptor (pidfd_getfd),
 * checks that it is the file the entry names, maps only the registered
 * range and closes it; later operations copy with memcpy. The cache
 * belongs to one connection and is used under its QP's lock.
 *
 * Threads: the target side runs in ibv_reg_mr/ibv_dereg_mr on the caller's
 * thread, the initiator side under the connection's QP lock (above); an
 * MR's hold on its file is dropped by softrdma__share_release, a cache's
 * mappings go with its connection.
 */
#ifndef SOFTRDMA_SHARE_H
#define SOFTRDMA_SHARE_H

#include <stddef.h>
#include <stdint.h>

/* Flags of a shareable MR (struct softrdma_share, published in the segment). */
#define SOFTRDMA_SHARE_DAX   1u /* persistent memory: flush CPU caches after a write */
#define SOFTRDMA_SHARE_FSDAX 2u /* a file on a DAX file system: map it with MAP_SYNC */

struct softrdma_share_file;

/*
 * The backing of a shareable MR, owned by the MR (fd -1: not shareable).
 * MRs over one file share one descriptor (@file counts them).
 */
struct softrdma_share {
	int fd;
	uint32_t flags;
	uint64_t foff; /* offset in the file of the MR's first byte */
	uint64_t dev;
	uint64_t ino;
	struct softrdma_share_file *file;
};

/*
 * Registration of [addr, addr+len) with @access: when remote access is
 * granted and the whole range is one shared mapping of a regular file, a
 * memfd or a device-DAX device, fill @s with a descriptor of that file
 * (O_CLOEXEC, opened for writing when remote writes are allowed), the one
 * other MRs over that file already hold if any; otherwise s->fd is -1 and
 * the MR takes the cross-memory-attach path. At most an eighth of
 * RLIMIT_NOFILE (16 at least) files are held at a time, so registrations
 * cannot use up the application's descriptors. Never fails the
 * registration. Thread-safe.
 */
void softrdma__share_probe(const void *addr, size_t len, int access, struct softrdma_share *s);
/*
 * Drop @s's hold on its file (deregistration, new translation): the last
 * MR over a file closes its descriptor. s->fd becomes -1. Thread-safe.
 */
void softrdma__share_release(struct softrdma_share *s);
/*
 * fork(), in the child: the list of held files anew (a thread of the parent
 * may have been changing it). Inherited MRs still release their holds,
 * which closes the child's copies of the descriptors.
 */
void softrdma__share_fork_child(void);

/* One peer MR mapped by an initiator: an entry of a connection's map cache. */
struct softrdma_xmap {
	uint32_t slot;
	uint32_t key;
	uint32_t seq; /* the MR table entry's sequence number when mapped */
	int state;    /* 0 empty, 1 mapped, 2 not mappable: cross-memory attach */
	uint32_t flags;
	void *map;
	size_t maplen;
	char *base; /* where the MR's I/O virtual address @iova lies in @map */
	uint64_t iova;
	uint64_t length;
};

#define SOFTRDMA_XMAP_WAYS 64

struct softrdma_seg_mr;

/*
 * Requester: the address in this process of the peer's MR described by the
 * consistent snapshot @e of table entry @slot, mapping it on first use from
 * the peer's descriptor fetched through @pidfd; NULL when the MR is not
 * shareable or cannot be mapped (the caller copies with process_vm_*v).
 * @cache has SOFTRDMA_XMAP_WAYS entries; call with the connection's QP lock
 * held. The result points at the MR's I/O virtual address @e->iova.
 */
char *softrdma__xmap_get(struct softrdma_xmap *cache, int pidfd, uint32_t slot,
			 const struct softrdma_seg_mr *e, uint32_t *flags);
/* Unmap one entry of a map cache (its MR was deregistered) and mark it empty. */
void softrdma__xmap_drop(struct softrdma_xmap *x);
/* Unmap every entry of @cache (the connection goes away, or a forked child drops it). */
void softrdma__xmap_clear(struct softrdma_xmap *cache);
/* Write back the CPU cache lines of [p, p+len) to persistent memory and fence. */
void softrdma__share_flush(const void *p, size_t len);

#endif
