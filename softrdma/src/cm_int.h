/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cm_int.h -- the softrdma connection manager's state, shared by its
 * files (cm.c, cm_addr.c, cm_conn.c, cm_qp.c, cm_thread.c, cm_fork.c;
 * the unsupported calls in cm_stubs.c).
 *
 * The CM: rdma_cm ids map onto TCP connections. An
 * rdma_cm port P listens on TCP port P + SOFTRDMA_CM_PORT_OFFSET. The CM
 * exchanges REQ/REP/REJ/RTU/DREQ/DREP messages carrying QP numbers and
 * InfiniBand-sized private data, and drives the QPs through the public verbs.
 * A CM thread (all signals blocked) serves listeners and connections.
 *
 * Timing: a refused TCP connect is retried for SOFTRDMA_CM_REJECT_GRACE_MS
 * (default 2000) before REJECTED (status 8) is reported, so a client that
 * races its server's rdma_listen still connects. A connect whose REQ is not
 * acknowledged (MRA, REP or REJ) within SOFTRDMA_CM_TIMEOUT_MS (default
 * 10000) reports UNREACHABLE with status -ETIMEDOUT. An accepted connection
 * whose REQ has not come is pending: capped and timed out (util.h,
 * SOFTRDMA_PENDING_MAX and SOFTRDMA_PENDING_TIMEOUT_MS).
 *
 * Threads: softrdma__cm.lock guards softrdma__cm and the fields of every
 * id (each field says otherwise where it must); the CM thread and the
 * application's threads meet under that one lock. A function below that
 * wants it held says "softrdma__cm.lock held", one that runs only on the
 * CM thread says so; the others take what they need. An id is freed by
 * rdma_destroy_id (its user) or, never announced, by the CM thread; an
 * event by rdma_ack_cm_event.
 */
#ifndef SOFTRDMA_CM_INT_H
#define SOFTRDMA_CM_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>

#include "cm.h"
#include "softrdma.h"

#define SOFTRDMA_CM_TIMEOUT_MS	    10000
#define SOFTRDMA_CM_REJECT_GRACE_MS 2000
#define SOFTRDMA_CM_RETRY_NS	    20000000ull
/* QP ACK timeout (4.096 us * 2^14, about 67 ms) unless RDMA_OPTION_ID_ACK_TIMEOUT says */
#define SOFTRDMA_CM_ACK_TIMEOUT 14

enum softrdma_cm_state {
	CM_IDLE,
	CM_BOUND,
	CM_ADDR,
	CM_ROUTE,
	CM_LISTEN,
	CM_CONNECTING,
	CM_REQ_WAIT,
	CM_REQ_RCVD,
	CM_ACCEPTING,
	CM_RESPONSE,
	CM_ESTABLISHED,
	CM_DISCONNECTING,
	CM_DISCONNECTED,
	CM_ERROR,
};

struct softrdma_cm_chan {
	struct rdma_event_channel ch;
	struct softrdma_evq q;
};

struct softrdma_cm_id {
	struct rdma_cm_id id;
	struct softrdma_list node;
	enum softrdma_cm_state state;
	int fd;
	int tcp_connecting;
	int sync;
	int reported; /* events handed out: atomic, raised under the channel queue's lock */
	int acked;    /* events acknowledged: softrdma__cm.lock */
	int disc_reported;
	struct rdma_cm_event *sync_event;
	unsigned char rbuf[sizeof(struct softrdma_cm_msg)];
	size_t rhave;
	struct softrdma_cm_id *listen;
	uint32_t remote_qpn;
	/*
	 * The connection's secret (secret.h): drawn by the active side with its
	 * QP, received in the REQ by the passive side, which also records it for
	 * the peer QP (@remote_entry) until it accepts or rejects.
	 */
	uint8_t secret[SOFTRDMA_SECRET_LEN];
	int has_secret;
	int remote_entry;
	uint8_t rnr_retry;
	uint8_t remote_rnr_retry;
	/* RDMA_OPTION_ID_ACK_TIMEOUT: the QP's timeout at RTS (softrdma__cm.lock) */
	uint8_t ack_timeout;
	struct sockaddr_in peer;
	struct softrdma_cm_msg out_req;
	struct ibv_qp_init_attr ep_attr;
	struct ibv_pd *ep_pd;
	int has_ep_attr;
	int own_cqs;
	/*
	 * timers (CLOCK_MONOTONIC ns, 0 = off) of the active side; @deadline
	 * also ends a passive connection's wait for its request, and
	 * @retry_at the pause of a listener short of descriptors
	 */
	uint64_t deadline;
	uint64_t refuse_until;
	uint64_t retry_at;
	/* accepted, its request not read yet: on softrdma__cm.pending, oldest first */
	struct softrdma_list pend;
	/* a listener whose last accept4() ran out of descriptors (logged once) */
	int starved;
	/*
	 * Set in a forked child on every id of the parent: the id speaks for
	 * the parent, so every call on it but rdma_destroy_id fails with EIO.
	 */
	int inherited;
};

struct softrdma_cm_event {
	struct rdma_cm_event ev;
	struct softrdma_list node;
	struct softrdma_cm_id *owner;
	uint8_t pdata[SOFTRDMA_CM_REP_PDATA];
};

/*
 * The CM of this process. @lock guards everything here and in the ids;
 * @started is set with a release store once the CM thread runs (under
 * @lock), and cleared in a forked child, which starts its own CM on first
 * use.
 */
struct softrdma_cm {
	int started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int epfd;
	int wakefd;
	struct softrdma_list ids;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	int port_offset;
	uint64_t timeout_ns;
	uint64_t grace_ns;
	/* pending connections (see util.h): list, count and limits */
	struct softrdma_list pending;
	long npending;
	long pending_max;
	uint64_t pending_ns;
};

extern struct softrdma_cm softrdma__cm;

/* the epoll tag of the CM's wake eventfd (its address, not its value) */
extern char softrdma__cm_wake_tag;

/* ---- event channels, events, ids (cm.c) */

/* Set errno and return -1, the librdmacm error convention. */
int softrdma__cm_err(int err);

/*
 * Take softrdma__cm.lock for a call on @id: 0, or -1 with errno EIO and the
 * lock not taken when @id was inherited through fork (its connection is the
 * parent's, which the child may not touch).
 */
int softrdma__cm_id_lock(struct softrdma_cm_id *id);

/* Wake the CM thread so it recomputes its timers. */
void softrdma__cm_kick(void);

/*
 * Start the CM on first use (again in a forked child); 0 or the error of
 * starting it, which a later call retries.
 */
int softrdma__cm_start(void);

/* Queue an event for @owner on its current channel (softrdma__cm.lock held). */
void softrdma__cm_event(struct softrdma_cm_id *owner, struct softrdma_cm_id *listen,
			enum rdma_cm_event_type type, int status, const struct softrdma_cm_msg *m,
			int field);

/* Allocate an id on @channel, or a synchronous one with a private channel. */
struct softrdma_cm_id *softrdma__cm_id_new(struct rdma_event_channel *channel, void *context,
					   enum rdma_port_space ps);

/* Stop watching and close the TCP socket of @id (softrdma__cm.lock held). */
void softrdma__cm_close_fd(struct softrdma_cm_id *id);

/* Take @id off the pending connections, if it is there (softrdma__cm.lock held). */
void softrdma__cm_pend_del(struct softrdma_cm_id *id);

/*
 * The passive side is done with the request of @id: the secret it recorded
 * for the peer QP goes (softrdma__cm.lock held).
 */
void softrdma__cm_forget_request(struct softrdma_cm_id *id);

/*
 * Close and free @id, a passive connection never announced to the
 * application (CM thread, softrdma__cm.lock held).
 */
void softrdma__cm_pend_drop(struct softrdma_cm_id *id);

/* Wait on a synchronous id for its next event; returns 0 or -1/errno. */
int softrdma__cm_sync_wait(struct softrdma_cm_id *id, enum rdma_cm_event_type want);

/* ---- addressing (cm_addr.c) */

/* TCP port for rdma_cm port @port (network order in and out). */
uint16_t softrdma__cm_tcp_port(uint16_t port);

/* rdma_cm port for TCP port @port (network order in and out). */
uint16_t softrdma__cm_rdma_port(uint16_t port);

/* Index of the GID for local address @a, 0 if not found. */
int softrdma__cm_gid_index(struct in_addr a);

/* Fill a v4-mapped GID from an IPv4 address. */
void softrdma__cm_gid(union ibv_gid *g, struct in_addr a);

/* Record addresses on the id and its route (softrdma__cm.lock held). */
void softrdma__cm_set_addrs(struct softrdma_cm_id *id, const struct sockaddr_in *src,
			    const struct sockaddr_in *dst);

/*
 * The id now has its device, softrdma0: like librdmacm, it also gets the
 * device's default PD, which QPs, SRQs and MRs of the id may use (softrdma__cm.lock).
 */
void softrdma__cm_set_device(struct rdma_cm_id *cid);

/* ---- the handshake (cm_conn.c) */

/* Watch the id's socket in the CM thread. */
int softrdma__cm_watch(struct softrdma_cm_id *id, uint32_t events, int add);

/* Send one CM message on the id's connection. */
int softrdma__cm_send(struct softrdma_cm_id *id, struct softrdma_cm_msg *m);

/*
 * Open (when needed) the id's TCP socket and start a non-blocking connect to
 * the destination's CM port (softrdma__cm.lock held). Returns 0 or an errno; on error
 * the socket is closed.
 */
int softrdma__cm_tcp_connect(struct softrdma_cm_id *id);

/* Report DISCONNECTED once and close the connection (softrdma__cm.lock held). */
void softrdma__cm_disconnected(struct softrdma_cm_id *id);

/* ---- QPs (cm_qp.c) */

/* Move the id's QP to INIT if it is still in RESET. */
int softrdma__cm_qp_init(struct softrdma_cm_id *id);

/* Bring the id's QP to RTS towards the peer. */
int softrdma__cm_qp_connect(struct softrdma_cm_id *id);

/*
 * Give local QP @qpn the id's connection secret, drawing one first when the
 * id has none yet (the active side); 0 or an errno (softrdma__cm.lock held).
 */
int softrdma__cm_secure_qp(struct softrdma_cm_id *id, uint32_t qpn);

/* ---- the CM thread (cm_thread.c) */

/* Body of the CM thread. */
void *softrdma__cm_thread(void *arg);

#endif
