/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * librpma.h -- the public interface of librpma, the remote persistent memory
 * access library.
 *
 * Every function returns 0 (or a documented positive warning) on success and a
 * negative RPMA_E_* code on failure; an output argument is never written when
 * a call fails. Each comment below states what a call does, what it returns,
 * which errors it reports and whether it may be called from many threads at
 * once ("thread-safe").
 *
 * Programs written for librpma 1.3 (or 0.11) run unchanged: every call
 * accepts what 1.3 accepts and reports the error 1.3 reports, checked in the
 * same order. The deliberate differences, each where 1.3 would lose data,
 * leak, read memory it was not given or hand back an unusable object, or
 * where the wire contract asks for a stricter peer input check, are listed
 * under "DIFFERENCES FROM LIBRPMA 1.3" in librpma(7) and named in the
 * comments below.
 */

#ifndef LIBRPMA_H
#define LIBRPMA_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* the version of the API this header describes */
#define RPMA_MAJOR_VERSION 1
#define RPMA_MINOR_VERSION 3

/*
 * defined when this library has the extension of CQs shared by connections
 * (rpma_cq_new() and the calls around it, symbol version LIBRPMA_1.1), which
 * librpma 1.3 does not have
 */
#define RPMA_EXT_SHARED_CQ 1

/*
 * defined when this library has rpma_conn_get_peer_addr() (symbol version
 * LIBRPMA_1.2), which librpma 1.3 does not have
 */
#define RPMA_EXT_PEER_ADDR 1

/* error codes */
#define RPMA_E_UNKNOWN	       (-100000) /* unknown error */
#define RPMA_E_NOSUPP	       (-100001) /* not supported */
#define RPMA_E_PROVIDER	       (-100002) /* a provider call failed; errno holds its code */
#define RPMA_E_NOMEM	       (-100003) /* out of memory */
#define RPMA_E_INVAL	       (-100004) /* invalid argument */
#define RPMA_E_NO_COMPLETION   (-100005) /* no completion available */
#define RPMA_E_NO_EVENT	       (-100006) /* no next event available */
#define RPMA_E_AGAIN	       (-100007) /* temporary error, try again */
#define RPMA_E_SHARED_CHANNEL  (-100008) /* the completion channel is shared */
#define RPMA_E_NOT_SHARED_CHNL (-100009) /* the completion channel is not shared */

/* warnings */
#define RPMA_W_WAIT_FOR_COMPLETION (1) /* wait for the completion, then go on */

#define RPMA_DEFAULT_TIMEOUT_MS 1000

/* what a registered memory region may be used for */
#define RPMA_MR_USAGE_READ_SRC		    (1 << 0)
#define RPMA_MR_USAGE_READ_DST		    (1 << 1)
#define RPMA_MR_USAGE_WRITE_SRC		    (1 << 2)
#define RPMA_MR_USAGE_WRITE_DST		    (1 << 3)
#define RPMA_MR_USAGE_FLUSH_TYPE_VISIBILITY (1 << 4)
#define RPMA_MR_USAGE_FLUSH_TYPE_PERSISTENT (1 << 5)
#define RPMA_MR_USAGE_SEND		    (1 << 6)
#define RPMA_MR_USAGE_RECV		    (1 << 7)

/* when an operation generates a completion */
#define RPMA_F_COMPLETION_ON_ERROR (1 << 0)
#define RPMA_F_COMPLETION_ALWAYS   (1 << 1 | RPMA_F_COMPLETION_ON_ERROR)

#define RPMA_ATOMIC_WRITE_ALIGNMENT 8

#define RPMA_LOG_USE_DEFAULT_FUNCTION (NULL)

/* opaque objects */
struct rpma_peer;
struct rpma_peer_cfg;
struct rpma_conn_cfg;
struct rpma_conn_req;
struct rpma_conn;
struct rpma_ep;
struct rpma_mr_local;
struct rpma_mr_remote;
struct rpma_cq;
struct rpma_srq;
struct rpma_srq_cfg;

enum rpma_util_ibv_context_type {
	RPMA_UTIL_IBV_CONTEXT_LOCAL,  /* a context for a local address (server) */
	RPMA_UTIL_IBV_CONTEXT_REMOTE, /* a context reaching a remote address (client) */
};

enum rpma_conn_event {
	RPMA_CONN_UNDEFINED = -1, /* undefined connection event */
	RPMA_CONN_ESTABLISHED,	  /* the connection is established */
	RPMA_CONN_CLOSED,	  /* the connection is closed */
	RPMA_CONN_LOST,		  /* the connection is lost */
	RPMA_CONN_REJECTED,	  /* the connection was rejected by the peer */
	RPMA_CONN_UNREACHABLE,	  /* the peer could not be reached */
};

enum rpma_flush_type {
	RPMA_FLUSH_TYPE_PERSISTENT, /* down to the persistent domain */
	RPMA_FLUSH_TYPE_VISIBILITY, /* deep enough to be visible on the remote node */
};

enum rpma_log_level {
	RPMA_LOG_DISABLED = -1,
	RPMA_LOG_LEVEL_FATAL,
	RPMA_LOG_LEVEL_ERROR,
	RPMA_LOG_LEVEL_WARNING,
	RPMA_LOG_LEVEL_NOTICE,
	RPMA_LOG_LEVEL_INFO,
	RPMA_LOG_LEVEL_DEBUG,
};

enum rpma_log_threshold {
	RPMA_LOG_THRESHOLD,	/* messages up to this level are logged */
	RPMA_LOG_THRESHOLD_AUX, /* the default function also sends these to syslog */
	RPMA_LOG_THRESHOLD_MAX
};

/* 0.11 compatibility: the kind of a completed operation */
enum rpma_op {
	RPMA_OP_READ,
	RPMA_OP_WRITE,
	RPMA_OP_FLUSH,
	RPMA_OP_SEND,
	RPMA_OP_RECV,
	RPMA_OP_RECV_RDMA_WITH_IMM,
};

/* bytes exchanged while a connection is set up */
struct rpma_conn_private_data {
	void *ptr;
	uint8_t len;
};

/* 0.11 compatibility: one completion, as rpma_cq_get_completion() reports it */
struct rpma_completion {
	void *op_context;
	enum rpma_op op;
	uint32_t byte_len;
	enum ibv_wc_status op_status;
	unsigned flags;
	uint32_t imm;
};

typedef void rpma_log_function(enum rpma_log_level level, const char *file_name, const int line_no,
			       const char *function_name, const char *message_format, ...);

/* ---------------------------------------------------------------- version */

/*
 * rpma_check_version -- tell whether this library provides the API version
 * major_required.minor_required. Returns NULL when it does, otherwise a static
 * string saying why not. Thread-safe.
 */
const char *rpma_check_version(unsigned major_required, unsigned minor_required);

/*
 * rpma_errormsg -- the text of the last failure logged in the calling thread.
 * Never NULL; meaningful only right after a call that failed. Thread-safe (the
 * buffer is thread-local).
 */
const char *rpma_errormsg(void);

/*
 * rpma_err_2str -- a static, human-readable text for an RPMA_E_* code.
 * Thread-safe.
 */
const char *rpma_err_2str(int ret);

/* -------------------------------------------------------------- utilities */

/*
 * rpma_utils_get_ibv_context -- find the RDMA device context that serves addr:
 * a local address for RPMA_UTIL_IBV_CONTEXT_LOCAL, a remote one for
 * RPMA_UTIL_IBV_CONTEXT_REMOTE. The context stays valid for the life of the
 * process.
 * ERRORS: RPMA_E_INVAL (NULL argument, bad type), RPMA_E_NOMEM,
 * RPMA_E_PROVIDER (address resolution failed; also, with errno ENODEV, an
 * address no RDMA device serves, such as 0.0.0.0, where 1.3 succeeds with a
 * NULL context). Thread-safe.
 */
int rpma_utils_get_ibv_context(const char *addr, enum rpma_util_ibv_context_type type,
			       struct ibv_context **ibv_ctx_ptr);

/*
 * rpma_utils_ibv_context_is_odp_capable -- tell whether the device supports
 * On-Demand Paging for RC read and write (what librpma 1.3 asks of it).
 * ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER (device query failed). Thread-safe.
 */
int rpma_utils_ibv_context_is_odp_capable(struct ibv_context *ibv_ctx, int *is_odp_capable);

/*
 * rpma_utils_conn_event_2str -- a static text naming a connection event
 * ("Unsupported connection event" for a value that is none). Thread-safe.
 */
const char *rpma_utils_conn_event_2str(enum rpma_conn_event conn_event);

/* ------------------------------------------------------------------- peer */

/*
 * rpma_peer_new -- create a peer (a protection domain on the device) from
 * which memory regions, endpoints and connections are made.
 * ERRORS: RPMA_E_INVAL (NULL argument), RPMA_E_PROVIDER (the device query
 * failed, or the protection domain could not be made, errno set),
 * RPMA_E_NOMEM (out of memory, also when the device said ENOMEM),
 * RPMA_E_UNKNOWN (the device failed to make the protection domain without
 * saying why). Thread-safe.
 */
int rpma_peer_new(struct ibv_context *ibv_ctx, struct rpma_peer **peer_ptr);

/*
 * rpma_peer_delete -- delete a peer; every object made from it must be gone.
 * *peer_ptr becomes NULL; a NULL *peer_ptr is not an error.
 * ERRORS: RPMA_E_INVAL (peer_ptr NULL), RPMA_E_PROVIDER (the protection
 * domain could not be released; the peer is freed anyway). Thread-safe for
 * different peers.
 */
int rpma_peer_delete(struct rpma_peer **peer_ptr);

/* ------------------------------------------------------ peer configuration */

/*
 * rpma_peer_cfg_new -- create a peer configuration: direct write to PMem not
 * supported. ERRORS: RPMA_E_INVAL, RPMA_E_NOMEM. Thread-safe.
 */
int rpma_peer_cfg_new(struct rpma_peer_cfg **pcfg_ptr);

/*
 * rpma_peer_cfg_delete -- delete a peer configuration; *pcfg_ptr becomes NULL.
 * ERRORS: RPMA_E_INVAL. Thread-safe for different objects.
 */
int rpma_peer_cfg_delete(struct rpma_peer_cfg **pcfg_ptr);

/*
 * rpma_peer_cfg_set_direct_write_to_pmem -- declare whether this platform
 * makes RDMA writes persistent on arrival (direct write to PMem).
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_peer_cfg_set_direct_write_to_pmem(struct rpma_peer_cfg *pcfg, bool supported);

/*
 * rpma_peer_cfg_get_direct_write_to_pmem -- read the declaration above.
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_peer_cfg_get_direct_write_to_pmem(const struct rpma_peer_cfg *pcfg, bool *supported);

/*
 * rpma_peer_cfg_get_descriptor -- serialize the configuration into desc,
 * which holds at least rpma_peer_cfg_get_descriptor_size() bytes (1).
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_peer_cfg_get_descriptor(const struct rpma_peer_cfg *pcfg, void *desc);

/*
 * rpma_peer_cfg_get_descriptor_size -- the size of the descriptor above.
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_peer_cfg_get_descriptor_size(const struct rpma_peer_cfg *pcfg, size_t *desc_size);

/*
 * rpma_peer_cfg_from_descriptor -- rebuild a peer configuration received from
 * a peer. ERRORS: RPMA_E_INVAL (NULL argument, buffer shorter than 1 byte,
 * a value other than 0 or 1, which 1.3 takes as true), RPMA_E_NOMEM.
 * Thread-safe.
 */
int rpma_peer_cfg_from_descriptor(const void *desc, size_t desc_size,
				  struct rpma_peer_cfg **pcfg_ptr);

/* ---------------------------------------------------------- memory regions */

/*
 * rpma_mr_reg -- register size bytes at ptr for the given RPMA_MR_USAGE_*
 * bits. The usage decides the access the device grants the region, as in
 * librpma 1.3: remote read for READ_SRC and both FLUSH_TYPE_* usages; local
 * write for READ_DST, WRITE_SRC and RECV; remote and local write for
 * WRITE_DST; on iWARP also remote write for READ_DST; nothing for SEND.
 * That access, not the usage word, is what the device checks when the
 * region is used (see "data transfer" below): a region registered for
 * WRITE_SRC may, like with 1.3, be received into. Memory the process may
 * not write (e.g. read-only mappings) can be registered only for usages
 * that grant no local write (READ_SRC, SEND, the flush types).
 * ERRORS: RPMA_E_INVAL (NULL argument, size 0, usage 0 or unknown bits),
 * RPMA_E_NOMEM, RPMA_E_PROVIDER (the device refused the region).
 * Thread-safe.
 */
int rpma_mr_reg(struct rpma_peer *peer, void *ptr, size_t size, int usage,
		struct rpma_mr_local **mr_ptr);

/*
 * rpma_mr_dereg -- deregister a region; *mr_ptr becomes NULL.
 * ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER (the object is freed anyway).
 * Thread-safe for different regions.
 */
int rpma_mr_dereg(struct rpma_mr_local **mr_ptr);

/*
 * rpma_mr_get_descriptor -- write the 21-byte network descriptor of a local
 * region into desc, for a peer's rpma_mr_remote_from_descriptor().
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_mr_get_descriptor(const struct rpma_mr_local *mr, void *desc);

/*
 * rpma_mr_get_descriptor_size -- the size of that descriptor (21).
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_mr_get_descriptor_size(const struct rpma_mr_local *mr, size_t *desc_size);

/* rpma_mr_get_ptr -- the address of a local region. ERRORS: RPMA_E_INVAL. Thread-safe. */
int rpma_mr_get_ptr(const struct rpma_mr_local *mr, void **ptr);

/* rpma_mr_get_size -- the size of a local region. ERRORS: RPMA_E_INVAL. Thread-safe. */
int rpma_mr_get_size(const struct rpma_mr_local *mr, size_t *size);

/*
 * rpma_mr_advise -- give the device advice (enum ibv_advise_mr_advice) on a
 * range of a local region, e.g. to prefetch On-Demand Paging memory.
 * ERRORS: RPMA_E_INVAL (mr NULL, an empty range or one outside the region,
 * an unknown advice; the device's EINVAL or EFAULT), RPMA_E_NOSUPP (the
 * device or advice is not supported), RPMA_E_PROVIDER. The range and the
 * advice are checked before the device is asked (librpma 1.3 asks it at
 * once, so a device without advice answers RPMA_E_NOSUPP to those too).
 * Thread-safe.
 */
int rpma_mr_advise(struct rpma_mr_local *mr, size_t offset, size_t len, int advice, uint32_t flags);

/*
 * rpma_mr_remote_from_descriptor -- rebuild a remote region from the
 * descriptor a peer sent. ERRORS: RPMA_E_INVAL (NULL argument, buffer shorter
 * than a descriptor), RPMA_E_NOSUPP (the bytes do not describe a valid
 * region: usage 0 or unknown bits, an address range that wraps around; the
 * 1.3 code answers RPMA_E_INVAL to usage 0 and accepts the others),
 * RPMA_E_NOMEM. Thread-safe.
 */
int rpma_mr_remote_from_descriptor(const void *desc, size_t desc_size,
				   struct rpma_mr_remote **mr_ptr);

/* rpma_mr_remote_get_size -- the size of a remote region. ERRORS: RPMA_E_INVAL. Thread-safe. */
int rpma_mr_remote_get_size(const struct rpma_mr_remote *mr, size_t *size);

/*
 * rpma_mr_remote_get_flush_type -- the RPMA_MR_USAGE_FLUSH_TYPE_* bits the
 * remote region supports. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_mr_remote_get_flush_type(const struct rpma_mr_remote *mr, int *flush_type);

/*
 * rpma_mr_remote_delete -- delete a remote region; *mr_ptr becomes NULL.
 * ERRORS: RPMA_E_INVAL. Thread-safe for different objects.
 */
int rpma_mr_remote_delete(struct rpma_mr_remote **mr_ptr);

/* -------------------------------------------------- connection configuration */

/*
 * rpma_conn_cfg_new -- create a connection configuration with the defaults:
 * timeout RPMA_DEFAULT_TIMEOUT_MS, CQ, SQ and RQ of 10, no separate receive CQ,
 * no shared completion channel, no shared receive queue, no shared CQ (each
 * connection makes its own CQs).
 * ERRORS: RPMA_E_INVAL, RPMA_E_NOMEM. Thread-safe.
 */
int rpma_conn_cfg_new(struct rpma_conn_cfg **cfg_ptr);

/* rpma_conn_cfg_delete -- delete a configuration; *cfg_ptr becomes NULL. ERRORS: RPMA_E_INVAL. */
int rpma_conn_cfg_delete(struct rpma_conn_cfg **cfg_ptr);

/*
 * The setters and getters below change or read one field of a connection
 * configuration. They fail with RPMA_E_INVAL on a NULL argument (and, for the
 * timeout, a negative value). Queue sizes are not judged here: the device
 * judges them when a request is made with the configuration (a size it
 * refuses, 0 included, is RPMA_E_PROVIDER there; a size above INT_MAX is
 * asked for as INT_MAX), as with librpma 1.3. All are thread-safe: each
 * field is read and written atomically.
 */
int rpma_conn_cfg_set_timeout(struct rpma_conn_cfg *cfg, int timeout_ms);
int rpma_conn_cfg_get_timeout(const struct rpma_conn_cfg *cfg, int *timeout_ms);
int rpma_conn_cfg_set_cq_size(struct rpma_conn_cfg *cfg, uint32_t cq_size);
int rpma_conn_cfg_get_cq_size(const struct rpma_conn_cfg *cfg, uint32_t *cq_size);
int rpma_conn_cfg_set_rcq_size(struct rpma_conn_cfg *cfg, uint32_t rcq_size);
int rpma_conn_cfg_get_rcq_size(const struct rpma_conn_cfg *cfg, uint32_t *rcq_size);
int rpma_conn_cfg_set_sq_size(struct rpma_conn_cfg *cfg, uint32_t sq_size);
int rpma_conn_cfg_get_sq_size(const struct rpma_conn_cfg *cfg, uint32_t *sq_size);
int rpma_conn_cfg_set_rq_size(struct rpma_conn_cfg *cfg, uint32_t rq_size);
int rpma_conn_cfg_get_rq_size(const struct rpma_conn_cfg *cfg, uint32_t *rq_size);
int rpma_conn_cfg_set_compl_channel(struct rpma_conn_cfg *cfg, bool shared);
int rpma_conn_cfg_get_compl_channel(const struct rpma_conn_cfg *cfg, bool *shared);
int rpma_conn_cfg_set_srq(struct rpma_conn_cfg *cfg, struct rpma_srq *srq);
int rpma_conn_cfg_get_srq(const struct rpma_conn_cfg *cfg, struct rpma_srq **srq_ptr);

/*
 * rpma_conn_cfg_set_cq, rpma_conn_cfg_set_rcq -- extension (see "CQs shared
 * by connections"): name a CQ made by rpma_cq_new() that the connections
 * made with this configuration use as their CQ (completions of sends,
 * reads, writes, flushes, and of receives when there is no receive CQ) or
 * as their receive CQ, instead of making one of their own. NULL (the
 * default) makes them make their own again. The same CQ may be both.
 * The configuration does not hold the CQ: it must outlive the requests
 * made with the configuration. Each request holds it from
 * rpma_conn_req_new() or rpma_ep_next_conn_req() on, and its connection
 * until rpma_conn_delete() (a request that never becomes a connection until
 * rpma_conn_req_delete() or a failed rpma_conn_req_connect());
 * rpma_cq_delete() refuses the CQ meanwhile. When the configuration is
 * used:
 * - with a CQ set, cq_size is ignored; with a receive CQ set, rcq_size is
 *   ignored; the SQ and RQ sizes apply as before;
 * - a CQ or receive CQ set together with a shared completion channel
 *   (rpma_conn_cfg_set_compl_channel(cfg, true)) is refused with
 *   RPMA_E_INVAL: share a channel between CQs with rpma_cq_new() instead;
 * - a receive CQ set together with a shared receive queue that has a
 *   receive CQ of its own is refused with RPMA_E_INVAL; with a shared
 *   receive queue made with an rcq_size of 0, its receives complete on the
 *   receive CQ set here (or on the CQ when none is set);
 * - a CQ of another device than the connection's is refused with
 *   RPMA_E_INVAL.
 * ERRORS: RPMA_E_INVAL (cfg NULL, a CQ not made by rpma_cq_new()).
 * Thread-safe (the fields are read and written atomically).
 */
int rpma_conn_cfg_set_cq(struct rpma_conn_cfg *cfg, struct rpma_cq *cq);
int rpma_conn_cfg_set_rcq(struct rpma_conn_cfg *cfg, struct rpma_cq *rcq);

/*
 * rpma_conn_cfg_get_cq, rpma_conn_cfg_get_rcq -- extension: the CQs set
 * above, or NULL. ERRORS: RPMA_E_INVAL (NULL argument). Thread-safe.
 */
int rpma_conn_cfg_get_cq(const struct rpma_conn_cfg *cfg, struct rpma_cq **cq_ptr);
int rpma_conn_cfg_get_rcq(const struct rpma_conn_cfg *cfg, struct rpma_cq **rcq_ptr);

/* ------------------------------------------------------ shared receive queue */

/*
 * rpma_srq_cfg_new -- create a shared receive queue configuration: RQ 20,
 * receive CQ 20 (0 means no CQ of its own). ERRORS: RPMA_E_INVAL,
 * RPMA_E_NOMEM. Thread-safe.
 */
int rpma_srq_cfg_new(struct rpma_srq_cfg **cfg_ptr);

/* rpma_srq_cfg_delete -- delete it; *cfg_ptr becomes NULL. ERRORS: RPMA_E_INVAL. */
int rpma_srq_cfg_delete(struct rpma_srq_cfg **cfg_ptr);

/* setters and getters; RPMA_E_INVAL on a NULL argument; thread-safe */
int rpma_srq_cfg_set_rq_size(struct rpma_srq_cfg *cfg, uint32_t rq_size);
int rpma_srq_cfg_get_rq_size(const struct rpma_srq_cfg *cfg, uint32_t *rq_size);
int rpma_srq_cfg_set_rcq_size(struct rpma_srq_cfg *cfg, uint32_t rcq_size);
int rpma_srq_cfg_get_rcq_size(const struct rpma_srq_cfg *cfg, uint32_t *rcq_size);

/*
 * rpma_srq_new -- create a shared receive queue (and its receive CQ when the
 * configuration asks for one); cfg NULL takes the defaults.
 * ERRORS: RPMA_E_INVAL (peer or srq_ptr NULL), RPMA_E_NOMEM, RPMA_E_PROVIDER
 * (the device refused the queue or its CQ, a size of 0 included).
 * Thread-safe.
 */
int rpma_srq_new(struct rpma_peer *peer, struct rpma_srq_cfg *cfg, struct rpma_srq **srq_ptr);

/*
 * rpma_srq_delete -- delete a shared receive queue; every connection using it
 * must be gone. ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER (the object is freed
 * anyway). Thread-safe for different queues.
 */
int rpma_srq_delete(struct rpma_srq **srq_ptr);

/*
 * rpma_srq_recv -- post a receive buffer to the shared receive queue.
 * dst NULL with offset and len 0 posts an empty buffer (for write with
 * immediate data). What is checked and what is left to the device is as
 * for rpma_recv() (see "data transfer" below). ERRORS: RPMA_E_INVAL (srq
 * NULL, offset or len without dst, len above UINT32_MAX), RPMA_E_PROVIDER.
 * Data path: no allocation, no lock; thread-safe.
 */
int rpma_srq_recv(struct rpma_srq *srq, struct rpma_mr_local *dst, size_t offset, size_t len,
		  const void *op_context);

/*
 * rpma_srq_get_rcq -- the receive CQ of the shared receive queue, or NULL
 * when it has none. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_srq_get_rcq(const struct rpma_srq *srq, struct rpma_cq **rcq_ptr);

/* ---------------------------------------------------------------- endpoint */

/*
 * rpma_ep_listen -- listen for connections on addr:port.
 * ERRORS: RPMA_E_INVAL, RPMA_E_NOMEM, RPMA_E_PROVIDER (cannot bind or listen).
 * Not thread-safe against other calls on the same endpoint.
 */
int rpma_ep_listen(struct rpma_peer *peer, const char *addr, const char *port,
		   struct rpma_ep **ep_ptr);

/*
 * rpma_ep_shutdown -- stop listening and delete the endpoint; *ep_ptr
 * becomes NULL. ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER. Not thread-safe.
 */
int rpma_ep_shutdown(struct rpma_ep **ep_ptr);

/*
 * rpma_ep_get_fd -- the file descriptor that becomes readable when a
 * connection request arrives; with O_NONBLOCK set on it,
 * rpma_ep_next_conn_req() does not block. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_ep_get_fd(const struct rpma_ep *ep, int *fd);

/*
 * rpma_ep_next_conn_req -- take the next incoming connection request and
 * prepare its queues with cfg (NULL: the defaults). A request whose queues
 * cannot be made is rejected (1.3 leaves the client waiting).
 * ERRORS: RPMA_E_INVAL (NULL argument, an event other than a connection
 * request, CQs in cfg that do not fit: see rpma_conn_cfg_set_cq()),
 * RPMA_E_NO_EVENT (none waiting on a non-blocking fd, or the event channel
 * was closed), RPMA_E_NOMEM, RPMA_E_PROVIDER.
 * Not thread-safe against other calls on the same endpoint.
 */
int rpma_ep_next_conn_req(struct rpma_ep *ep, const struct rpma_conn_cfg *cfg,
			  struct rpma_conn_req **req_ptr);

/* ------------------------------------------------------- connection request */

/*
 * rpma_conn_req_new -- prepare an outgoing connection to addr:port: resolve
 * the address and route, create the queues as cfg (NULL: the defaults) says.
 * ERRORS: RPMA_E_INVAL (NULL argument, CQs in cfg that do not fit: see
 * rpma_conn_cfg_set_cq()), RPMA_E_NOMEM, RPMA_E_PROVIDER. Thread-safe: many
 * threads may create requests from one peer at once, with CQs shared
 * between them too.
 */
int rpma_conn_req_new(struct rpma_peer *peer, const char *addr, const char *port,
		      const struct rpma_conn_cfg *cfg, struct rpma_conn_req **req_ptr);

/*
 * rpma_conn_req_delete -- drop a connection request that was not connected:
 * an incoming one is rejected. *req_ptr becomes NULL.
 * ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER (the object is freed anyway).
 * Not thread-safe against other calls on the same request.
 */
int rpma_conn_req_delete(struct rpma_conn_req **req_ptr);

/*
 * rpma_conn_req_connect -- connect (client) or accept (server) the request,
 * sending pdata (NULL: none; otherwise with data and a length of 1 to 56
 * bytes from a client, 196 from a server), and turn it into a connection.
 * As in librpma 1.3, a NULL argument or private data without data or
 * length (RPMA_E_INVAL) leave the request as it was; any other failure
 * consumes it (*req_ptr becomes NULL), as does success. An incoming request
 * refused for its private data's length is rejected.
 * ERRORS: RPMA_E_INVAL (NULL argument, private data without data or
 * length, private data longer than the transport carries: 1.3 leaves that
 * to the connection manager, which fails with RPMA_E_PROVIDER),
 * RPMA_E_NOMEM, RPMA_E_PROVIDER. Not thread-safe against other calls on
 * the same request.
 */
int rpma_conn_req_connect(struct rpma_conn_req **req_ptr,
			  const struct rpma_conn_private_data *pdata, struct rpma_conn **conn_ptr);

/*
 * rpma_conn_req_recv -- post a receive buffer before the connection exists,
 * so that a message sent right after the peer connects finds it. What is
 * checked and what is left to the device is as for rpma_recv(); dst NULL
 * with offset and len 0 posts an empty buffer, as rpma_recv() does (1.3
 * refuses dst NULL here). ERRORS: RPMA_E_INVAL (req NULL, offset or len
 * without dst, len above UINT32_MAX), RPMA_E_PROVIDER. Not thread-safe on
 * one request.
 */
int rpma_conn_req_recv(struct rpma_conn_req *req, struct rpma_mr_local *dst, size_t offset,
		       size_t len, const void *op_context);

/*
 * rpma_conn_req_get_private_data -- the private data that came with an
 * incoming request (ptr NULL and len 0 if none). The bytes live as long as
 * the request. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_req_get_private_data(const struct rpma_conn_req *req,
				   struct rpma_conn_private_data *pdata);

/* -------------------------------------------------------------- connection */

/*
 * rpma_conn_get_event_fd -- the file descriptor that becomes readable when a
 * connection event arrives. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_get_event_fd(const struct rpma_conn *conn, int *fd);

/*
 * rpma_conn_next_event -- wait for (or, on a non-blocking fd, take) the next
 * connection event. ERRORS: RPMA_E_INVAL, RPMA_E_NO_EVENT (nothing waiting on
 * a non-blocking fd), RPMA_E_NOMEM, RPMA_E_PROVIDER, RPMA_E_UNKNOWN (an event
 * the library does not expect on a connection, address and route errors
 * included). Not thread-safe on one connection.
 */
int rpma_conn_next_event(struct rpma_conn *conn, enum rpma_conn_event *event);

/*
 * rpma_conn_get_private_data -- the private data the peer sent while the
 * connection was set up. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_get_private_data(const struct rpma_conn *conn, struct rpma_conn_private_data *pdata);

/*
 * rpma_conn_apply_remote_peer_cfg -- take the peer's configuration into
 * account (e.g. allow RPMA_FLUSH_TYPE_PERSISTENT when the peer writes
 * directly to PMem). ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_apply_remote_peer_cfg(struct rpma_conn *conn, const struct rpma_peer_cfg *pcfg);

/* rpma_conn_get_qp_num -- the number of the connection's queue pair. ERRORS: RPMA_E_INVAL. */
int rpma_conn_get_qp_num(const struct rpma_conn *conn, uint32_t *qp_num);

/*
 * rpma_conn_get_peer_addr -- an extension of this librpma (LIBRPMA_1.2,
 * RPMA_EXT_PEER_ADDR): the address of the connection's peer as the
 * connection manager knows it (for a server, the client's address and the
 * port it connected from), copied into *addr: an AF_INET or AF_INET6 socket
 * address for IP (getnameinfo(3) prints it), another family for other
 * transports. ERRORS: RPMA_E_INVAL (conn or addr NULL). Thread-safe.
 */
int rpma_conn_get_peer_addr(const struct rpma_conn *conn, struct sockaddr_storage *addr);

/*
 * rpma_conn_get_cq -- the connection's main CQ: its own, or the CQ its
 * configuration named (rpma_conn_cfg_set_cq()), which it shares.
 * ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_get_cq(const struct rpma_conn *conn, struct rpma_cq **cq_ptr);

/*
 * rpma_conn_get_rcq -- the connection's separate receive CQ (its own, its
 * shared receive queue's, or the one its configuration named with
 * rpma_conn_cfg_set_rcq()), or NULL when it has none. ERRORS: RPMA_E_INVAL. Thread-safe.
 */
int rpma_conn_get_rcq(const struct rpma_conn *conn, struct rpma_cq **rcq_ptr);

/*
 * rpma_conn_get_compl_fd -- the file descriptor of the completion channel the
 * CQ and the receive CQ share. ERRORS: RPMA_E_INVAL, RPMA_E_NOT_SHARED_CHNL
 * (the channel is not shared). Thread-safe.
 */
int rpma_conn_get_compl_fd(const struct rpma_conn *conn, int *fd);

/*
 * rpma_conn_wait -- wait on the shared completion channel and report which CQ
 * got a completion (*is_rcq tells whether it is the receive CQ; cq and is_rcq
 * may be NULL, where 1.3 refuses cq NULL). flags are reserved and, as in
 * 1.3, ignored whatever their value. ERRORS: RPMA_E_INVAL (conn NULL),
 * RPMA_E_NOT_SHARED_CHNL, RPMA_E_NO_COMPLETION (no event on a non-blocking
 * fd, or ibv_get_cq_event() failed), RPMA_E_UNKNOWN (an event from a CQ of
 * another connection; acknowledged), RPMA_E_PROVIDER (re-arming the CQ
 * failed). Thread-safe.
 */
int rpma_conn_wait(struct rpma_conn *conn, int flags, struct rpma_cq **cq, bool *is_rcq);

/*
 * rpma_conn_disconnect -- start tearing the connection down; the peer sees
 * RPMA_CONN_CLOSED. ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER. Not thread-safe on
 * one connection.
 */
int rpma_conn_disconnect(struct rpma_conn *conn);

/*
 * rpma_conn_delete -- release a connection and its queues; *conn_ptr becomes
 * NULL. A CQ it shares (rpma_conn_cfg_set_cq(), rpma_conn_cfg_set_rcq()) is
 * not destroyed: the connection stops using it once its QP is gone.
 * ERRORS: RPMA_E_INVAL, RPMA_E_PROVIDER (everything is freed anyway).
 * Not thread-safe on one connection.
 */
int rpma_conn_delete(struct rpma_conn **conn_ptr);

/* ---------------------------------------------------------- data transfer */

/*
 * The calls below post one operation on the connection's send (or receive)
 * queue. They neither allocate memory nor take a lock and are thread-safe.
 * flags: RPMA_F_COMPLETION_ON_ERROR or RPMA_F_COMPLETION_ALWAYS; as in
 * librpma 1.3 any non-zero value is taken, and the completion of a success
 * is generated when the bit (1 << 1) of RPMA_F_COMPLETION_ALWAYS is set. The
 * completion carries op_context as wr_id.
 *
 * What is checked when posting, and what is left to the device -- the same
 * rule as librpma 1.3's:
 * - Refused here, with RPMA_E_INVAL: a NULL connection, flags 0, one region
 *   given without the other (read, write), offsets or a length given without
 *   a region (dst/src NULL with offsets and length 0 is an empty operation),
 *   an atomic write's unaligned offset, an unknown flush type; and, beyond
 *   1.3, a length above UINT32_MAX, which a work request cannot hold (1.3
 *   cuts it to 32 bits and moves less than asked).
 * - Not checked here: the regions' usage bits and whether the ranges lie
 *   inside the regions. The device checks the access the registrations
 *   granted (see rpma_mr_reg()) and the ranges when the data moves: a
 *   receive or read destination needs local write, a send or write source
 *   only a valid key, a remote region remote read or write. It reports a
 *   failed check in the operation's completion (IBV_WC_LOC_PROT_ERR,
 *   IBV_WC_REM_ACCESS_ERR, ...), never by refusing the post, and so the
 *   post succeeds here too: a region registered READ_DST | WRITE_SRC may be
 *   received into, one registered READ_SRC | WRITE_DST sent from, as with
 *   1.3 on an RNIC.
 * ERRORS common to all: RPMA_E_INVAL (the above), RPMA_E_PROVIDER (the post
 * failed, e.g. the send queue is full).
 */

/* rpma_read -- copy len bytes from the remote region into the local one. */
int rpma_read(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t dst_offset,
	      const struct rpma_mr_remote *src, size_t src_offset, size_t len, int flags,
	      const void *op_context);

/* rpma_write -- copy len bytes from the local region into the remote one. */
int rpma_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
	       const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
	       const void *op_context);

/* rpma_write_with_imm -- rpma_write() that also consumes a receive on the peer with imm. */
int rpma_write_with_imm(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
			const struct rpma_mr_local *src, size_t src_offset, size_t len, int flags,
			uint32_t imm, const void *op_context);

/*
 * rpma_atomic_write -- store 8 bytes atomically at an 8-byte-aligned
 * dst_offset of the remote region. Also RPMA_E_INVAL: dst or src NULL, an
 * unaligned dst_offset.
 */
int rpma_atomic_write(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		      const char src[8], int flags, const void *op_context);

/*
 * rpma_write_atomic -- 0.11 compatibility: rpma_atomic_write() with the 8
 * bytes taken from a registered local region. The CPU copies those 8 bytes
 * when posting, so [src_offset, src_offset + 8) must lie inside src
 * (RPMA_E_INVAL otherwise); src's usage does not matter.
 */
int rpma_write_atomic(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset,
		      const struct rpma_mr_local *src, size_t src_offset, int flags,
		      const void *op_context);

/*
 * rpma_flush -- make the writes already posted to the remote region visible
 * (RPMA_FLUSH_TYPE_VISIBILITY) or persistent (RPMA_FLUSH_TYPE_PERSISTENT).
 * Checked in librpma 1.3's order: RPMA_E_INVAL (conn or dst NULL, flags 0),
 * then RPMA_E_NOSUPP for a persistent flush the remote peer did not declare
 * (rpma_conn_apply_remote_peer_cfg()), then RPMA_E_NOSUPP for a type the
 * region's usage lacks (FLUSH_TYPE_PERSISTENT or FLUSH_TYPE_VISIBILITY
 * respectively), then RPMA_E_INVAL for an unknown type. Without a native
 * flush it reads 8 bytes at dst_offset (whatever len is; an offset past
 * the region is the device's to refuse), or the region's last bytes when
 * fewer than 8 follow dst_offset (1.3 reads past the region's end there and
 * fails).
 */
int rpma_flush(struct rpma_conn *conn, struct rpma_mr_remote *dst, size_t dst_offset, size_t len,
	       enum rpma_flush_type type, int flags, const void *op_context);

/* rpma_send -- send a message from the local region (len 0 sends an empty message). */
int rpma_send(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset, size_t len,
	      int flags, const void *op_context);

/* rpma_send_with_imm -- rpma_send() that also carries imm. */
int rpma_send_with_imm(struct rpma_conn *conn, const struct rpma_mr_local *src, size_t offset,
		       size_t len, int flags, uint32_t imm, const void *op_context);

/*
 * rpma_recv -- post a receive buffer (dst NULL with offset and len 0 posts an
 * empty one); the completion always comes. The buffer's region needs local
 * write (any usage of READ_DST, WRITE_SRC, WRITE_DST, RECV gives it) for a
 * message with data to land: otherwise the device fails the receive in its
 * completion (IBV_WC_LOC_PROT_ERR).
 */
int rpma_recv(struct rpma_conn *conn, struct rpma_mr_local *dst, size_t offset, size_t len,
	      const void *op_context);

/* -------------------------------------------------------- completion queues */

/*
 * rpma_cq_get_fd -- the file descriptor of the CQ's completion channel. When
 * the connection's CQ and receive CQ share their channel, both give the
 * shared channel's descriptor (the one rpma_conn_get_compl_fd() gives), as
 * in librpma 1.3: it may be watched with poll or epoll, and an event on it
 * is taken with rpma_conn_wait() (rpma_cq_wait() refuses a shared channel).
 * For a CQ made by rpma_cq_new() it is the descriptor of the channel that
 * CQ shares with the CQs made with share_channel_with.
 * ERRORS: RPMA_E_INVAL (cq or fd NULL). Thread-safe.
 */
int rpma_cq_get_fd(const struct rpma_cq *cq, int *fd);

/*
 * rpma_cq_wait -- wait for the next completion event on the CQ and re-arm it.
 * ERRORS: RPMA_E_INVAL, RPMA_E_SHARED_CHANNEL (the channel is shared: use
 * rpma_conn_wait() for a connection's CQs, rpma_cq_channel_wait() for a CQ
 * made by rpma_cq_new() whose channel another CQ uses at the time),
 * RPMA_E_NO_COMPLETION (no event on a non-blocking fd, or
 * ibv_get_cq_event() failed), RPMA_E_PROVIDER (re-arming failed). No
 * allocation, no lock; thread-safe; not thread-safe against rpma_cq_new()
 * putting another CQ on the channel of a CQ made by rpma_cq_new() (the
 * waiting thread could take the other CQ's event).
 */
int rpma_cq_wait(struct rpma_cq *cq);

/*
 * rpma_cq_get_wc -- take up to num_entries completions; *num_entries_got says
 * how many (num_entries_got may be NULL only when num_entries is 1).
 * ERRORS: RPMA_E_INVAL, RPMA_E_NO_COMPLETION (none ready), RPMA_E_PROVIDER.
 * Also RPMA_E_UNKNOWN if the device reports more than asked for.
 * No allocation, no lock; thread-safe.
 */
int rpma_cq_get_wc(struct rpma_cq *cq, int num_entries, struct ibv_wc *wc, int *num_entries_got);

/*
 * rpma_cq_get_completion -- 0.11 compatibility: take one completion as a
 * struct rpma_completion. ERRORS: as rpma_cq_get_wc(), and RPMA_E_NOSUPP for
 * a completion of a kind the 0.11 API cannot express.
 */
int rpma_cq_get_completion(struct rpma_cq *cq, struct rpma_completion *cmpl);

/* ------------------------------------ CQs shared by connections (extension) */

/*
 * An extension of this librpma, which librpma 1.3 does not have (its
 * symbols carry the version LIBRPMA_1.1; RPMA_EXT_SHARED_CQ is defined): a
 * CQ made on its own from a peer, which many connections use as their CQ or
 * receive CQ (rpma_conn_cfg_set_cq(), rpma_conn_cfg_set_rcq()), so that one
 * thread polls one CQ for all of them instead of one per connection. The
 * qp_num of each completion (struct ibv_wc, from rpma_cq_get_wc(); the 0.11
 * struct rpma_completion has none) names the connection it belongs to, as
 * rpma_conn_get_qp_num() gives it. The CQ must have room for every
 * completion its connections may have outstanding at once: a full CQ is an
 * error of the device that breaks the connections using it. Several CQs may
 * share one completion channel, so that one descriptor wakes a thread for
 * all of them.
 */

/*
 * rpma_cq_new -- make a CQ of cq_size entries on the peer's device, armed
 * for the next completion, with a completion channel of its own, or, when
 * share_channel_with is not NULL, on the channel of that CQ (made by
 * rpma_cq_new() from a peer on the same device). rpma_cq_get_fd() gives the
 * channel's descriptor; rpma_cq_get_wc() takes completions; waiting is for
 * rpma_cq_wait() while no other CQ uses the channel, and for
 * rpma_cq_channel_wait() in any case.
 * ERRORS: RPMA_E_INVAL (peer or cq_ptr NULL, cq_size below 1,
 * share_channel_with not made by rpma_cq_new() or made on another device),
 * RPMA_E_NOMEM, RPMA_E_PROVIDER (the device refused the channel or the CQ,
 * e.g. a size beyond its limit; errno set). Thread-safe; not thread-safe
 * against rpma_cq_delete() of share_channel_with.
 */
int rpma_cq_new(struct rpma_peer *peer, int cq_size, const struct rpma_cq *share_channel_with,
		struct rpma_cq **cq_ptr);

/*
 * rpma_cq_delete -- delete a CQ made by rpma_cq_new(); its completion
 * channel is destroyed with the last CQ that uses it. Completions left in
 * the CQ are lost. *cq_ptr becomes NULL; a NULL *cq_ptr is not an error.
 * While a connection request or a connection uses the CQ (see
 * rpma_conn_cfg_set_cq()), it fails with RPMA_E_INVAL and frees nothing.
 * ERRORS: RPMA_E_INVAL (cq_ptr NULL, a CQ in use, a CQ of a connection or a
 * shared receive queue, which goes with its owner), RPMA_E_PROVIDER (the
 * device failed to destroy the CQ or the channel; errno set; the object is
 * freed anyway). Thread-safe against the deletion of the requests and
 * connections that use the CQ (it then fails or succeeds, nothing worse);
 * not thread-safe against any other call on the same CQ, including
 * rpma_conn_req_new() and rpma_ep_next_conn_req() with a configuration
 * naming it, nor against rpma_cq_channel_wait() on its channel.
 */
int rpma_cq_delete(struct rpma_cq **cq_ptr);

/*
 * rpma_cq_channel_wait -- wait for the next completion event on the
 * completion channel of cq, which other CQs may share (CQs made with
 * rpma_cq_new()'s share_channel_with, or a connection's CQ and receive CQ
 * with rpma_conn_cfg_set_compl_channel()), acknowledge it, re-arm the CQ it
 * came from and set *cq_ptr to that CQ (cq or another one on the channel).
 * Then take that CQ's completions with rpma_cq_get_wc() until
 * RPMA_E_NO_COMPLETION: one that arrives after the re-arm raises a new
 * event, so none is missed. With O_NONBLOCK set on the descriptor
 * (rpma_cq_get_fd()) it does not wait: after poll or epoll report the
 * descriptor readable, call it until RPMA_E_NO_COMPLETION to take every
 * pending event. ERRORS: RPMA_E_INVAL (cq or cq_ptr NULL),
 * RPMA_E_NO_COMPLETION (no event on a non-blocking descriptor, or
 * ibv_get_cq_event() failed; logged, errno set), RPMA_E_UNKNOWN (an event
 * of a CQ librpma did not make; acknowledged), RPMA_E_PROVIDER (re-arming
 * failed; errno set). *cq_ptr is untouched on failure. No allocation, no
 * lock; thread-safe; not thread-safe against the deletion of any CQ on the
 * channel (rpma_cq_delete(), or rpma_conn_delete() of a connection whose
 * own CQ it is).
 */
int rpma_cq_channel_wait(struct rpma_cq *cq, struct rpma_cq **cq_ptr);

/* ----------------------------------------------------------------- logging */

/*
 * rpma_log_set_threshold -- set a logging threshold.
 * ERRORS: RPMA_E_INVAL (unknown threshold or level). Thread-safe.
 */
int rpma_log_set_threshold(enum rpma_log_threshold threshold, enum rpma_log_level level);

/* rpma_log_get_threshold -- read a logging threshold. ERRORS: RPMA_E_INVAL. Thread-safe. */
int rpma_log_get_threshold(enum rpma_log_threshold threshold, enum rpma_log_level *level);

/*
 * rpma_log_set_function -- route log messages to log_function (which must be
 * thread-safe), or back to the default one with RPMA_LOG_USE_DEFAULT_FUNCTION.
 * Always succeeds (returns 0). Thread-safe.
 */
int rpma_log_set_function(rpma_log_function *log_function);

#ifdef __cplusplus
}
#endif

#endif /* LIBRPMA_H */
