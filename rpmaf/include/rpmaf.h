/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf.h -- librpmaf, the rpma framework: the services built on librpma
 * (worker threads, connection pools, a region table, a server and a load
 * generator) and the configuration they all read.
 *
 * This header is the manual. Every function says what it does, what it
 * returns, which errors it reports and whether it is thread-safe. Functions
 * return 0 (or a documented non-negative value) on success and a negative
 * RPMAF_E_* code on failure; the library never prints anything.
 *
 * Link with: cc app.c $(pkg-config --cflags --libs rpmaf)
 */

#ifndef RPMAF_H
#define RPMAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Errors
 * ====================================================================== */

#define RPMAF_E_INVAL  (-1) /* an argument is invalid (NULL where an object is needed, ...) */
#define RPMAF_E_NOMEM  (-2) /* memory could not be allocated */
#define RPMAF_E_IO     (-3) /* a file could not be read or written */
#define RPMAF_E_PARSE  (-4) /* the text is not an acceptable YAML document */
#define RPMAF_E_CONFIG (-5) /* the document is YAML but not a valid configuration */
#define RPMAF_E_AGAIN  (-6) /* no room now (a queue, pool or credit limit): retry later */
#define RPMAF_E_RDMA   (-7) /* a librpma call failed; the log names it */
#define RPMAF_E_SYS    (-8) /* a system call failed; the log names it and errno */

/*
 * rpmaf_err_str -- a short English description of an RPMAF_E_* code.
 *
 * RETURN VALUE
 * A static string; "unknown error" for a code this library does not define.
 *
 * THREAD SAFETY
 * Thread-safe.
 */
const char *rpmaf_err_str(int code);

/* ======================================================================
 * Configuration (config/)
 *
 * One YAML file configures every program of the framework. Loading it maps
 * the document onto struct rpmaf_cfg below with every value resolved:
 * defaults applied, "auto" sizes computed, every rule between keys checked.
 * doc/CONFIG.md documents each key: its type, default, range and effect.
 *
 * A configuration is either loaded whole or not at all: on any error the
 * loader returns a negative code, leaves *cfg_ptr untouched and describes
 * the first error found, in document order, in a struct rpmaf_cfg_err.
 * ====================================================================== */

/* workers.polling: how a worker waits for completions */
enum rpmaf_polling {
	RPMAF_POLLING_BUSY,	/* poll without ever sleeping */
	RPMAF_POLLING_ADAPTIVE, /* poll for spin_us, then arm, poll again and sleep */
	RPMAF_POLLING_EVENT,	/* arm and sleep on the completion channel every time */
};

/* regions[].persistence and rpmem.persistence: how remote writes are made persistent */
enum rpmaf_persistence {
	RPMAF_PERSIST_AUTO,  /* APM where the target writes directly to PMem, GPSPM otherwise */
	RPMAF_PERSIST_APM,   /* appliance persistency: write, then read back */
	RPMAF_PERSIST_GPSPM, /* general purpose: the target persists on request */
};

/* regions[].backing: where a region's memory comes from */
enum rpmaf_backing {
	RPMAF_BACKING_ANONYMOUS, /* anonymous memory, not persistent */
	RPMAF_BACKING_FILE,	 /* a file (or device DAX) mapped with libpmem2 */
};

/* regions[].usage: bits of what remote peers may do with a region */
#define RPMAF_USAGE_READ  (1u << 0) /* read from it */
#define RPMAF_USAGE_WRITE (1u << 1) /* write into it */
#define RPMAF_USAGE_FLUSH (1u << 2) /* flush it (to persistence or visibility) */

/* log.level */
enum rpmaf_log_level {
	RPMAF_LOG_ERROR,
	RPMAF_LOG_WARNING,
	RPMAF_LOG_NOTICE,
	RPMAF_LOG_INFO,
	RPMAF_LOG_DEBUG,
};

/* workers: the threads that own connections and poll their completions */
struct rpmaf_cfg_workers {
	uint32_t count;		    /* number of worker threads */
	uint32_t ncpus;		    /* entries in cpus; 0: workers are not pinned */
	uint32_t *cpus;		    /* worker i runs on CPU cpus[i] */
	enum rpmaf_polling polling; /* how a worker waits */
	uint32_t spin_us;	    /* adaptive polling: µs of polling before sleeping; else 0 */
	uint32_t batch;		    /* completions taken per poll */
};

/* queues: queue sizes and messages, per connection or per worker as noted */
struct rpmaf_cfg_queues {
	uint32_t sq;	      /* send queue of each connection (work requests) */
	uint32_t rq;	      /* receive queue of each connection; 0 with a shared one */
	uint32_t cq;	      /* send completion queue of each worker */
	uint32_t rcq;	      /* receive completion queue of each worker; 0 with srq_rq */
	uint32_t srq_rq;      /* shared receive queue of each worker; 0: none */
	uint32_t srq_rcq;     /* completion queue of that shared receive queue; 0: none */
	uint32_t inline_size; /* bytes sent inline in a work request */
	uint64_t msg_size;    /* bytes of one message buffer */
	uint32_t msg_credits; /* message buffers (credits) per connection */
};

/* listen: the server side; enabled when the file has a listen section */
struct rpmaf_cfg_listen {
	bool enabled;
	char *address; /* IPv4/IPv6 address or host name; NULL when not enabled */
	uint32_t port;
	uint32_t backlog;	  /* pending connection requests */
	uint32_t max_connections; /* connections served at once */
};

/* targets[]: the client side, one entry per server */
struct rpmaf_cfg_target {
	char *name; /* unique among targets */
	char *address;
	uint32_t port;
	uint32_t connections; /* connections to this target, spread over the workers */
};

/* regions[]: memory a server exports */
struct rpmaf_cfg_region {
	char *name;    /* unique among regions */
	uint64_t size; /* bytes, a multiple of 4 KiB */
	enum rpmaf_backing backing;
	char *path;	/* RPMAF_BACKING_FILE: the file; else NULL */
	bool create;	/* RPMAF_BACKING_FILE: create/extend the file */
	unsigned usage; /* RPMAF_USAGE_* bits */
	enum rpmaf_persistence persistence;
	bool direct_write; /* remote writes reach PMem directly (no DDIO) */
};

/* timeouts, in milliseconds */
struct rpmaf_cfg_timeouts {
	uint32_t connect_ms;
	uint32_t operation_ms;
	uint32_t heartbeat_interval_ms; /* 0: no heartbeats */
	uint32_t heartbeat_misses;	/* unanswered heartbeats that declare a peer dead */
};

/* reconnect: exponential backoff after a connection is lost */
struct rpmaf_cfg_reconnect {
	uint32_t initial_ms;
	uint32_t max_ms;
	double multiplier; /* each retry waits multiplier times longer, up to max_ms */
	double jitter;	   /* each wait varies randomly by up to this fraction */
};

/* auth: the pre-shared key */
struct rpmaf_cfg_auth {
	char *key_file; /* NULL: no authentication */
};

/* log */
struct rpmaf_cfg_log {
	enum rpmaf_log_level level;
	char *file; /* NULL: standard error */
};

/* stats: counters and latency histograms as JSON lines */
struct rpmaf_cfg_stats {
	char *file;	      /* NULL: standard error */
	uint32_t interval_ms; /* 0: on request (signal) and at exit only */
};

/* rpmem: the librpmem target daemon; enabled when the file has an rpmem section */
struct rpmaf_cfg_rpmem {
	bool enabled;
	char *poolset_dir;		    /* root of the pool set files; NULL when not enabled */
	enum rpmaf_persistence persistence; /* method the daemon allows */
	bool direct_write;
	uint32_t max_lanes; /* lanes one pool may have */
};

/* the whole configuration; read-only once loaded */
struct rpmaf_cfg {
	struct rpmaf_cfg_workers workers;
	struct rpmaf_cfg_queues queues;
	struct rpmaf_cfg_listen listen;
	uint32_t ntargets;
	struct rpmaf_cfg_target *targets;
	uint32_t nregions;
	struct rpmaf_cfg_region *regions;
	struct rpmaf_cfg_timeouts timeouts;
	struct rpmaf_cfg_reconnect reconnect;
	struct rpmaf_cfg_auth auth;
	struct rpmaf_cfg_log log;
	struct rpmaf_cfg_stats stats;
	struct rpmaf_cfg_rpmem rpmem;
	/*
	 * Derived: connections one worker may own, the number the queue sizes
	 * were checked against: ceil((listen.max_connections if listening +
	 * the sum of targets[].connections) / workers.count), at least 1.
	 */
	uint32_t conns_per_worker;
};

/*
 * What the RDMA device supports, as a caller may read it from
 * ibv_query_device() and a test queue pair. The configuration layer never
 * calls verbs itself. A field left 0 is unknown: only the fixed bounds
 * documented in doc/CONFIG.md apply to it.
 */
struct rpmaf_cfg_limits {
	uint32_t max_cqe;	  /* largest completion queue */
	uint32_t max_qp_wr;	  /* largest send or receive queue */
	uint32_t max_srq_wr;	  /* largest shared receive queue */
	uint32_t max_inline_data; /* largest inline payload */
	uint32_t max_qp;	  /* queue pairs (connections) in total */
	uint64_t max_mr_size;	  /* largest memory region */
	uint32_t ncpus;		  /* CPUs of the host (workers.cpus must be below it) */
};

/* rpmaf_cfg_opts.flags: do not look at the file system (region files, key file, directories) */
#define RPMAF_CFG_NO_FILE_CHECKS (1u << 0)

/* how to load a configuration; a NULL options pointer means all zero */
struct rpmaf_cfg_opts {
	/*
	 * "key.path=value" strings, as given to --set, applied in order on top
	 * of the file before anything is validated. The value is YAML: a scalar
	 * ("4", "busy", "/pmem/r0"), a flow list ("[0, 1]") or a flow mapping
	 * ("{file: /pmem/r0, create: true}"). A path element may index a list:
	 * "regions[0].size=64M".
	 */
	const char *const *overrides;
	unsigned n_overrides;		       /* at most RPMAF_CFG_MAX_OVERRIDES */
	const struct rpmaf_cfg_limits *limits; /* NULL: fixed bounds only */
	unsigned flags;			       /* RPMAF_CFG_* flags */
};

/* bounds of what the loader accepts; each is an error with a position beyond it */
#define RPMAF_CFG_MAX_FILE	(1u << 20) /* bytes of a file or buffer */
#define RPMAF_CFG_MAX_DEPTH	16	   /* nesting of mappings and lists */
#define RPMAF_CFG_MAX_SCALAR	4096	   /* bytes of one scalar */
#define RPMAF_CFG_MAX_NODES	16384	   /* nodes in the document, aliases expanded */
#define RPMAF_CFG_MAX_ITEMS	1024	   /* entries of one mapping or list */
#define RPMAF_CFG_MAX_ANCHORS	256	   /* anchors in the document */
#define RPMAF_CFG_MAX_OVERRIDES 256	   /* --set strings */

#define RPMAF_CFG_ERR_MSG_MAX 1024

/* the first error a load found */
struct rpmaf_cfg_err {
	int code;	 /* the RPMAF_E_* code the loader returned */
	unsigned line;	 /* 1-based line in the file; 0 when the error has no position */
	unsigned column; /* 1-based column (in characters); 0 likewise */
	int override;	 /* index of the --set string at fault; -1 when none */
	/*
	 * The whole message, one line:
	 *   FILE:LINE:COLUMN: key.path: what is wrong (what was expected)
	 * or, when an override is at fault:
	 *   --set key.path=value: key.path: what is wrong (what was expected)
	 * The key path is left out where there is none (a YAML syntax error).
	 */
	char msg[RPMAF_CFG_ERR_MSG_MAX];
};

/*
 * rpmaf_cfg_load_file -- read the YAML configuration file path, apply the
 * overrides of opts, validate everything and return the resolved
 * configuration in *cfg_ptr (free it with rpmaf_cfg_delete()).
 *
 * Relative paths inside the file (region files, key file, log file, ...)
 * are kept as written: they are relative to the working directory of the
 * process that uses them.
 *
 * RETURN VALUE
 * 0 on success. On failure a negative code, *cfg_ptr untouched and, when err
 * is not NULL, err filled:
 * - RPMAF_E_INVAL   path or cfg_ptr is NULL, opts has more than
 *                   RPMAF_CFG_MAX_OVERRIDES overrides or a NULL one
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_IO      the file cannot be opened or read, is not a regular
 *                   file or is larger than RPMAF_CFG_MAX_FILE
 * - RPMAF_E_PARSE   the text is not acceptable YAML: invalid UTF-8, a
 *                   control character, a tab in indentation, a syntax
 *                   error, no document or more than one, a duplicate key,
 *                   an unknown alias, or beyond a RPMAF_CFG_MAX_* bound;
 *                   an override that is not key.path=value or whose path
 *                   does not fit the document
 * - RPMAF_E_CONFIG  an unknown key, a wrong type, a value out of range, a
 *                   missing key, a rule between keys or against the limits
 *                   broken, a file the configuration names missing
 *
 * THREAD SAFETY
 * Thread-safe: any number of loads may run at once.
 */
int rpmaf_cfg_load_file(const char *path, const struct rpmaf_cfg_opts *opts,
			struct rpmaf_cfg **cfg_ptr, struct rpmaf_cfg_err *err);

/*
 * rpmaf_cfg_load_buffer -- rpmaf_cfg_load_file() on len bytes at buf
 * (no NUL needed) instead of a file; name stands for the file in messages
 * ("<buffer>" when NULL).
 *
 * RETURN VALUE
 * As rpmaf_cfg_load_file(); RPMAF_E_INVAL also when buf is NULL and len is
 * not 0, RPMAF_E_IO when len is larger than RPMAF_CFG_MAX_FILE.
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_cfg_load_buffer(const char *name, const char *buf, size_t len,
			  const struct rpmaf_cfg_opts *opts, struct rpmaf_cfg **cfg_ptr,
			  struct rpmaf_cfg_err *err);

/*
 * rpmaf_cfg_dump -- write cfg to out as YAML: every key with its resolved
 * value, so that loading the output gives a configuration equal to cfg
 * (rpmaf_cfg_equal()). Keys that do not apply (spin_us without adaptive
 * polling, a missing listen section, ...) are left out.
 *
 * RETURN VALUE
 * 0 on success; RPMAF_E_INVAL when cfg or out is NULL; RPMAF_E_IO when
 * writing to out failed (what was written is incomplete).
 *
 * THREAD SAFETY
 * Thread-safe for distinct out streams; cfg is only read.
 */
int rpmaf_cfg_dump(const struct rpmaf_cfg *cfg, FILE *out);

/*
 * rpmaf_cfg_equal -- whether two configurations hold the same values
 * (strings compared by content, lists element by element).
 *
 * RETURN VALUE
 * true when equal; false when not or when either is NULL.
 *
 * THREAD SAFETY
 * Thread-safe; both are only read.
 */
bool rpmaf_cfg_equal(const struct rpmaf_cfg *a, const struct rpmaf_cfg *b);

/*
 * rpmaf_cfg_delete -- free a configuration from rpmaf_cfg_load_*() and set
 * *cfg_ptr to NULL. Nothing happens when *cfg_ptr is NULL.
 *
 * RETURN VALUE
 * 0 on success; RPMAF_E_INVAL when cfg_ptr is NULL.
 *
 * THREAD SAFETY
 * Not thread-safe against any other use of the same configuration: no
 * thread may read it during or after the call.
 */
int rpmaf_cfg_delete(struct rpmaf_cfg **cfg_ptr);

/* ======================================================================
 * Workers (workers/)
 *
 * A set of workers.count threads, each owning its connections and polling
 * one send CQ and one receive CQ shared by all of them, so that nothing on
 * the data path takes a lock or allocates. Each worker owns:
 * - a send CQ of queues.cq entries, shared by its connections, and a
 *   shared receive queue (SRQ) of queues.srq.rq receive buffers of
 *   queues.messages.size bytes whose receives complete on a receive CQ of
 *   queues.srq.rcq entries; both CQs on one completion channel;
 * - a slab of 2 * queues.srq.rq buffers of queues.messages.size bytes,
 *   registered once: the first half are the receive buffers, always posted
 *   to the SRQ or lent to a connection's callback, the other half are for
 *   the application's sends and RDMA operations (rpmaf_worker_buf_get());
 * - an epoll loop over the completion channel, its connections' event
 *   descriptors and an eventfd written only when work is submitted to it
 *   while it sleeps; its timers give the loop its timeout.
 *
 * The loop (workers.polling):
 * - busy: poll the CQs, run submitted work and due timers, again and
 *   again; the descriptors are looked at (without waiting) every 64 turns.
 * - adaptive: as busy, and once nothing has happened for workers.spin_us:
 *   arm the CQs, poll everything once more, and only then sleep in
 *   epoll_wait(). The second poll is what makes sleeping safe: a completion
 *   that came after the last poll but before the CQs were armed raises no
 *   event, and without it the worker would sleep with work waiting. Work
 *   submitted at that moment is caught the same way (the worker announces
 *   it sleeps before the second poll; see rpmaf_worker_submit()).
 * - event: adaptive with no spinning: arm, poll again and sleep as soon as
 *   a poll finds nothing.
 * Each poll takes up to workers.batch completions from each CQ.
 *
 * Admission (credits): a connection's send queue has queues.sq slots, the
 * worker's send CQ queues.cq. Every work request takes one slot of each,
 * signaled or not (a failed request completes even when unsignaled), until
 * it is retired; rpmaf_wconn_admit() refuses with RPMAF_E_AGAIN what does
 * not fit, so neither can overflow. The application posts an admitted
 * batch of n requests with only the last one signaled
 * (RPMA_F_COMPLETION_ALWAYS; the others RPMA_F_COMPLETION_ON_ERROR): its
 * successful completion retires the whole batch, since a QP completes in
 * order. After a failed completion a connection is broken: each of its
 * completions then retires one request, and what it still holds is
 * returned when it is closed and the CQ has been drained.
 * A request's completion may come after the peer's answer to it (the
 * peer's acknowledgement can trail its answer): a message's buffer and
 * credits are free only once its own completion has come, not when its
 * answer does, so a sender that refills its window on answers must be
 * ready for RPMAF_E_AGAIN from rpmaf_worker_buf_get() and
 * rpmaf_wconn_admit() and retry after its next send completion.
 *
 * Receives: each message received is handed to its connection's on_recv
 * callback with its buffer; when the callback returns RPMAF_RECV_DONE the
 * buffer is posted back to the SRQ with the others freed in the same turn
 * of the loop, once the CQs have been polled; RPMAF_RECV_KEEP lends it to
 * the connection until rpmaf_wconn_recv_release(). A message that arrives
 * before its connection is attached is held and handed over by
 * rpmaf_worker_attach() (or dropped after timeouts.connect_ms).
 *
 * Payloads are not sent inline: librpma's API has no inline flag.
 *
 * Threads: "worker thread" below means the thread of the worker the object
 * belongs to, i.e. code running in a callback, a submitted function or a
 * timer of that worker. Callbacks run on it, never concurrently with each
 * other for one worker, and may call every function marked so.
 * ====================================================================== */

struct rpma_peer;
struct rpma_conn;
struct rpma_conn_cfg;
struct rpma_mr_local;
struct ibv_wc;

struct rpmaf_workers; /* the set of worker threads */
struct rpmaf_worker;  /* one of them */
struct rpmaf_wconn;   /* a connection attached to a worker */

/* a function run on a worker thread (rpmaf_worker_submit()) */
typedef void (*rpmaf_work_fn)(struct rpmaf_worker *w, void *arg);

/*
 * the storage of one submission, owned by the caller: it must stay valid
 * and unused from rpmaf_worker_submit() until the function starts, which
 * may then reuse it (submit it again) or free it
 */
struct rpmaf_work {
	void *rpmaf_private[4];
};

struct rpmaf_timer;

/* a function run on a worker thread when a timer expires */
typedef void (*rpmaf_timer_fn)(struct rpmaf_worker *w, struct rpmaf_timer *t, void *arg);

/*
 * a timer, owned by the caller: zero it once before its first use; it must
 * stay valid while armed (from rpmaf_worker_timer_add() until it fires or
 * is cancelled); it may be armed again from its own function
 */
struct rpmaf_timer {
	uint64_t rpmaf_private[4];
};

/* what on_recv returns */
#define RPMAF_RECV_DONE 0 /* the worker posts the buffer back to the SRQ */
#define RPMAF_RECV_KEEP 1 /* the connection keeps it: rpmaf_wconn_recv_release() later */

/*
 * The callbacks of a connection, all run on its worker's thread with the
 * ctx given to rpmaf_worker_attach(). Each may be NULL (then completions
 * are only accounted for, buffers posted back, events ignored).
 */
struct rpmaf_wconn_ops {
	/*
	 * on_wc -- a completion of the connection's send queue: a signaled
	 * request or a failed one. It has been accounted for (its batch
	 * retired) before the call.
	 */
	void (*on_wc)(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *ctx);
	/*
	 * on_recv -- a message received into buf (wc->byte_len bytes, or a
	 * failed receive, wc->status). Returns RPMAF_RECV_DONE or
	 * RPMAF_RECV_KEEP. May be called from inside rpmaf_worker_attach()
	 * for a message that arrived before it.
	 */
	int (*on_recv)(struct rpmaf_wconn *wconn, const struct ibv_wc *wc, void *buf, void *ctx);
	/*
	 * on_event -- a connection event (RPMA_CONN_CLOSED, RPMA_CONN_LOST,
	 * ...; an int holding an enum rpma_conn_event). The callback may
	 * close the connection (rpmaf_wconn_close()).
	 */
	void (*on_event)(struct rpmaf_wconn *wconn, int event, void *ctx);
};

/* counters of one worker (rpmaf_worker_get_stats()) */
struct rpmaf_worker_stats {
	uint64_t polls;	      /* polls of the CQs (one per turn of the loop) */
	uint64_t empty_polls; /* of which found no completion */
	uint64_t completions; /* send completions taken */
	uint64_t receives;    /* receive completions taken */
	uint64_t submissions; /* submitted functions run */
	uint64_t timers;      /* timers fired */
	uint64_t sleeps;      /* times the worker slept in epoll_wait() */
	uint64_t wakeups;     /* eventfd writes by submitters */
	uint64_t refused;     /* admissions refused (RPMAF_E_AGAIN) */
	uint64_t dropped;     /* early messages dropped, connection never attached */
	uint32_t cq_used;     /* send CQ slots held now */
	uint32_t cq_used_max; /* the most ever held (never above queues.cq) */
	uint32_t conns;	      /* connections attached and not yet freed */
};

/*
 * rpmaf_workers_new -- start cfg->workers.count worker threads on peer,
 * each pinned to cfg->workers.cpus[i] when the list is given, with its CQs,
 * SRQ (its receive buffers posted), slab, timers (room for
 * 2 * cfg->conns_per_worker + 64) and room for cfg->conns_per_worker
 * connections. cfg is only read during the call; peer must outlive the set.
 *
 * RETURN VALUE
 * 0 and *ws_ptr set, or a negative code with *ws_ptr untouched:
 * - RPMAF_E_INVAL   a NULL argument
 * - RPMAF_E_CONFIG  cfg has no shared receive queue (queues.srq.rq 0)
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_RDMA    a CQ, the SRQ or the registration could not be made
 * - RPMAF_E_SYS     epoll, eventfd, pinning or a thread could not be made
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_workers_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer,
		      struct rpmaf_workers **ws_ptr);

/*
 * rpmaf_workers_delete -- stop every worker (each runs what was submitted
 * to it before it stops), join its thread and free everything; *ws_ptr
 * becomes NULL. Nothing happens when *ws_ptr is NULL.
 *
 * Connections closed with rpmaf_wconn_close() whose slots are not free yet
 * (their completions still being drained) are freed with the set.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL when ws_ptr is NULL, or when a connection is still
 * attached to a worker and not closed, or a slot reserved and not attached
 * (nothing is stopped then); the first RPMAF_E_RDMA of the teardown
 * (everything is freed anyway).
 *
 * THREAD SAFETY
 * Not from a worker thread; not thread-safe against any other use of the
 * set.
 */
int rpmaf_workers_delete(struct rpmaf_workers **ws_ptr);

/* rpmaf_workers_count -- the number of workers (0 when ws is NULL). Thread-safe. */
unsigned rpmaf_workers_count(const struct rpmaf_workers *ws);

/*
 * rpmaf_workers_get -- set *w_ptr to worker i.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, i not below rpmaf_workers_count()).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_workers_get(const struct rpmaf_workers *ws, unsigned i, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_workers_least_loaded -- reserve a connection slot on the worker with
 * the fewest connections (attached or reserved) and set *w_ptr to it. The
 * reservation is consumed by rpmaf_worker_attach() or given back with
 * rpmaf_worker_unreserve().
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_AGAIN (every worker has
 * cfg->conns_per_worker connections).
 *
 * THREAD SAFETY
 * Thread-safe, lock-free.
 */
int rpmaf_workers_least_loaded(struct rpmaf_workers *ws, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_worker_reserve -- reserve a connection slot on w itself.
 * RETURN VALUE: 0; RPMAF_E_INVAL (w NULL); RPMAF_E_AGAIN (w is full).
 * THREAD SAFETY: thread-safe, lock-free.
 */
int rpmaf_worker_reserve(struct rpmaf_worker *w);

/*
 * rpmaf_worker_unreserve -- give back a reservation that will not be
 * attached (the connection failed).
 * RETURN VALUE: 0; RPMAF_E_INVAL (w NULL or no reservation outstanding).
 * THREAD SAFETY: thread-safe, lock-free.
 */
int rpmaf_worker_unreserve(struct rpmaf_worker *w);

/* rpmaf_worker_index -- the index of w in its set. Thread-safe. */
unsigned rpmaf_worker_index(const struct rpmaf_worker *w);

/* rpmaf_worker_is_current -- whether the calling thread is w's thread. Thread-safe. */
bool rpmaf_worker_is_current(const struct rpmaf_worker *w);

/*
 * rpmaf_worker_submit -- run fn(w, arg) on w's thread, after the functions
 * submitted before it from the same thread (FIFO per submitting thread).
 * work is the caller's storage of the submission (see struct rpmaf_work).
 * The eventfd is written only when the worker sleeps.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (w, work or fn NULL).
 *
 * THREAD SAFETY
 * Any thread, the worker's own included. Lock-free (a wait-free enqueue),
 * no allocation. Not against rpmaf_workers_delete().
 */
int rpmaf_worker_submit(struct rpmaf_worker *w, struct rpmaf_work *work, rpmaf_work_fn fn,
			void *arg);

/*
 * rpmaf_worker_conn_cfg -- point a connection configuration at w: its send
 * CQ, receive CQ and SRQ, and an SQ of queues.sq. A request made with it
 * (rpma_conn_req_new(), rpma_ep_next_conn_req()) must be attached to w.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_RDMA (a setter failed).
 *
 * THREAD SAFETY
 * Any thread; not thread-safe against other uses of the same cfg.
 */
int rpmaf_worker_conn_cfg(struct rpmaf_worker *w, struct rpma_conn_cfg *cfg);

/*
 * rpmaf_worker_attach -- make w own conn (made with rpmaf_worker_conn_cfg()
 * of w; established or not): its completions are routed by qp_num to
 * ops->on_wc and ops->on_recv, its connection events to ops->on_event;
 * consumes one reservation (rpmaf_workers_least_loaded(),
 * rpmaf_worker_reserve()). conn belongs to the worker from then on:
 * rpmaf_wconn_close() deletes it. ops must outlive the connection.
 *
 * RETURN VALUE
 * 0 and *wconn_ptr set; or a negative code, conn untouched:
 * - RPMAF_E_INVAL  a NULL argument, not on w's thread, no reservation
 * - RPMAF_E_RDMA   librpma could not give the qp_num or event descriptor
 * - RPMAF_E_SYS    the event descriptor could not be watched
 *
 * THREAD SAFETY
 * Worker thread only (submit a function that calls it).
 */
int rpmaf_worker_attach(struct rpmaf_worker *w, struct rpma_conn *conn,
			const struct rpmaf_wconn_ops *ops, void *ctx,
			struct rpmaf_wconn **wconn_ptr);

/*
 * rpmaf_wconn_close -- stop watching the connection, delete its rpma_conn
 * (rpma_conn_delete(): its QP is destroyed) and set *wconn_ptr to NULL. No
 * callback of it runs afterwards; its remaining completions are taken and
 * dropped, its credits returned and its slot freed once the send CQ has
 * been drained. Buffers it kept (RPMAF_RECV_KEEP) are posted back.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, not on the worker's thread);
 * RPMAF_E_RDMA (rpma_conn_delete() failed; the connection is closed anyway).
 *
 * THREAD SAFETY
 * Worker thread only; callbacks of the connection included.
 */
int rpmaf_wconn_close(struct rpmaf_wconn **wconn_ptr);

/*
 * rpmaf_wconn_admit -- admit a batch of n work requests on the connection:
 * take n slots of its SQ and n of its worker's send CQ. Post exactly n
 * requests then, the last one signaled; a request posted without
 * admission may overflow the queues.
 *
 * RETURN VALUE
 * 0; RPMAF_E_AGAIN (not enough room now: retry after completions; nothing
 * taken); RPMAF_E_INVAL (wconn NULL, n 0 or above queues.sq, a broken or
 * closed connection).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation, no lock.
 */
int rpmaf_wconn_admit(struct rpmaf_wconn *wconn, unsigned n);

/*
 * rpmaf_wconn_unadmit -- give back n requests of the last admitted batch
 * that could not be posted (a post failed). When part of the batch was
 * posted, the connection becomes broken (its signaled request was not).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (wconn NULL, n 0 or more than the last batch).
 *
 * THREAD SAFETY
 * Worker thread only.
 */
int rpmaf_wconn_unadmit(struct rpmaf_wconn *wconn, unsigned n);

/*
 * rpmaf_wconn_outstanding -- work requests admitted and not yet retired
 * (0 when wconn is NULL). Worker thread only.
 */
unsigned rpmaf_wconn_outstanding(const struct rpmaf_wconn *wconn);

/* rpmaf_wconn_get_conn -- the connection (NULL when wconn is NULL). Worker thread only. */
struct rpma_conn *rpmaf_wconn_get_conn(const struct rpmaf_wconn *wconn);

/*
 * rpmaf_wconn_get_worker -- set *w_ptr to the worker that owns the connection.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument). THREAD SAFETY: thread-safe.
 */
int rpmaf_wconn_get_worker(const struct rpmaf_wconn *wconn, struct rpmaf_worker **w_ptr);

/*
 * rpmaf_wconn_recv_release -- post back a receive buffer kept by on_recv
 * (RPMAF_RECV_KEEP).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, buf not a kept receive buffer).
 *
 * THREAD SAFETY
 * Worker thread only.
 */
int rpmaf_wconn_recv_release(struct rpmaf_wconn *wconn, void *buf);

/*
 * rpmaf_worker_buf_get -- a free buffer of queues.messages.size bytes from
 * w's slab, registered in the region rpmaf_worker_buf_mr() gives, for
 * sends and as the local side of reads and writes.
 *
 * RETURN VALUE
 * 0 and *buf_ptr set; RPMAF_E_INVAL (a NULL argument); RPMAF_E_AGAIN (all
 * are in use).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation, no lock.
 */
int rpmaf_worker_buf_get(struct rpmaf_worker *w, void **buf_ptr);

/*
 * rpmaf_worker_buf_put -- give back a buffer from rpmaf_worker_buf_get().
 * RETURN VALUE: 0; RPMAF_E_INVAL (not a buffer handed out by w).
 * THREAD SAFETY: worker thread only.
 */
int rpmaf_worker_buf_put(struct rpmaf_worker *w, void *buf);

/*
 * rpmaf_worker_buf_mr -- the registered region of w's slab and the offset
 * of buf in it (any buffer of the slab, received ones included), for
 * rpma_send(), rpma_write(), rpma_read(), ...
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, buf not in the slab).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_worker_buf_mr(const struct rpmaf_worker *w, const void *buf,
			struct rpma_mr_local **mr_ptr, size_t *offset_ptr);

/*
 * rpmaf_worker_timer_add -- arm t to run fn(w, t, arg) on w's thread in
 * delay_us microseconds (CLOCK_MONOTONIC; timers due at once run in the
 * loop's next turn).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, t already armed); RPMAF_E_AGAIN (w
 * has as many timers armed as it has room for).
 *
 * THREAD SAFETY
 * Worker thread only. No allocation.
 */
int rpmaf_worker_timer_add(struct rpmaf_worker *w, struct rpmaf_timer *t, uint64_t delay_us,
			   rpmaf_timer_fn fn, void *arg);

/*
 * rpmaf_worker_timer_cancel -- disarm t.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument, t not armed on w).
 * THREAD SAFETY: worker thread only.
 */
int rpmaf_worker_timer_cancel(struct rpmaf_worker *w, struct rpmaf_timer *t);

/*
 * rpmaf_worker_get_stats -- a copy of w's counters. Each counter is read
 * atomically; they are not a consistent snapshot of one instant.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_worker_get_stats(const struct rpmaf_worker *w, struct rpmaf_worker_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_H */
