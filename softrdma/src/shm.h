/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The same-host transport. Every process publishes a segment (a sealed
 * memfd) holding its memory-region table, its sleep flag and its liveness
 * mutex; peers on the same host with the same uid map it read-only,
 * validate remote keys against it and copy with memcpy through their own
 * mapping of a shareable MR (share.h), or with process_vm_readv/writev for
 * other memory. Two-sided traffic
 * runs through a pair of byte rings in a memfd the requester creates per
 * connection; the progress thread polls the rings for a short while after
 * activity, then sleeps on its eventfd, which producers ring when needed.
 *
 * Threads: the segment and the rings are shared with other processes
 * through atomics (no lock across processes); softrdma_shm.lock guards this
 * process's list of the peers' segments it maps and their counts; a
 * connection's rings are freed with it, by the progress thread.
 */
#ifndef SOFTRDMA_SHM_H
#define SOFTRDMA_SHM_H

#include <stdint.h>
#include <sys/uio.h>

#include "softrdma.h"

#define SOFTRDMA_SEG_MAGIC   0x47455353u /* "SSEG" */
#define SOFTRDMA_RING_MAGIC  0x474e5253u /* "SRNG" */
#define SOFTRDMA_SHM_VERSION 2
#define SOFTRDMA_RING_SIZE   (64u * 1024) /* power of two */
/* producers skip the doorbell while the consumer's application polled this recently */
#define SOFTRDMA_POLL_GRACE_NS 500000ull

/*
 * One published memory region; @seq is odd while the entry changes. A
 * shareable MR (share.h) names in @fd the descriptor of its file that a
 * peer may fetch and map, with the file's identity and the MR's offset in
 * it; @fd is -1 for other memory.
 */
struct softrdma_seg_mr {
	uint32_t seq;
	uint32_t key;
	uint32_t access;
	uint32_t pd;
	uint64_t addr;
	uint64_t iova;
	uint64_t length;
	int32_t fd;
	uint32_t flags; /* SOFTRDMA_SHARE_* */
	uint64_t foff;
	uint64_t dev;
	uint64_t ino;
};

struct softrdma_seg_hdr {
	uint32_t magic;
	uint32_t version;
	uint64_t nonce;
	uint32_t pid;
	uint32_t nmr;
	/* 0 awake, 1 dozing (wakes by itself soon), 2 asleep until rung */
	uint32_t sleeping __attribute__((aligned(64)));
	/* last time an application thread moved the rings while polling a CQ */
	uint64_t poll_ns __attribute__((aligned(64)));
	/*
	 * Liveness: a robust, process-shared mutex the progress thread locks
	 * for good, its thread id in @alive_tid. When the process dies the
	 * kernel marks the lock word FUTEX_OWNER_DIED, so peers that copy
	 * through their own mapping of its memory see the death with a load.
	 */
	pthread_mutex_t alive __attribute__((aligned(64)));
	uint32_t alive_tid;
};

struct softrdma_seg {
	struct softrdma_seg_hdr hdr;
	struct softrdma_seg_mr mr[SOFTRDMA_MAX_MR] __attribute__((aligned(4096)));
};

/* Responder QP attributes a requester needs for direct access (seqlock). */
struct softrdma_ring_ctl {
	uint32_t magic;
	uint32_t ring_size;
	uint32_t seq __attribute__((aligned(64)));
	uint32_t ok;
	uint32_t access;
	uint32_t pd;
};

struct softrdma_ring {
	uint64_t tail __attribute__((aligned(64)));
	uint32_t prod_waiting;
	uint64_t head __attribute__((aligned(64)));
	unsigned char data[SOFTRDMA_RING_SIZE] __attribute__((aligned(64)));
};

/* The memfd of one connection: requests flow in @req, responses in @resp. */
struct softrdma_ring_area {
	struct softrdma_ring_ctl ctl __attribute__((aligned(4096)));
	struct softrdma_ring req __attribute__((aligned(4096)));
	struct softrdma_ring resp __attribute__((aligned(4096)));
};

/* A peer process on this host, shared by all connections to it. */
struct softrdma_peer {
	struct softrdma_list node;
	int refs;
	uint32_t pid;
	uint64_t nonce;
	int pidfd;
	int bell;
	const struct softrdma_seg *seg;
};

int softrdma__shm_enabled(void);
struct softrdma_seg *softrdma__seg(void);
void softrdma__seg_publish(uint32_t slot, const struct softrdma_mr *mr, uint32_t pd);
/*
 * Progress thread, once at its start: lock the segment's liveness mutex
 * for the life of the process (nothing when the same-host transport is off).
 */
void softrdma__shm_hold_alive(void);
void softrdma__seg_set_sleeping(int sleeping);
int softrdma__shm_app_polling(uint64_t now);
void softrdma__shm_app_polled(void);
void softrdma__shm_app_waits(void);
int softrdma__shm_active(void);
void softrdma__shm_set_active(void);
void softrdma__shm_offer(struct softrdma_wire_shm *w, int ring_fd);
int softrdma__shm_ring_create(struct softrdma_conn *c);
int softrdma__shm_accept(struct softrdma_conn *c, const struct softrdma_wire_shm *offer,
			 struct softrdma_wire_shm *reply);
int softrdma__shm_accepted(struct softrdma_conn *c, const struct softrdma_wire_shm *reply);
void softrdma__shm_release(struct softrdma_conn *c);
/*
 * Forked child: @c is the parent's connection; unmap its rings, close a
 * ring memfd, forget its peer, leave it a plain socket connection. Nothing
 * reaches the peer or the parent.
 */
void softrdma__shm_disown(struct softrdma_conn *c);
/*
 * fork() handlers: prepare takes softrdma_shm.lock, parent releases it; the
 * child frees the peers and drops the parent's segment, and starts its own
 * (own pid and nonce) on first use. Call the child handler after every
 * inherited connection was disowned.
 */
void softrdma__shm_fork_prepare(void);
void softrdma__shm_fork_parent(void);
void softrdma__shm_fork_child(void);
void softrdma__shm_publish_qp(struct softrdma_qp *qp);
void softrdma__shm_revoke(struct softrdma_conn *c);

uint32_t softrdma__shm_rx_avail(struct softrdma_conn *c);
uint32_t softrdma__shm_tx_space(struct softrdma_conn *c);
ssize_t softrdma__shm_recv(struct softrdma_conn *c, void *buf, size_t len);
ssize_t softrdma__shm_recv_iov(struct softrdma_conn *c, const struct iovec *iov, int cnt);
ssize_t softrdma__shm_recv_iov_remote(struct softrdma_conn *c, const struct iovec *iov, int cnt);
ssize_t softrdma__shm_discard(struct softrdma_conn *c, size_t len);
ssize_t softrdma__shm_send(struct softrdma_conn *c, const void *buf, size_t len);
void softrdma__shm_put(struct softrdma_conn *c, uint64_t at, const void *src, size_t len);
void softrdma__shm_commit(struct softrdma_conn *c, uint64_t tail);
uint64_t softrdma__shm_tail(struct softrdma_conn *c);
int softrdma__shm_direct(struct softrdma_qp *qp, struct ibv_send_wr *wr, uint64_t total);
int softrdma__shm_help(void);

#endif
