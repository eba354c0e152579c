/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal objects of the softrdma verbs library. Every object embeds the
 * public rdma-core structure it is handed out as.
 *
 * Threads. Application threads call the verbs; one progress thread per
 * process (progress.c) accepts data connections and moves their bytes.
 *
 * Locks, outermost first; a thread holding one may take only those below:
 *   qp->lock          everything in a QP and in the connections it points to
 *   softrdma_prog.lock  the listeners' QP slots, the grave list, the epoch
 *   cq->qps_lock      the list of QPs completing on a CQ
 *   srq->lock         an SRQ's receive queue
 *   channel/event queue locks, softrdma_shm.lock, softrdma_mr_lock
 *   cq->lock (spin)   a CQ's ring; nothing is taken under it
 * The progress thread only try-locks a QP from a CQ poll (qp->lock is
 * never waited for under cq->qps_lock).
 * The global locks a fork() takes, in this order, are never taken while a
 * later one of them is held: softrdma_prog.lock, softrdma_shm.lock, the CQ
 * event lock (cq.c), the list of contexts (device.c), the list of event
 * queues (util.c). librdmacm's softrdma__cm.lock comes before all of them (the CM
 * calls the verbs under it). The forking thread holds them all in the
 * child, which releases them; softrdma_mr_lock is not taken (the child
 * empties the MR table and makes its lock anew).
 *
 * Lifetime of a connection (struct softrdma_conn):
 *   - created by the progress thread (accepted, on the hello list until its
 *     hello names a QP) or by an application thread moving a QP to RTR;
 *   - attached: reachable from qp->in or qp->out; then every field is
 *     guarded by qp->lock, except @dead and @qp, which are also stored
 *     atomically so the progress thread may read them unlocked;
 *   - closed by softrdma__conn_close() under qp->lock, which first clears
 *     qp->in / qp->out, then puts it on the grave list: no QP ever points
 *     at a closed connection;
 *   - freed only by the progress thread, in softrdma_reap() at the top of
 *     its loop. So a connection pointer read from a QP is valid while
 *     qp->lock is held and the QP still points at it: a path that may
 *     close it (handling a NAK, entering the error state) checks that
 *     qp->in or qp->out is still it before touching it again; without the lock, only the progress
 * thread may use a connection it holds (epoll data, the same-host list), and only until its next
 * reap.
 *
 * Lifetime of a QP (struct softrdma_qp): created and destroyed by
 * application threads. Its listener slot is published with a release
 * store; ibv_destroy_qp() clears the slot, then waits in
 * softrdma__progress_del_qp() until the progress thread starts a new loop
 * (the epoch moves on) before freeing it: a QP pointer the progress thread
 * read from a slot stays valid until the end of that loop. The progress
 * thread reads a QP's hints (@rnr_waiting, @eos_deadline, @cq_overrun)
 * without the lock and acts on them only after taking qp->lock.
 *
 * Fork. fork() copies only the calling thread: a child would inherit the
 * parent's state without the threads that serve it, and descriptors
 * (sockets, eventfds, epoll sets, memfds) and shared mappings it shares
 * with the parent. Both libraries register pthread_atfork() handlers when
 * they are loaded (device.c, cm_fork.c; librdmacm's after libibverbs's, so its
 * prepare handler runs first, as its lock comes first):
 *   - prepare takes the global locks above in their order, so the child
 *     never inherits one held by a thread it does not have, and has the
 *     progress thread wait at the top of its loop (a second at most), so
 *     it is in no critical section and no allocation; parent releases
 *     them, child makes them anew;
 *   - child gets a device of its own: no listener, no progress or CM thread
 *     until first use, an empty MR table, its own same-host segment and
 *     process id. Everything it inherited is disowned: each descriptor
 *     shared with the parent is replaced by /dev/null (softrdma__fd_disown:
 *     only the child's reference goes, so the parent's connections and
 *     their peers see nothing: no shutdown, no message), shared rings and
 *     segments are unmapped, and the locks of inherited objects the
 *     parent's threads may have held are made anew.
 * Inherited contexts, PDs, MRs, QPs, CQs, SRQs, channels and cm ids are
 * inert in the child: their data path fails with EIO (ibv_poll_cq with
 * -1), waiting on their channels fails with EIO at once, nothing can be
 * created on an inherited context (EIO), and destroying them frees the
 * child's copies without waiting for the parent's threads. Memory the
 * parent registered stays the parent's: its keys name the parent's MR
 * table, which the parent alone serves. Objects the child creates are
 * the child's own, and a child may fork again. Like rdma-core on a kernel
 * that copies DMA pages on fork, ibv_fork_init() always succeeds and
 * ibv_is_fork_initialized() reports IBV_FORK_UNNEEDED.
 */
#ifndef SOFTRDMA_H
#define SOFTRDMA_H

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>

#include "cmops.h"
#include "share.h"
#include "util.h"
#include "wire.h"

#define SOFTRDMA_DEV_NAME      "softrdma0"
#define SOFTRDMA_MAX_GIDS      16
#define SOFTRDMA_QP_PER_PORT   255
#define SOFTRDMA_MAX_LISTENERS 4096
#define SOFTRDMA_MAX_QP	       (SOFTRDMA_QP_PER_PORT * SOFTRDMA_MAX_LISTENERS)
#define SOFTRDMA_MAX_WR	       16384
#define SOFTRDMA_MAX_SGE       32
#define SOFTRDMA_MAX_INLINE    256
#define SOFTRDMA_MAX_CQE       (1 << 20)
#define SOFTRDMA_MAX_MR	       65536
#define SOFTRDMA_MAX_RD_ATOM   16

struct softrdma_device {
	struct ibv_device dev;
	int ngids;
	union ibv_gid gids[SOFTRDMA_MAX_GIDS];
	uint32_t ifindex[SOFTRDMA_MAX_GIDS];
	/* node GUID (host order), the same in every process of the host */
	uint64_t guid_base;
};

struct softrdma_context {
	struct softrdma_evq async_q;
	/* on the list of open contexts (device.c, under that list's lock) */
	struct softrdma_list node;
	/* set in a forked child on every context of the parent */
	int inherited;
	/* what the CM asks beyond the public verbs (cmops.h) */
	const struct softrdma_cm_ops *cm_ops;
	struct verbs_context vctx;
};

/* The CM's operations on a softrdma context; inline, since the CM is another library. */
static inline const struct softrdma_cm_ops *
softrdma__cm_ops(struct ibv_context *ctx)
{
	return SOFTRDMA_CONTAINER_OF(ctx, struct softrdma_context, vctx.context)->cm_ops;
}

struct softrdma_async_item {
	struct softrdma_list node;
	struct ibv_async_event ev;
};

struct softrdma_channel {
	struct ibv_comp_channel ch;
	struct softrdma_evq q;
};

struct softrdma_cq_item {
	struct softrdma_list node;
	struct ibv_cq *cq;
};

struct softrdma_cq {
	struct ibv_cq cq;
	pthread_spinlock_t lock;
	struct ibv_wc *ring;
	uint32_t size;
	uint32_t head;
	uint32_t count;
	int armed;
	int overflow;
	/* events handed out: atomic, raised under the channel queue's lock */
	uint32_t events_delivered;
	/* completions pushed and polled so far (send-queue slots free on poll) */
	uint64_t produced;
	uint64_t consumed;
	/* notify item queued on the channel (one outstanding at a time) */
	struct softrdma_cq_item item;
	int item_queued;
	/* QPs completing here: an empty poll moves their same-host rings */
	pthread_mutex_t qps_lock;
	struct softrdma_qp **qps;
	uint32_t nqps;
	uint32_t qps_cap;
	uint32_t progress_next; /* qps_lock: where the next empty poll's sweep starts */
};

struct softrdma_mr {
	struct ibv_mr mr;
	int access;
	uint64_t iova;
	/* the file behind a shareable MR, fd -1 otherwise (under softrdma_mr_lock) */
	struct softrdma_share share;
};

struct softrdma_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	struct ibv_sge sge[];
};

struct softrdma_rq {
	unsigned char *slots;
	size_t slot_size;
	uint32_t size;
	uint32_t head;
	uint32_t count;
	uint32_t max_sge;
};

struct softrdma_srq {
	struct ibv_srq srq;
	pthread_mutex_t lock;
	struct softrdma_rq rq;
	uint32_t limit;
	/*
	 * a responder found the queue empty since the last post (@lock): the
	 * next post wakes the progress thread to retry it, and only then
	 */
	int starved;
};

struct softrdma_swqe {
	uint64_t wr_id;
	uint32_t seq;
	int done;
	uint64_t cq_pos;
	uint32_t byte_len;
	enum ibv_wc_opcode opcode;
	int signaled;
	/* answered by a response carrying data (READ, atomic), never by an ACK */
	int is_read;
	/* an atomic: its response carries the original value for the scatter list */
	int is_atomic;
	uint32_t num_sge;
	struct ibv_sge sge[SOFTRDMA_MAX_SGE];
};

struct softrdma_txbuf {
	struct softrdma_list node;
	size_t len;
	size_t off;
	unsigned char data[];
};

enum softrdma_rx_state {
	SOFTRDMA_RX_HDR,
	SOFTRDMA_RX_WAIT_RWQE,
	SOFTRDMA_RX_PAYLOAD,
	SOFTRDMA_RX_ANSWER,
};

struct softrdma_peer;
struct softrdma_ring;
struct softrdma_ring_area;

struct softrdma_conn {
	struct softrdma_list node;
	/* accepted, no hello yet: closed at this time (progress thread; 0 = not pending) */
	uint64_t pending_until;
	/*
	 * progress thread: the hello is read, but its QP is in the error state
	 * or its last inbound connection has not been closed yet; tried again
	 * until pending_until, as an RNIC's requester retries
	 */
	int parked;
	int fd;
	struct softrdma_qp *qp;
	int is_out;
	int connecting;
	int dead;
	/* the peer ended its stream here (end-of-stream marker, or close while draining) */
	int eos;
	uint32_t events;
	/* receive side */
	enum softrdma_rx_state rx;
	unsigned char hbuf[sizeof(struct softrdma_wire_hdr)];
	size_t hhave;
	struct softrdma_wire_hdr hdr;
	struct iovec iov[SOFTRDMA_MAX_SGE];
	int iovcnt;
	size_t remaining;
	size_t total;
	int discard;
	int rx_status;
	uint64_t rwqe_id;
	uint64_t rnr_deadline;
	/* the operands of an atomic request, or the value of an atomic response (wire order) */
	uint64_t atomic[2];
	/* transmit side */
	struct softrdma_list txq;
	/* same-host transport: rings instead of the socket once @shm is set */
	struct softrdma_list shm_node;
	struct softrdma_peer *peer;
	struct softrdma_ring_area *area;
	struct softrdma_ring *rxr;
	struct softrdma_ring *txr;
	uint64_t rx_head;
	uint64_t tx_tail;
	int shm;
	/* requester over rings: the peer's shareable MRs mapped here (share.h) */
	struct softrdma_xmap *xmap;
	uint32_t xmap_sweep; /* the cache entry the next direct access checks for staleness */
	int ring_fd;
	/*
	 * requester: dialed by a post after the peer had left RTS (qp->peer_eos),
	 * to find it reset and connected again; until the answer to its hello,
	 * its loss fails nothing: the QP's requests keep waiting for the
	 * disconnect or the end-of-stream deadline
	 */
	int redial;
	int await_answer;
	int hello_sent;
	size_t ahave;
	unsigned char abuf[sizeof(struct softrdma_wire_shm)];
};

struct softrdma_qp {
	struct ibv_qp_ex qpx;
	pthread_mutex_t lock;
	int idx;
	/* ibv_destroy_qp ran; held by the CM (@cm_held), the QP waits for its
	 * release to be freed (@zombie). All three under @lock. */
	int destroyed;
	int cm_held;
	int zombie;
	/* attributes */
	struct ibv_qp_cap cap;
	int sq_sig_all;
	int access;
	uint8_t port;
	uint8_t sgid_index;
	uint8_t min_rnr_timer;
	uint8_t rnr_retry;
	uint8_t retry_cnt;
	uint8_t timeout;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint32_t path_mtu;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qpn;
	struct ibv_ah_attr ah;
	struct sockaddr_storage peer;
	/* send queue: posted and not yet completed, in order */
	struct softrdma_swqe *sq;
	uint32_t sq_size;
	uint32_t sq_head;
	uint32_t sq_count;
	uint32_t sq_ndone;
	uint32_t next_seq;
	/* receive queue */
	struct softrdma_rq rq;
	/*
	 * A receive WQE (from @rq or the SRQ) the responder took for a message
	 * still arriving: it completes with the message, or flushed when the
	 * QP enters the error state first, even if the connection went away.
	 */
	int rwqe_held;
	uint64_t rwqe_held_id;
	/* connections: requests go out on @out, requests arrive on @in */
	struct softrdma_conn *out;
	struct softrdma_conn *in;
	struct softrdma_list pending_tx;
	/*
	 * Disconnect: @draining while a CM disconnect waits (on @drain_cond)
	 * for the peer's streams to end; @peer_eos once the peer announced it
	 * left RTS; outstanding requests then fail at @eos_deadline unless the
	 * QP leaves RTS first.
	 */
	int draining;
	int peer_eos;
	uint64_t eos_deadline;
	/* set when @in waits for a receive WQE: the rescan then takes the lock */
	int rnr_waiting;
	/* set when a CQ of this QP overran: the rescan moves the QP to error */
	int cq_overrun;
	pthread_cond_t drain_cond;
	/* extended post interface */
	struct ibv_send_wr *xwr;
	struct ibv_sge *xsge;
	uint32_t xcount;
	int xerr;
};

#endif
