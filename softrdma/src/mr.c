/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Protection domains and memory regions. Keys are (slot << 8 | variant): the
 * variant changes on every registration of a slot so stale keys fail.
 * Registration checks that the range is mapped but pins nothing; when the
 * range is a shared mapping of a file or memfd, the MR keeps a descriptor
 * of that file for same-host peers to map (share.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "ctx.h"
#include "mr.h"
#include "shm.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova

static pthread_rwlock_t softrdma_mr_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct softrdma_mr *softrdma_mr_tab[SOFTRDMA_MAX_MR];
static uint8_t softrdma_mr_variant[SOFTRDMA_MAX_MR];
static uint32_t softrdma_mr_next = 1;
static uint32_t softrdma_pd_next;

/*
 * How far a slot's key byte moves at each registration: 1 to 255, drawn at
 * random, so a key never comes back right after it was freed and a peer
 * that saw one key of a slot cannot tell the next.
 */
static uint8_t
softrdma_mr_key_step(void)
{
	uint8_t b = 0;

#ifdef SOFTRDMA_MR_KEY_STEP
	/* the fuzzers' build: the keys recorded in their seeds are the keys they get */
	return SOFTRDMA_MR_KEY_STEP;
#endif
	if (getrandom(&b, 1, GRND_NONBLOCK) != 1)
		b = 0; /* no entropy yet (early boot): the next key, as before */
	return 1 + b % 255;
}

/* Take a reference on @pd for an object created in it. */
void
softrdma__pd_get(struct ibv_pd *pd)
{
	__atomic_add_fetch(&((struct softrdma_pd *)pd)->refs, 1, __ATOMIC_RELAXED);
}

/* Drop a reference taken by softrdma__pd_get. */
void
softrdma__pd_put(struct ibv_pd *pd)
{
	__atomic_sub_fetch(&((struct softrdma_pd *)pd)->refs, 1, __ATOMIC_RELAXED);
}

/* Allocate a protection domain (not on a context inherited through fork). */
struct ibv_pd *
ibv_alloc_pd(struct ibv_context *context)
{
	struct softrdma_pd *p;

	if (softrdma__ctx_inherited(context)) {
		errno = EIO;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->pd.context = context;
	/* a small unique id: peers compare it with the PD of an rkey */
	p->pd.handle = __atomic_add_fetch(&softrdma_pd_next, 1, __ATOMIC_RELAXED);
	return &p->pd;
}

/* Free a protection domain that no object uses any more. */
int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct softrdma_pd *p = (struct softrdma_pd *)pd;

	if (__atomic_load_n(&p->refs, __ATOMIC_RELAXED))
		return EBUSY;
	free(p);
	return 0;
}

/* Look up @key and hold the table read lock until softrdma__mr_put. */
struct softrdma_mr *
softrdma__mr_get(uint32_t key)
{
	uint32_t slot = key >> 8;
	struct softrdma_mr *mr;

	pthread_rwlock_rdlock(&softrdma_mr_lock);
	if (!slot || slot >= SOFTRDMA_MAX_MR)
		return NULL;
	mr = softrdma_mr_tab[slot];
	if (!mr || mr->mr.lkey != key)
		return NULL;
	return mr;
}

/* Release the lock taken by softrdma__mr_get (always, even on NULL). */
void
softrdma__mr_put(void)
{
	pthread_rwlock_unlock(&softrdma_mr_lock);
}

/* Check that [addr, addr+len) lies in @mr, @pd matches and @access is granted. */
int
softrdma__mr_check(struct softrdma_mr *mr, struct ibv_pd *pd, uint64_t addr, uint64_t len,
		   int access)
{
	if (!mr || mr->mr.pd != pd)
		return EACCES;
	if (addr < mr->iova || len > mr->mr.length || addr - mr->iova > mr->mr.length - len)
		return ERANGE;
	if ((mr->access & access) != access)
		return EPERM;
	return 0;
}

/* Translate the I/O virtual address @addr of @mr to a process pointer. */
void *
softrdma__mr_ptr(struct softrdma_mr *mr, uint64_t addr)
{
	return (char *)mr->mr.addr + (addr - mr->iova);
}

/* Validate access flags the way the kernel does. */
static int
softrdma_access_ok(unsigned int access)
{
	unsigned int known = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			     IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED |
			     IBV_ACCESS_RELAXED_ORDERING;

	if (access & IBV_ACCESS_ON_DEMAND)
		return EOPNOTSUPP;
	if (access & ~known)
		return EINVAL;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

/* Register [addr, addr+length) with I/O virtual address @iova. */
struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	struct softrdma_mr *mr;
	uint32_t slot, i;
	int err;

	err = softrdma__ctx_inherited(pd->context) ? EIO : softrdma_access_ok(access);
	if (err)
		goto fail;
	if (!softrdma__range_mapped(addr, length, !!(access & IBV_ACCESS_LOCAL_WRITE))) {
		err = EFAULT;
		goto fail;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		err = ENOMEM;
		goto fail;
	}
	/* before the lock: it reads /proc and may scan the descriptors */
	softrdma__share_probe(addr, length, access, &mr->share);
	pthread_rwlock_wrlock(&softrdma_mr_lock);
	for (i = 0, slot = 0; i < SOFTRDMA_MAX_MR - 1; i++) {
		uint32_t s = (softrdma_mr_next + i) % (SOFTRDMA_MAX_MR - 1) + 1;

		if (!softrdma_mr_tab[s]) {
			slot = s;
			break;
		}
	}
	if (!slot) {
		pthread_rwlock_unlock(&softrdma_mr_lock);
		err = ENOMEM;
		goto release_share;
	}
	softrdma_mr_next = slot + 1;
	softrdma_mr_variant[slot] += softrdma_mr_key_step();
	mr->mr.context = pd->context;
	mr->mr.pd = pd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	mr->mr.handle = slot;
	mr->mr.lkey = slot << 8 | softrdma_mr_variant[slot];
	mr->mr.rkey = mr->mr.lkey;
	mr->access = access;
	mr->iova = (access & IBV_ACCESS_ZERO_BASED) ? 0 : iova;
	softrdma_mr_tab[slot] = mr;
	softrdma__seg_publish(slot, mr, pd->handle);
	pthread_rwlock_unlock(&softrdma_mr_lock);
	softrdma__pd_get(pd);
	return &mr->mr;

release_share:
	softrdma__share_release(&mr->share);
	free(mr);
fail:
	errno = err;
	return NULL;
}

/* Classic registration: the I/O virtual address is the process address. */
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, access);
}

/* Registration with a caller-chosen I/O virtual address. */
struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, access);
}

/*
 * Unregister @mr; its keys become invalid at once. An MR inherited through
 * fork is not in this process's table: only the child's copy is freed.
 */
int
ibv_dereg_mr(struct ibv_mr *mr)
{
	struct softrdma_mr *m = (struct softrdma_mr *)mr;
	struct ibv_pd *pd = mr->pd;

	pthread_rwlock_wrlock(&softrdma_mr_lock);
	if (mr->handle < SOFTRDMA_MAX_MR && softrdma_mr_tab[mr->handle] == m) {
		softrdma_mr_tab[mr->handle] = NULL;
		softrdma__seg_publish(mr->handle, NULL, 0);
	}
	pthread_rwlock_unlock(&softrdma_mr_lock);
	/* after the entry is gone: a peer that fetched the number meanwhile sees it moved */
	softrdma__share_release(&m->share);
	softrdma__pd_put(pd);
	free(m);
	return 0;
}

/*
 * Change PD, translation or access of @mr. As on an RNIC (rxe, mlx5 with
 * its UMR path), a new PD or new access rights keep the keys: peers go on
 * using the rkey they were given, and the new rights apply to it at once.
 * A new translation gets new keys, so a peer holding the old rkey cannot
 * reach the new memory.
 */
int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct softrdma_mr *m = (struct softrdma_mr *)mr;
	void *naddr = (flags & IBV_REREG_MR_CHANGE_TRANSLATION) ? addr : mr->addr;
	size_t nlen = (flags & IBV_REREG_MR_CHANGE_TRANSLATION) ? length : mr->length;
	int nacc = (flags & IBV_REREG_MR_CHANGE_ACCESS) ? access : m->access;
	struct ibv_pd *npd = (flags & IBV_REREG_MR_CHANGE_PD) ? pd : mr->pd;
	uint32_t slot = mr->handle;
	struct softrdma_share share, old;

	if (flags & ~IBV_REREG_MR_FLAGS_SUPPORTED)
		return IBV_REREG_MR_ERR_INPUT;
	if (!npd || npd->context != mr->context || !nlen)
		return IBV_REREG_MR_ERR_INPUT;
	if (softrdma_access_ok(nacc))
		return IBV_REREG_MR_ERR_INPUT;
	if (!softrdma__range_mapped(naddr, nlen, !!(nacc & IBV_ACCESS_LOCAL_WRITE)))
		return IBV_REREG_MR_ERR_INPUT;
	/* new memory or new rights: the file behind it, opened for them, is looked up again */
	softrdma__share_probe(naddr, nlen, nacc, &share);
	pthread_rwlock_wrlock(&softrdma_mr_lock);
	if (slot >= SOFTRDMA_MAX_MR || softrdma_mr_tab[slot] != m) {
		/* inherited from the parent of this forked process: not in the table */
		pthread_rwlock_unlock(&softrdma_mr_lock);
		softrdma__share_release(&share);
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION)
		softrdma_mr_variant[slot] += softrdma_mr_key_step();
	if (npd != mr->pd) {
		softrdma__pd_put(mr->pd);
		softrdma__pd_get(npd);
	}
	mr->pd = npd;
	mr->addr = naddr;
	mr->length = nlen;
	m->access = nacc;
	m->iova = (uintptr_t)naddr;
	mr->lkey = slot << 8 | softrdma_mr_variant[slot];
	mr->rkey = mr->lkey;
	old = m->share;
	m->share = share;
	softrdma__seg_publish(slot, m, npd->handle);
	pthread_rwlock_unlock(&softrdma_mr_lock);
	softrdma__share_release(&old);
	return 0;
}

/*
 * fork(), in the child: an empty table, so no key of the parent reaches the
 * child's copy of its memory. Only used slots are written (the table is
 * large; the rest stays shared with the parent until written). The lock is
 * made anew: a thread of the parent may have held it. It is not taken
 * before fork: whatever a registration of the parent was doing, the child
 * throws the whole table away.
 */
void
softrdma__mr_fork_child(void)
{
	uint32_t i;

	for (i = 0; i < SOFTRDMA_MAX_MR; i++)
		if (softrdma_mr_tab[i])
			softrdma_mr_tab[i] = NULL;
	softrdma_mr_next = 1;
	pthread_rwlock_init(&softrdma_mr_lock, NULL);
	softrdma__share_fork_child();
}
