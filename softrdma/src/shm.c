/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host transport: the process segment with the published MR table,
 * peers (pidfd, doorbell, read-only segment mapping), the per-connection
 * rings, and direct one-sided copies with process_vm_readv/writev. Nothing
 * read from a peer's memory is trusted: indices, sizes and keys are checked
 * on every use. Copies between a ring and this process's own buffers (what
 * it sends, its receive buffers, its READ results), checked against its MR
 * table first, are plain memcpy; copies into or out of memory a peer names
 * (the target of its WRITE or READ) go through the kernel, so memory unmapped
 * since its registration is an error for the peer, never a fault here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mr.h"
#include "progress.h"
#include "share.h"
#include "shm.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

#define SOFTRDMA_RING_MASK (SOFTRDMA_RING_SIZE - 1)

static struct {
	pthread_once_t once;
	int enabled;
	int seg_fd;
	struct softrdma_seg *seg;
	uint8_t boot_id[16];
	uint64_t netns;
	uint64_t pidns;
	uint32_t uid;
	uint32_t pid;
	pthread_mutex_t lock;
	struct softrdma_list peers;
} softrdma_shm = {
    .once = PTHREAD_ONCE_INIT,
    .seg_fd = -1,
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

/*
 * A large direct copy is cut into chunks that the posting thread and the
 * progress thread take in turn from a shared cursor, so both cores copy.
 * The poster never waits for the helper to turn up: it takes every chunk
 * left, then waits only for chunks already taken, which involve no lock.
 * One copy at a time is shared; concurrent posters copy alone.
 */
#define SOFTRDMA_SPLIT_MIN   (256u * 1024)
#define SOFTRDMA_SPLIT_CHUNK (64u * 1024)

static struct {
	int owned;   /* a poster is using the job */
	int open;    /* the helper may take chunks */
	int helpers; /* helpers inside the job */
	int fail;    /* a chunk was copied short */
	int is_read;
	int cnt;
	pid_t pid; /* 0: @raddr is in our own mapping of the responder's memory */
	uint64_t total;
	uint64_t next; /* first byte no one has taken */
	char *raddr;
	struct iovec liov[SOFTRDMA_MAX_SGE];
} softrdma_split;

static int softrdma_split_ok = -1;
/*
 * A helper that took a chunk and then lost its CPU holds the poster up
 * until it runs again (a scheduler slice, milliseconds), which costs more
 * than copying alone: when the poster waited that long, it copies alone
 * until this time (now_ns), as a machine that busy gives no second core.
 */
#define SOFTRDMA_SPLIT_STALL_NS	  50000ull
#define SOFTRDMA_SPLIT_BACKOFF_NS 20000000ull
static uint64_t softrdma_split_off_until;

/* Parse the 36-character boot id into 16 bytes; 0 on success. */
static int
softrdma_boot_id(uint8_t out[16])
{
	char s[64];
	int fd, i, n, k = 0;

	fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	if (n < 32)
		return EIO;
	for (i = 0; i < n && k < 32; i++) {
		int v;

		if (s[i] == '-')
			continue;
		if (s[i] >= '0' && s[i] <= '9')
			v = s[i] - '0';
		else if (s[i] >= 'a' && s[i] <= 'f')
			v = s[i] - 'a' + 10;
		else
			return EIO;
		out[k / 2] = (k & 1) ? (out[k / 2] | v) : (uint8_t)(v << 4);
		k++;
	}
	return k == 32 ? 0 : EIO;
}

/* Inode number of one of our namespaces, 0 if unknown. */
static uint64_t
softrdma_ns_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

/* Create a sealed memfd of @size bytes and map it; returns the fd or -errno. */
static int
softrdma_memfd(const char *name, size_t size, void **map)
{
	int fd, err;

	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*map == MAP_FAILED)
		goto fail;
	return fd;

fail:
	err = errno;
	close(fd);
	return -err;
}

/* Build the host identity and the process segment (once). */
static void
softrdma_shm_init(void)
{
	const char *t = getenv("SOFTRDMA_TRANSPORT");
	struct softrdma_seg *seg;
	void *map;
	int fd;

	softrdma__list_init(&softrdma_shm.peers);
	if (t && strcmp(t, "tcp") == 0)
		return;
	if (softrdma_boot_id(softrdma_shm.boot_id))
		return;
	softrdma_shm.netns = softrdma_ns_ino("/proc/self/ns/net");
	softrdma_shm.pidns = softrdma_ns_ino("/proc/self/ns/pid");
	if (!softrdma_shm.netns || !softrdma_shm.pidns)
		return;
	softrdma_shm.uid = getuid();
	softrdma_shm.pid = getpid();
	fd = softrdma_memfd("softrdma-seg", sizeof(struct softrdma_seg), &map);
	if (fd < 0)
		return;
	softrdma_shm.seg_fd = fd;
	seg = map;
	seg->hdr.magic = SOFTRDMA_SEG_MAGIC;
	seg->hdr.version = SOFTRDMA_SHM_VERSION;
	seg->hdr.pid = softrdma_shm.pid;
	seg->hdr.nmr = SOFTRDMA_MAX_MR;
	if (getrandom(&seg->hdr.nonce, sizeof(uint64_t), 0) != sizeof(uint64_t))
		seg->hdr.nonce = softrdma__now_ns() ^ ((uint64_t)getpid() << 32);
	softrdma_shm.enabled = 1;
	/* released: the progress thread reads @seg without pthread_once */
	__atomic_store_n(&softrdma_shm.seg, seg, __ATOMIC_RELEASE);
}

/* Non-zero when this process may use the same-host transport. */
int
softrdma__shm_enabled(void)
{
	pthread_once(&softrdma_shm.once, softrdma_shm_init);
	return softrdma_shm.enabled && softrdma_shm.pid == (uint32_t)getpid();
}

/* The process segment, or NULL when the same-host transport is off. */
struct softrdma_seg *
softrdma__seg(void)
{
	return softrdma__shm_enabled() ? softrdma_shm.seg : NULL;
}

/*
 * Publish (or clear, when @mr is NULL) table entry @slot. Called with the
 * MR table write lock, so there is one writer; readers retry on odd seq.
 */
void
softrdma__seg_publish(uint32_t slot, const struct softrdma_mr *mr, uint32_t pd)
{
	struct softrdma_seg *s = softrdma__seg();
	struct softrdma_seg_mr *e;

	if (!s || slot >= SOFTRDMA_MAX_MR)
		return;
	e = &s->mr[slot];
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (mr) {
		e->key = mr->mr.rkey;
		e->access = mr->access;
		e->pd = pd;
		e->addr = (uintptr_t)mr->mr.addr;
		e->iova = mr->iova;
		e->length = mr->mr.length;
		e->fd = mr->share.fd;
		e->flags = mr->share.flags;
		e->foff = mr->share.foff;
		e->dev = mr->share.dev;
		e->ino = mr->share.ino;
	} else {
		e->key = 0;
		e->access = 0;
		e->length = 0;
		e->fd = -1;
	}
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

/*
 * The process segment for the progress thread and the poll path, which do
 * not go through pthread_once: NULL until softrdma_shm_init() published it.
 */
static struct softrdma_seg *
softrdma_seg_published(void)
{
	return __atomic_load_n(&softrdma_shm.seg, __ATOMIC_ACQUIRE);
}

/* Lock the liveness mutex of our segment for the life of the process (progress thread). */
void
softrdma__shm_hold_alive(void)
{
	struct softrdma_seg *seg = softrdma__seg();
	pthread_mutexattr_t a;
	int err;

	if (!seg || pthread_mutexattr_init(&a))
		return;
	err = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (!err)
		err = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (!err)
		err = pthread_mutex_init(&seg->hdr.alive, &a);
	if (!err && !pthread_mutex_lock(&seg->hdr.alive))
		__atomic_store_n(&seg->hdr.alive_tid, (uint32_t)gettid(), __ATOMIC_RELEASE);
	pthread_mutexattr_destroy(&a);
}

/*
 * Whether the process behind @p is known to be alive: its progress thread
 * still owns the liveness mutex (the lock word holds its thread id, which
 * the kernel replaces with FUTEX_OWNER_DIED when the thread dies). The
 * word is glibc's robust mutex lock word, the one the kernel's robust
 * futex list names. 0 when unknown: the caller takes the kernel's path.
 */
static int
softrdma_peer_alive(const struct softrdma_peer *p)
{
	uint32_t tid = __atomic_load_n(&p->seg->hdr.alive_tid, __ATOMIC_ACQUIRE);
	uint32_t w = (uint32_t)__atomic_load_n(&p->seg->hdr.alive.__data.__lock, __ATOMIC_ACQUIRE);

	return tid && (w & FUTEX_TID_MASK) == tid && !(w & FUTEX_OWNER_DIED);
}

/* Tell producers whether they must ring our doorbell. */
void
softrdma__seg_set_sleeping(int sleeping)
{
	struct softrdma_seg *seg = softrdma_seg_published();

	if (!seg)
		return;
	__atomic_store_n(&seg->hdr.sleeping, sleeping, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Non-zero when an application thread polled our rings within the grace time. */
int
softrdma__shm_app_polling(uint64_t now)
{
	struct softrdma_seg *seg = softrdma_seg_published();

	if (!seg)
		return 0;
	return now - __atomic_load_n(&seg->hdr.poll_ns, __ATOMIC_RELAXED) < SOFTRDMA_POLL_GRACE_NS;
}

/*
 * An application thread is about to wait on a completion channel instead of
 * polling: peers must ring this process's doorbell again, or what they send
 * would wait for the end of the progress thread's doze.
 */
void
softrdma__shm_app_waits(void)
{
	struct softrdma_seg *seg = softrdma_seg_published();

	if (seg && __atomic_load_n(&seg->hdr.poll_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&seg->hdr.poll_ns, 0, __ATOMIC_RELAXED);
}

/* An application thread just polled the rings (rate-limited shared store). */
void
softrdma__shm_app_polled(void)
{
	struct softrdma_seg *seg = softrdma_seg_published();
	uint64_t now = softrdma__now_ns();

	if (seg && now - __atomic_load_n(&seg->hdr.poll_ns, __ATOMIC_RELAXED) > 10000)
		__atomic_store_n(&seg->hdr.poll_ns, now, __ATOMIC_RELAXED);
}

static int softrdma_shm_any;

/* Non-zero once some connection of this process runs over rings. */
int
softrdma__shm_active(void)
{
	return __atomic_load_n(&softrdma_shm_any, __ATOMIC_RELAXED);
}

/* Remember that rings are in use (CQ polls start moving them). */
void
softrdma__shm_set_active(void)
{
	__atomic_store_n(&softrdma_shm_any, 1, __ATOMIC_RELAXED);
}

/* Fill our identity into an offer (or answer) for the peer. */
void
softrdma__shm_offer(struct softrdma_wire_shm *w, int ring_fd)
{
	memset(w, 0, sizeof(*w));
	w->seg_fd = -1;
	w->bell_fd = -1;
	w->ring_fd = -1;
	if (!softrdma__shm_enabled())
		return;
	memcpy(w->boot_id, softrdma_shm.boot_id, sizeof(w->boot_id));
	w->netns = softrdma_shm.netns;
	w->pidns = softrdma_shm.pidns;
	w->nonce = softrdma_shm.seg->hdr.nonce;
	w->uid = softrdma_shm.uid;
	w->pid = softrdma_shm.pid;
	w->seg_fd = softrdma_shm.seg_fd;
	w->bell_fd = softrdma__progress_bell();
	w->ring_fd = ring_fd;
	w->flags = ring_fd >= 0 ? SOFTRDMA_SHM_OFFER : 0;
}

/* Same boot, namespaces and uid as we are. */
static int
softrdma_same_host(const struct softrdma_wire_shm *w)
{
	return softrdma__shm_enabled() &&
	       !memcmp(w->boot_id, softrdma_shm.boot_id, sizeof(w->boot_id)) &&
	       w->netns == softrdma_shm.netns && w->pidns == softrdma_shm.pidns &&
	       w->uid == softrdma_shm.uid && w->pid && w->seg_fd >= 0 && w->bell_fd >= 0;
}

/* Fetch fd @num of the process behind @pidfd; -errno on failure. */
static int
softrdma_getfd(int pidfd, int num)
{
	int fd = syscall(SYS_pidfd_getfd, pidfd, num, 0);

	if (fd < 0)
		return -errno;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		close(fd);
		return -EBADF;
	}
	return fd;
}

/* Check that @fd is a sealed memfd of at least @size bytes. */
static int
softrdma_check_memfd(int fd, size_t size)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return EPERM;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size)
		return EINVAL;
	return 0;
}

/* Check that @fd is an eventfd (only those are written as doorbells). */
static int
softrdma_check_eventfd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno;
	link[n] = 0;
	return strcmp(link, "anon_inode:[eventfd]") ? EINVAL : 0;
}

/* Drop a reference on @p. Progress thread or teardown. */
static void
softrdma_peer_put(struct softrdma_peer *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&softrdma_shm.lock);
	if (--p->refs) {
		pthread_mutex_unlock(&softrdma_shm.lock);
		return;
	}
	softrdma__list_del(&p->node);
	pthread_mutex_unlock(&softrdma_shm.lock);
	munmap((void *)p->seg, sizeof(struct softrdma_seg));
	close(p->bell);
	close(p->pidfd);
	free(p);
}

/* Find or attach the peer described by @w; NULL with errno on failure. */
static struct softrdma_peer *
softrdma_peer_get(const struct softrdma_wire_shm *w)
{
	struct softrdma_peer *p;
	struct softrdma_list *n;
	void *map;
	int fd, err;

	pthread_mutex_lock(&softrdma_shm.lock);
	for (n = softrdma_shm.peers.next; n != &softrdma_shm.peers; n = n->next) {
		p = SOFTRDMA_CONTAINER_OF(n, struct softrdma_peer, node);
		if (p->pid == w->pid && p->nonce == w->nonce) {
			p->refs++;
			pthread_mutex_unlock(&softrdma_shm.lock);
			return p;
		}
	}
	pthread_mutex_unlock(&softrdma_shm.lock);
	err = ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		goto fail;
	p->pid = w->pid;
	p->nonce = w->nonce;
	p->refs = 1;
	p->pidfd = syscall(SYS_pidfd_open, (pid_t)w->pid, 0);
	if (p->pidfd < 0) {
		err = errno;
		goto free_p;
	}
	fd = softrdma_getfd(p->pidfd, w->seg_fd);
	if (fd < 0) {
		err = -fd;
		goto close_pidfd;
	}
	err = softrdma_check_memfd(fd, sizeof(struct softrdma_seg));
	map = err ? MAP_FAILED
		  : mmap(NULL, sizeof(struct softrdma_seg), PROT_READ, MAP_SHARED, fd, 0);
	if (!err && map == MAP_FAILED)
		err = errno;
	close(fd);
	if (err)
		goto close_pidfd;
	p->seg = map;
	if (p->seg->hdr.magic != SOFTRDMA_SEG_MAGIC ||
	    p->seg->hdr.version != SOFTRDMA_SHM_VERSION || p->seg->hdr.nonce != w->nonce ||
	    p->seg->hdr.pid != w->pid) {
		err = ESRCH;
		goto unmap;
	}
	p->bell = softrdma_getfd(p->pidfd, w->bell_fd);
	if (p->bell < 0) {
		err = -p->bell;
		goto unmap;
	}
	err = softrdma_check_eventfd(p->bell);
	if (err)
		goto close_bell;
	pthread_mutex_lock(&softrdma_shm.lock);
	softrdma__list_add_tail(&softrdma_shm.peers, &p->node);
	pthread_mutex_unlock(&softrdma_shm.lock);
	return p;

close_bell:
	close(p->bell);
unmap:
	munmap(map, sizeof(struct softrdma_seg));
close_pidfd:
	close(p->pidfd);
free_p:
	free(p);
fail:
	errno = err;
	return NULL;
}

/* Ring @p's doorbell when its progress thread sleeps. */
static void
softrdma_bell(struct softrdma_peer *p)
{
	uint64_t one = 1, polled;
	uint32_t s;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s = __atomic_load_n(&p->seg->hdr.sleeping, __ATOMIC_RELAXED);
	if (!s)
		return;
	if (s == 1) {
		/* dozing while its application polls: that poll will see the data */
		polled = __atomic_load_n(&p->seg->hdr.poll_ns, __ATOMIC_RELAXED);
		if (softrdma__now_ns() - polled < SOFTRDMA_POLL_GRACE_NS)
			return;
	}
	if (write(p->bell, &one, sizeof(one)) < 0) {
		/* a saturated counter is already readable */
	}
}

/* Requester: create the ring memfd of a new out connection. */
int
softrdma__shm_ring_create(struct softrdma_conn *c)
{
	void *map;
	int fd;

	if (!softrdma__shm_enabled())
		return EOPNOTSUPP;
	fd = softrdma_memfd("softrdma-ring", sizeof(struct softrdma_ring_area), &map);
	if (fd < 0)
		return -fd;
	c->area = map;
	c->area->ctl.magic = SOFTRDMA_RING_MAGIC;
	c->area->ctl.ring_size = SOFTRDMA_RING_SIZE;
	c->ring_fd = fd;
	c->txr = &c->area->req;
	c->rxr = &c->area->resp;
	return 0;
}

/*
 * Responder: take up the offer of a new in connection when the requester
 * runs on this host with our uid; fill the answer either way. Returns 1
 * when @c now uses rings, 0 when it stays on TCP.
 */
int
softrdma__shm_accept(struct softrdma_conn *c, const struct softrdma_wire_shm *offer,
		     struct softrdma_wire_shm *reply)
{
	struct softrdma_peer *p;
	void *map;
	int fd, err;

	softrdma__shm_offer(reply, -1);
	if (!(offer->flags & SOFTRDMA_SHM_OFFER) || offer->ring_fd < 0 ||
	    !softrdma_same_host(offer))
		return 0;
	p = softrdma_peer_get(offer);
	if (!p)
		return 0;
	fd = softrdma_getfd(p->pidfd, offer->ring_fd);
	if (fd < 0)
		goto put;
	err = softrdma_check_memfd(fd, sizeof(struct softrdma_ring_area));
	map = err ? MAP_FAILED
		  : mmap(NULL, sizeof(struct softrdma_ring_area), PROT_READ | PROT_WRITE,
			 MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		goto put;
	c->area = map;
	if (c->area->ctl.magic != SOFTRDMA_RING_MAGIC ||
	    c->area->ctl.ring_size != SOFTRDMA_RING_SIZE) {
		munmap(map, sizeof(struct softrdma_ring_area));
		c->area = NULL;
		goto put;
	}
	c->peer = p;
	c->rxr = &c->area->req;
	c->txr = &c->area->resp;
	__atomic_store_n(&c->rx_head, __atomic_load_n(&c->rxr->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&c->tx_tail, __atomic_load_n(&c->txr->tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELAXED);
	c->shm = 1;
	reply->flags = SOFTRDMA_SHM_ACCEPT;
	return 1;

put:
	softrdma_peer_put(p);
	return 0;
}

/*
 * Requester: the responder answered. On acceptance attach the peer; on
 * refusal drop the rings and stay on TCP. Returns 0 or an errno.
 */
int
softrdma__shm_accepted(struct softrdma_conn *c, const struct softrdma_wire_shm *reply)
{
	if (c->ring_fd >= 0) {
		close(c->ring_fd);
		c->ring_fd = -1;
	}
	if (!(reply->flags & SOFTRDMA_SHM_ACCEPT) || !c->area) {
		softrdma__shm_release(c);
		return (reply->flags & SOFTRDMA_SHM_ACCEPT) ? EPROTO : 0;
	}
	if (!softrdma_same_host(reply))
		return EPROTO;
	c->peer = softrdma_peer_get(reply);
	if (!c->peer)
		return errno;
	/* the map cache of the peer's shareable MRs; without it, cross-memory attach only */
	c->xmap = calloc(SOFTRDMA_XMAP_WAYS, sizeof(*c->xmap));
	c->shm = 1;
	return 0;
}

/* Unmap the rings and the map cache of @c and close a ring memfd it still holds. */
static void
softrdma_shm_unmap(struct softrdma_conn *c)
{
	softrdma__xmap_clear(c->xmap);
	free(c->xmap);
	c->xmap = NULL;
	if (c->area)
		munmap(c->area, sizeof(struct softrdma_ring_area));
	c->area = NULL;
	c->rxr = NULL;
	c->txr = NULL;
	if (c->ring_fd >= 0)
		close(c->ring_fd);
	c->ring_fd = -1;
}

/* Release the rings, the map cache and the peer of @c. */
void
softrdma__shm_release(struct softrdma_conn *c)
{
	softrdma_shm_unmap(c);
	softrdma_peer_put(c->peer);
	c->peer = NULL;
	c->shm = 0;
}

/* Responder: publish the attributes direct access depends on (qp->lock held). */
void
softrdma__shm_publish_qp(struct softrdma_qp *qp)
{
	struct softrdma_conn *c = qp->in;
	struct softrdma_ring_ctl *ctl;
	enum ibv_qp_state st = qp->qpx.qp_base.state;

	if (!c || !c->shm || !c->area)
		return;
	ctl = &c->area->ctl;
	__atomic_store_n(&ctl->seq, ctl->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ctl->ok = st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD;
	ctl->access = qp->access;
	ctl->pd = qp->qpx.qp_base.pd->handle;
	__atomic_store_n(&ctl->seq, ctl->seq + 1, __ATOMIC_RELEASE);
}

/* Responder: withdraw direct access through @c (its QP closes or dies). */
void
softrdma__shm_revoke(struct softrdma_conn *c)
{
	struct softrdma_ring_ctl *ctl;

	if (!c->shm || !c->area)
		return;
	ctl = &c->area->ctl;
	__atomic_store_n(&ctl->seq, ctl->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	ctl->ok = 0;
	__atomic_store_n(&ctl->seq, ctl->seq + 1, __ATOMIC_RELEASE);
}

/* Bytes ready in the receive ring; UINT32_MAX when the peer corrupted it. */
uint32_t
softrdma__shm_rx_avail(struct softrdma_conn *c)
{
	/* @rx_head is read atomically: the progress thread asks without qp->lock */
	uint64_t n = __atomic_load_n(&c->rxr->tail, __ATOMIC_ACQUIRE) -
		     __atomic_load_n(&c->rx_head, __ATOMIC_RELAXED);

	return n > SOFTRDMA_RING_SIZE ? UINT32_MAX : (uint32_t)n;
}

/* Free bytes in the transmit ring; UINT32_MAX when the peer corrupted it. */
uint32_t
softrdma__shm_tx_space(struct softrdma_conn *c)
{
	/* @tx_tail is read atomically: the progress thread asks without qp->lock */
	uint64_t used = __atomic_load_n(&c->tx_tail, __ATOMIC_RELAXED) -
			__atomic_load_n(&c->txr->head, __ATOMIC_ACQUIRE);

	return used > SOFTRDMA_RING_SIZE ? UINT32_MAX : (uint32_t)(SOFTRDMA_RING_SIZE - used);
}

/* Up to two ring pieces covering [at, at+len). Returns the piece count. */
static int
softrdma_ring_iov(struct softrdma_ring *r, uint64_t at, size_t len, struct iovec iov[2])
{
	size_t off = at & SOFTRDMA_RING_MASK, first = SOFTRDMA_RING_SIZE - off;

	iov[0].iov_base = r->data + off;
	if (len <= first) {
		iov[0].iov_len = len;
		return 1;
	}
	iov[0].iov_len = first;
	iov[1].iov_base = r->data;
	iov[1].iov_len = len - first;
	return 2;
}

/* Consumer: mark @n bytes consumed and wake a producer waiting for room. */
static void
softrdma_rx_advance(struct softrdma_conn *c, size_t n)
{
	__atomic_store_n(&c->rx_head, c->rx_head + n, __ATOMIC_RELAXED);
	__atomic_store_n(&c->rxr->head, c->rx_head, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->rxr->prod_waiting, __ATOMIC_RELAXED)) {
		uint64_t one = 1;

		__atomic_store_n(&c->rxr->prod_waiting, 0, __ATOMIC_RELAXED);
		if (write(c->peer->bell, &one, sizeof(one)) < 0) {
			/* already readable */
		}
	}
}

/* Bytes available or -1 with errno EAGAIN/EPROTO. */
static ssize_t
softrdma_rx_ready(struct softrdma_conn *c)
{
	uint32_t avail = softrdma__shm_rx_avail(c);

	if (avail == UINT32_MAX) {
		errno = EPROTO;
		return -1;
	}
	if (!avail) {
		errno = EAGAIN;
		return -1;
	}
	return avail;
}

/* Copy up to @len bytes out of the receive ring into our own buffer. */
ssize_t
softrdma__shm_recv(struct softrdma_conn *c, void *buf, size_t len)
{
	struct iovec iov[2];
	ssize_t avail = softrdma_rx_ready(c);
	int i, k;
	size_t n, done = 0;

	if (avail < 0)
		return -1;
	n = len < (size_t)avail ? len : (size_t)avail;
	k = softrdma_ring_iov(c->rxr, c->rx_head, n, iov);
	for (i = 0; i < k; i++) {
		memcpy((char *)buf + done, iov[i].iov_base, iov[i].iov_len);
		done += iov[i].iov_len;
	}
	softrdma_rx_advance(c, n);
	return n;
}

/* The ring bytes that fill @iov (@cnt pieces): the pieces cut to @avail bytes in @dst. */
static size_t
softrdma_rx_fit(const struct iovec *iov, int cnt, size_t avail, struct iovec *dst, int *k)
{
	size_t n = 0;
	int i;

	*k = 0;
	for (i = 0; i < cnt && n < avail && *k < SOFTRDMA_MAX_SGE; i++) {
		size_t take = iov[i].iov_len;

		if (take > avail - n)
			take = avail - n;
		if (!take)
			continue;
		dst[*k].iov_base = iov[i].iov_base;
		dst[*k].iov_len = take;
		(*k)++;
		n += take;
	}
	return n;
}

/*
 * Copy from the receive ring into the scatter list @iov: memory this
 * process uses for its own operations (a posted receive buffer, a READ's
 * destination), checked against the MR table. Plain stores, as an RNIC
 * writes the pages its MR table names.
 */
ssize_t
softrdma__shm_recv_iov(struct softrdma_conn *c, const struct iovec *iov, int cnt)
{
	struct iovec src[2], dst[SOFTRDMA_MAX_SGE];
	ssize_t avail = softrdma_rx_ready(c);
	size_t n;
	int k;

	if (avail < 0)
		return -1;
	n = softrdma_rx_fit(iov, cnt, avail, dst, &k);
	if (!n)
		return 0;
	softrdma__iov_copy(dst, k, src, softrdma_ring_iov(c->rxr, c->rx_head, n, src));
	softrdma_rx_advance(c, n);
	return n;
}

/*
 * Copy from the receive ring into the target of a peer's one-sided WRITE,
 * which may have been unmapped since its registration: the kernel copies
 * and reports EFAULT, and nothing is consumed then.
 */
ssize_t
softrdma__shm_recv_iov_remote(struct softrdma_conn *c, const struct iovec *iov, int cnt)
{
	struct iovec src[2], dst[SOFTRDMA_MAX_SGE];
	ssize_t avail = softrdma_rx_ready(c), r;
	size_t n;
	int k, ns;

	if (avail < 0)
		return -1;
	n = softrdma_rx_fit(iov, cnt, avail, dst, &k);
	if (!n)
		return 0;
	ns = softrdma_ring_iov(c->rxr, c->rx_head, n, src);
	r = process_vm_writev(getpid(), src, ns, dst, k, 0);
	if (r != (ssize_t)n) {
		errno = EFAULT;
		return -1;
	}
	softrdma_rx_advance(c, n);
	return n;
}

/* Drop up to @len bytes from the receive ring. */
ssize_t
softrdma__shm_discard(struct softrdma_conn *c, size_t len)
{
	ssize_t avail = softrdma_rx_ready(c);
	size_t n;

	if (avail < 0)
		return -1;
	n = len < (size_t)avail ? len : (size_t)avail;
	softrdma_rx_advance(c, n);
	return n;
}

/* Current producer position of the transmit ring. */
uint64_t
softrdma__shm_tail(struct softrdma_conn *c)
{
	return c->tx_tail;
}

/*
 * Copy @len bytes to ring position @at (not yet visible to the consumer).
 * @src is this process's own memory: a header, inline data, or a local
 * buffer the caller checked against the MR table.
 */
void
softrdma__shm_put(struct softrdma_conn *c, uint64_t at, const void *src, size_t len)
{
	struct iovec iov[2];
	int i, k;
	size_t done = 0;

	if (!len)
		return;
	k = softrdma_ring_iov(c->txr, at, len, iov);
	for (i = 0; i < k; i++) {
		memcpy(iov[i].iov_base, (const char *)src + done, iov[i].iov_len);
		done += iov[i].iov_len;
	}
}

/* Publish everything written up to @tail and wake the consumer if it sleeps. */
void
softrdma__shm_commit(struct softrdma_conn *c, uint64_t tail)
{
	__atomic_store_n(&c->tx_tail, tail, __ATOMIC_RELAXED);
	__atomic_store_n(&c->txr->tail, tail, __ATOMIC_RELEASE);
	softrdma_bell(c->peer);
}

/* Write up to @len bytes of our own buffer into the transmit ring. */
ssize_t
softrdma__shm_send(struct softrdma_conn *c, const void *buf, size_t len)
{
	uint32_t space = softrdma__shm_tx_space(c);
	size_t n;

	if (space == UINT32_MAX) {
		errno = EPROTO;
		return -1;
	}
	if (!space) {
		/* ask the consumer for a doorbell, then look once more */
		__atomic_store_n(&c->txr->prod_waiting, 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		space = softrdma__shm_tx_space(c);
		if (space == UINT32_MAX) {
			errno = EPROTO;
			return -1;
		}
		if (!space) {
			errno = EAGAIN;
			return -1;
		}
	}
	n = len < space ? len : space;
	softrdma__shm_put(c, c->tx_tail, buf, n);
	softrdma__shm_commit(c, c->tx_tail + n);
	return n;
}

/*
 * Copy the bytes [@off, @off + @len) between the local pieces @liov (@cnt
 * of them) and the responder's @raddr + @off: with memcpy when @raddr is in
 * our own mapping of the responder's memory (@pid 0), else through the
 * kernel. Returns 0, or -1 when the copy came up short.
 */
static int
softrdma_piece_copy(pid_t pid, int is_read, const struct iovec *liov, int cnt, char *raddr,
		    uint64_t off, uint64_t len)
{
	struct iovec l[SOFTRDMA_MAX_SGE], r;
	uint64_t pos = 0, want = len;
	int i, k = 0;
	ssize_t n;

	for (i = 0; i < cnt && want; i++) {
		uint64_t il = liov[i].iov_len, skip;

		if (pos + il <= off) {
			pos += il;
			continue;
		}
		skip = off > pos ? off - pos : 0;
		l[k].iov_base = (char *)liov[i].iov_base + skip;
		l[k].iov_len = il - skip < want ? il - skip : want;
		want -= l[k].iov_len;
		pos += il;
		k++;
	}
	r.iov_base = raddr + off;
	r.iov_len = len;
	if (!pid) {
		if (is_read)
			softrdma__iov_copy(l, k, &r, 1);
		else
			softrdma__iov_copy(&r, 1, l, k);
		return 0;
	}
	if (is_read)
		n = process_vm_readv(pid, l, k, &r, 1, 0);
	else
		n = process_vm_writev(pid, l, k, &r, 1, 0);
	return n == (ssize_t)len ? 0 : -1;
}

/* Take and copy chunks of the split job until none is left. */
static void
softrdma_split_run(void)
{
	uint64_t off, len;

	for (;;) {
		off = __atomic_fetch_add(&softrdma_split.next, SOFTRDMA_SPLIT_CHUNK,
					 __ATOMIC_RELAXED);
		if (off >= softrdma_split.total)
			return;
		len = softrdma_split.total - off;
		if (len > SOFTRDMA_SPLIT_CHUNK)
			len = SOFTRDMA_SPLIT_CHUNK;
		if (softrdma_piece_copy(softrdma_split.pid, softrdma_split.is_read,
					softrdma_split.liov, softrdma_split.cnt,
					softrdma_split.raddr, off, len))
			__atomic_store_n(&softrdma_split.fail, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Progress thread: join the shared direct copy, if one is open. Returns
 * non-zero when it helped.
 */
int
softrdma__shm_help(void)
{
	if (!__atomic_load_n(&softrdma_split.open, __ATOMIC_RELAXED))
		return 0;
	/* count in before looking again: the poster waits for helpers to leave */
	__atomic_fetch_add(&softrdma_split.helpers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&softrdma_split.open, __ATOMIC_SEQ_CST))
		softrdma_split_run();
	__atomic_fetch_sub(&softrdma_split.helpers, 1, __ATOMIC_RELEASE);
	return 1;
}

/* Non-zero when this process may run on more than one CPU. */
static int
softrdma_split_allowed(void)
{
	int ok = __atomic_load_n(&softrdma_split_ok, __ATOMIC_RELAXED);
	cpu_set_t set;

	if (ok < 0) {
		ok = !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 1;
		__atomic_store_n(&softrdma_split_ok, ok, __ATOMIC_RELAXED);
	}
	return ok &&
	       softrdma__now_ns() >= __atomic_load_n(&softrdma_split_off_until, __ATOMIC_RELAXED);
}

/*
 * Copy @total bytes between @liov and the responder at @raddr (in process
 * @pid, or in our own mapping of its memory when @pid is 0), sharing the
 * work with the progress thread when it is large. Returns 0, or -1 when
 * any part failed.
 */
static int
softrdma_direct_copy(pid_t pid, int is_read, struct iovec *liov, int k, char *raddr, uint64_t total)
{
	uint64_t t;
	int fail, spins;

	if (total < SOFTRDMA_SPLIT_MIN || !softrdma_split_allowed() ||
	    __atomic_exchange_n(&softrdma_split.owned, 1, __ATOMIC_ACQUIRE))
		return softrdma_piece_copy(pid, is_read, liov, k, raddr, 0, total);
	softrdma_split.is_read = is_read;
	softrdma_split.pid = pid;
	softrdma_split.cnt = k;
	softrdma_split.total = total;
	softrdma_split.raddr = raddr;
	softrdma_split.fail = 0;
	softrdma_split.next = 0;
	memcpy(softrdma_split.liov, liov, k * sizeof(*liov));
	__atomic_store_n(&softrdma_split.open, 1, __ATOMIC_SEQ_CST);
	softrdma__progress_kick();
	softrdma_split_run();
	__atomic_store_n(&softrdma_split.open, 0, __ATOMIC_SEQ_CST);
	/*
	 * Chunks the helper has taken involve no lock, so this wait is one
	 * chunk at most; yield in case the helper was preempted on this CPU.
	 */
	t = 0;
	for (spins = 0; __atomic_load_n(&softrdma_split.helpers, __ATOMIC_SEQ_CST); spins++) {
		if (spins < 4096) {
			__builtin_ia32_pause();
			continue;
		}
		if (!t)
			t = softrdma__now_ns();
		sched_yield();
	}
	if (t && softrdma__now_ns() - t > SOFTRDMA_SPLIT_STALL_NS)
		__atomic_store_n(&softrdma_split_off_until,
				 softrdma__now_ns() + SOFTRDMA_SPLIT_BACKOFF_NS, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	fail = __atomic_load_n(&softrdma_split.fail, __ATOMIC_RELAXED);
	__atomic_store_n(&softrdma_split.owned, 0, __ATOMIC_RELEASE);
	return fail ? -1 : 0;
}

/*
 * Requester: the responder QP's attributes direct access depends on, read
 * consistently (seqlock); returns its sequence number, or 1 (odd) when it
 * changed under us.
 */
static uint32_t
softrdma_ctl_read(const struct softrdma_ring_ctl *ctl, uint32_t *ok, uint32_t *access, uint32_t *pd)
{
	uint32_t s = __atomic_load_n(&ctl->seq, __ATOMIC_ACQUIRE);

	*ok = ctl->ok;
	*access = ctl->access;
	*pd = ctl->pd;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (s & 1) || __atomic_load_n(&ctl->seq, __ATOMIC_RELAXED) != s ? 1 : s;
}

/* Requester: a consistent copy of the peer's MR table entry @e (seqlock); -1 when it moved. */
static int
softrdma_entry_read(const struct softrdma_seg_mr *e, struct softrdma_seg_mr *out)
{
	uint32_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

	memcpy(out, e, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	out->seq = s;
	return (s & 1) || __atomic_load_n(&e->seq, __ATOMIC_RELAXED) != s ? -1 : 0;
}

/*
 * Requester: the local pieces of @wr, checked against our MR table (or
 * inline data); returns their count, or -1 when a piece is not registered
 * for this use (the request then goes the normal way and fails there).
 */
static int
softrdma_direct_liov(struct softrdma_qp *qp, struct ibv_send_wr *wr, int is_read,
		     struct iovec liov[SOFTRDMA_MAX_SGE])
{
	int i, k = 0;

	for (i = 0; i < wr->num_sge; i++) {
		struct ibv_sge *sg = &wr->sg_list[i];
		struct softrdma_mr *mr;

		if (!sg->length)
			continue;
		if ((wr->send_flags & IBV_SEND_INLINE) && !is_read) {
			liov[k].iov_base = (void *)(uintptr_t)sg->addr;
		} else {
			mr = softrdma__mr_get(sg->lkey);
			if (softrdma__mr_check(mr, qp->qpx.qp_base.pd, sg->addr, sg->length,
					       is_read ? IBV_ACCESS_LOCAL_WRITE : 0)) {
				softrdma__mr_put();
				return -1;
			}
			liov[k].iov_base = softrdma__mr_ptr(mr, sg->addr);
			softrdma__mr_put();
		}
		liov[k].iov_len = sg->length;
		k++;
	}
	return k;
}

/*
 * Requester: unmap one mapping of the map cache whose MR the peer has
 * deregistered or registered anew since, one entry per direct access in
 * turn, so the memory of a region gone does not stay mapped here for long.
 */
static void
softrdma_xmap_sweep(struct softrdma_conn *c)
{
	struct softrdma_xmap *x;

	if (!c->xmap)
		return;
	x = &c->xmap[c->xmap_sweep++ % SOFTRDMA_XMAP_WAYS];
	if (x->state == 1 &&
	    __atomic_load_n(&c->peer->seg->mr[x->slot].seq, __ATOMIC_RELAXED) != x->seq)
		softrdma__xmap_drop(x);
}

/*
 * Requester: copy @total bytes of @wr to or from the responder's MR
 * described by @e (entry @slot) at @raddr. A shareable MR is reached
 * through our own mapping of it while the responder is alive (then
 * flushed when it is persistent memory), other memory through the
 * kernel. Returns 0 or -1.
 */
static int
softrdma_direct_move(struct softrdma_conn *c, int is_read, struct iovec *liov, int k,
		     const struct softrdma_seg_mr *e, uint32_t slot, uint64_t raddr, uint64_t total)
{
	uint32_t flags = 0;
	char *base = NULL;

	softrdma_xmap_sweep(c);
	if (e->fd >= 0 && c->xmap && softrdma_peer_alive(c->peer))
		base = softrdma__xmap_get(c->xmap, c->peer->pidfd, slot, e, &flags);
	if (!base)
		return softrdma_direct_copy(c->peer->pid, is_read, liov, k,
					    (char *)(uintptr_t)(e->addr + (raddr - e->iova)),
					    total);
	base += raddr - e->iova;
	if (softrdma_direct_copy(0, is_read, liov, k, base, total))
		return -1;
	if (!is_read && (flags & SOFTRDMA_SHARE_DAX))
		softrdma__share_flush(base, total);
	/* a responder that died meanwhile did not see the copy: report it as today */
	return softrdma_peer_alive(c->peer) ? 0 : -1;
}

/*
 * Requester: execute a WRITE or READ straight against the responder's
 * memory. The responder QP's attributes and the MR entry are read under
 * their sequence counters before and after the copy; anything unexpected
 * returns -1 and the caller sends the request the normal way, so the
 * responder reports the error as it would over the wire (qp->lock held).
 * A deregistration the copy raced with is seen by the second reading, as
 * is the death of the responder: its mapping of a shareable MR cannot be
 * revoked, so the entry's sequence number is what makes it invalid.
 */
int
softrdma__shm_direct(struct softrdma_qp *qp, struct ibv_send_wr *wr, uint64_t total)
{
	struct softrdma_conn *c = qp->out;
	struct softrdma_seg_mr e;
	struct iovec liov[SOFTRDMA_MAX_SGE];
	uint32_t s, ok, access, pd, slot, rkey = wr->wr.rdma.rkey;
	uint64_t raddr = wr->wr.rdma.remote_addr;
	int is_read = wr->opcode == IBV_WR_RDMA_READ, need, k;

	if (!c || !c->shm || c->dead || c->await_answer || !c->peer)
		return -1;
	s = softrdma_ctl_read(&c->area->ctl, &ok, &access, &pd);
	need = is_read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
	if ((s & 1) || !ok || !(access & need))
		return -1;
	if (!total)
		return 0;
	slot = rkey >> 8;
	if (!slot || slot >= SOFTRDMA_MAX_MR || softrdma_entry_read(&c->peer->seg->mr[slot], &e))
		return -1;
	if (e.key != rkey || e.pd != pd || !(e.access & need))
		return -1;
	if (raddr < e.iova || total > e.length || raddr - e.iova > e.length - total)
		return -1;
	k = softrdma_direct_liov(qp, wr, is_read, liov);
	if (k < 0 || softrdma_direct_move(c, is_read, liov, k, &e, slot, raddr, total))
		return -1;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&c->peer->seg->mr[slot].seq, __ATOMIC_RELAXED) != e.seq ||
	    __atomic_load_n(&c->area->ctl.seq, __ATOMIC_RELAXED) != s)
		return -1;
	return 0;
}

/*
 * Forked child: drop the same-host state of @c, the parent's connection,
 * without a word to the peer: its rings (shared with the parent) and the
 * peer's MRs it mapped are unmapped, a ring memfd not yet handed over is closed, the peer reference
 * is forgotten (softrdma__shm_fork_child frees the peers), and @c is left
 * a plain socket connection.
 */
void
softrdma__shm_disown(struct softrdma_conn *c)
{
	softrdma_shm_unmap(c);
	c->peer = NULL;
	c->shm = 0;
}

/* fork(), before: the list of peers is whole in the copy. */
void
softrdma__shm_fork_prepare(void)
{
	pthread_mutex_lock(&softrdma_shm.lock);
}

/* fork(), in the parent. */
void
softrdma__shm_fork_parent(void)
{
	pthread_mutex_unlock(&softrdma_shm.lock);
}

/*
 * fork(), in the child: the peers (pidfds, doorbells, mappings of their
 * segments), the parent's own segment and a shared copy it was running
 * are the parent's and go. The child publishes a segment of its own, with
 * its pid and a new nonce, on first use; the parent's MR table stays
 * untouched.
 */
void
softrdma__shm_fork_child(void)
{
	struct softrdma_list *n, *next;

	/* held since prepare, by this very thread */
	pthread_mutex_unlock(&softrdma_shm.lock);
	for (n = softrdma_shm.peers.next; n && n != &softrdma_shm.peers; n = next) {
		struct softrdma_peer *p = SOFTRDMA_CONTAINER_OF(n, struct softrdma_peer, node);

		next = n->next;
		munmap((void *)p->seg, sizeof(struct softrdma_seg));
		close(p->bell);
		close(p->pidfd);
		free(p);
	}
	softrdma__list_init(&softrdma_shm.peers);
	if (softrdma_shm.seg)
		munmap(softrdma_shm.seg, sizeof(struct softrdma_seg));
	if (softrdma_shm.seg_fd >= 0)
		close(softrdma_shm.seg_fd);
	softrdma_shm.seg = NULL;
	softrdma_shm.seg_fd = -1;
	softrdma_shm.enabled = 0;
	softrdma_shm.once = PTHREAD_ONCE_INIT;
	softrdma_shm_any = 0;
	memset(&softrdma_split, 0, sizeof(softrdma_split));
}
