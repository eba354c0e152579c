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
 * RPMAF_E_* code on failure; the library never prints anything of its own
 * accord: what it has to say (the log, up to log.level) goes to the
 * function the application gives rpmaf_log_set_callback(), and only while
 * it gives none to log.file or standard error.
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

#define RPMAF_E_INVAL	 (-1)  /* an argument is invalid (NULL where an object is needed, ...) */
#define RPMAF_E_NOMEM	 (-2)  /* memory could not be allocated */
#define RPMAF_E_IO	 (-3)  /* a file could not be read or written */
#define RPMAF_E_PARSE	 (-4)  /* the text is not an acceptable YAML document */
#define RPMAF_E_CONFIG	 (-5)  /* the document is YAML but not a valid configuration */
#define RPMAF_E_AGAIN	 (-6)  /* no room now (a queue, pool or credit limit): retry later */
#define RPMAF_E_RDMA	 (-7)  /* a librpma call failed; the log names it */
#define RPMAF_E_SYS	 (-8)  /* a system call failed; the log names it and errno */
#define RPMAF_E_TIMEOUT	 (-9)  /* an operation's time (timeouts.operation_ms) ran out */
#define RPMAF_E_CONNLOST (-10) /* the connection carrying an operation was lost or closed */
#define RPMAF_E_NOENT	 (-11) /* no such region, target or handler (or it was removed) */
#define RPMAF_E_REMOTE	 (-12) /* the peer answered with a failure status; the log has it */
#define RPMAF_E_AUTH	 (-13) /* authentication failed (no key, a wrong key) */
#define RPMAF_E_PROTO	 (-14) /* the peer broke the control protocol; the log says how */
#define RPMAF_E_SHUTDOWN (-15) /* the pool or server is shutting down */
#define RPMAF_E_BUSY	 (-16) /* a file is in use: locked by another server or process */

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
	RPMAF_POLLING_ADAPTIVE, /* poll for spin_us, then sleep on the completion channel */
	RPMAF_POLLING_EVENT,	/* sleep on the completion channel every time */
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

/*
 * rpmaf_log_fn -- receives one line of the library's log: its level and
 * its text (no timestamp, no newline; "MODULE: what happened", e.g.
 * "server: client #1 127.0.0.1:40000 (worker 0) accepted"), valid during
 * the call only. Only lines within the log.level of the configuration the
 * logging object was made with come.
 */
typedef void (*rpmaf_log_fn)(enum rpmaf_log_level level, const char *msg, void *arg);

/*
 * rpmaf_log_set_callback -- send every line the library logs from now on
 * to fn(level, msg, arg); fn NULL brings back the default: each line
 * appended to log.file (or standard error) as
 *   2026-11-27T10:59:42.123+00:00 rpmaf: notice: server: ...
 * (ISO 8601 local time with milliseconds and the offset from UTC; the
 * framework's tools write their own lines in the same form).
 *
 * fn runs on the thread that logs (a worker, the acceptor, the caller's),
 * never two at once: calls are serialized by a lock the library holds
 * around it, so fn must not call librpmaf (nor wait for a thread that
 * does) and should return soon. Once rpmaf_log_set_callback() returns, the
 * previous function is not running and will not be called again.
 *
 * RETURN VALUE
 * 0 (it cannot fail).
 *
 * THREAD SAFETY
 * Thread-safe; not from inside fn.
 */
int rpmaf_log_set_callback(rpmaf_log_fn fn, void *arg);

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

/*
 * stats: counters and latency histograms as JSON lines (and, since 1.2,
 * as a Prometheus text file: rpmaf_cfg.stats_prometheus_file)
 */
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
	/*
	 * Since 1.2, here at the end so that the members above keep their
	 * places: stats.prometheus_file, where the statistics are written
	 * in the Prometheus text format every stats.interval_ms (replaced
	 * whole: written beside it, then renamed over it); NULL: nowhere.
	 */
	char *stats_prometheus_file;
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
 * - adaptive: as busy, and once nothing has happened for workers.spin_us,
 *   sleep in epoll_wait() until a completion, a submission, a connection's
 *   event or a timer. The CQs stay armed: taking a CQ's event from the
 *   channel re-arms it, and a re-armed CQ is polled again before the worker
 *   may sleep (a completion that came before the re-arm raises no event of
 *   its own, and without that poll the worker would sleep with work
 *   waiting); a CQ whose last poll took a full batch is polled again too.
 *   Any other CQ is armed, or its event waits in the channel, so whatever
 *   completes there wakes the sleep. Work submitted at that moment is
 *   caught the same way: the worker announces that it sleeps, then looks
 *   at its queue once more (see rpmaf_worker_submit()).
 * - event: adaptive with no spinning: sleep as soon as a turn has taken
 *   its completions, so that an operation in flight costs one poll, the one
 *   that finds its completion.
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
	 * RPMAF_RECV_KEEP. The buffer is lent to the connection during the
	 * call, so the callback may also post it back itself with
	 * rpmaf_wconn_recv_release() (before a reply that returns its credit,
	 * say); then what it returns does not matter. May be called from
	 * inside rpmaf_worker_attach() for a message that arrived before it.
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
	uint64_t polls;	      /* turns of the loop: send CQ polled each, receive CQ when due */
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
 * (RPMAF_RECV_KEEP), at once (with any other buffer waiting to be posted
 * back): a message sent after the call may return its credit to the peer.
 * A post the SRQ refuses is retried in the loop's next turn.
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

/* ======================================================================
 * Server (server/)
 *
 * The server side of the framework: it exports the configuration's regions
 * and serves the control protocol of doc/PROTOCOL.md to every client.
 * - rpmaf_server_new() registers every region of cfg->regions: a file
 *   region mapped with libpmem2 (the file created or extended to the
 *   region's size when regions[].create is set), an anonymous one
 *   allocated page-aligned and zeroed; each registered with librpma for the
 *   usage the configuration gives it. A region file is locked
 *   exclusively (flock(2), the lock rpmemd takes on its pool parts) before
 *   it is created or extended, until the region is removed or the server
 *   deleted: no second server, in this process or another, exports it
 *   meanwhile (RPMAF_E_BUSY). A file-backed region with
 *   regions[].direct_write whose mapping libpmem2 reports at byte or
 *   cache-line granularity (persistent memory with DAX) is flushed to
 *   persistence by the client itself (APM: the descriptor says so),
 *   unless its persistence is gpspm; any other region is persisted on a
 *   client's PERSIST_REQ message (GPSPM), which the server serves by
 *   persisting the range with libpmem2 (an msync for an ordinary file)
 *   before it answers. persistence apm on a file of page granularity is
 *   refused (a client's flush would leave its writes in the page cache:
 *   doc/DURABILITY.md). Each region is logged at notice with the way its
 *   bytes are made durable. It reads the pre-shared key of auth.key_file.
 * - rpmaf_server_start() listens on listen.address:listen.port and starts
 *   the acceptor thread, which hands each connection request to the
 *   least-loaded worker; a request beyond listen.max_connections, or when
 *   every worker is full, is rejected and logged.
 * - On each connection only HELLO is accepted first, then, when the server
 *   has a key, only AUTH: no region descriptor is revealed and no request
 *   served before the client has proved it holds the key. A client that
 *   fails the proof, sends a message that does not decode, or breaks the
 *   protocol's order or its credits is sent an ERROR, disconnected and
 *   logged (its address and what it did); the other clients go on.
 * - Flow control: every message the server sends spends a credit of the
 *   client's window (proto/credit.h): no client is ever sent a message it
 *   has no receive buffer for, and credits return on every message.
 * - Heartbeats: HELLO_REPLY announces timeouts.heartbeat_interval_ms and
 *   timeouts.heartbeat_misses; the server answers HEARTBEAT and closes a
 *   connection silent for interval x misses.
 * - Regions added or removed at run time are announced (ANNOUNCE) to every
 *   authenticated client. A removed region is deregistered once the
 *   announcement has been posted to every client: an operation against it
 *   fails on the client (RPMAF_E_NOENT once the announcement has arrived,
 *   a remote access error, RPMAF_E_REMOTE, before).
 *
 * Logging goes to the configuration's log (log.file, log.level): one line
 * per connection accepted, authenticated, refused or closed, and per error.
 * ====================================================================== */

struct rpma_peer;
struct rpmaf_workers;
struct rpmaf_server;

/*
 * An application request handler (APP_REQ): req_len bytes of request at
 * req; it writes up to reply_max bytes of reply at reply and sets
 * *reply_len. Runs on the worker thread of the connection, so it must not
 * block; several handlers run at once on different workers.
 * Returns 0 (the client gets status OK and the reply) or a negative code
 * (the client gets APP_FAILED and no payload; the code is logged).
 */
typedef int (*rpmaf_handler_fn)(uint32_t handler_id, const void *req, size_t req_len, void *reply,
				size_t reply_max, size_t *reply_len, void *arg);

/*
 * An application call answered later (rpmaf_server_call_handler_add()): a
 * handler whose work may block (files, other servers) takes the call and
 * answers it with rpmaf_call_reply() from any thread.
 */
struct rpmaf_call;

/*
 * A handler that answers later: runs on the worker thread of the
 * connection with req_len bytes of request at req (valid only during the
 * call: copy what is needed), must not block, and must see that
 * rpmaf_call_reply() is called exactly once for call, from any thread,
 * before rpmaf_server_delete(). Making a call allocates: such handlers are
 * for the control path (open, create), not the data path.
 */
typedef void (*rpmaf_call_fn)(struct rpmaf_call *call, uint32_t handler_id, const void *req,
			      size_t req_len, void *arg);

/*
 * What runs when an authenticated client's connection closes (it went
 * away, was lost, or the server stops), with the connection's id
 * (rpmaf_call_conn_id()); on its worker thread, so it must not block, and
 * on several workers at once for connections of different workers.
 */
typedef void (*rpmaf_conn_closed_fn)(uint64_t conn_id, void *arg);

/* what makes a range of exported memory durable (libpmem2's pmem2_persist_fn has this type) */
typedef void (*rpmaf_persist_fn)(const void *ptr, size_t len);

/* memory the application maps itself and exports (rpmaf_server_region_add_mem()) */
struct rpmaf_mem_region {
	const char *name; /* a region name (doc/PROTOCOL.md), unique among the regions */
	void *ptr;	  /* its first byte; the memory stays the caller's */
	size_t size;	  /* bytes */
	unsigned usage;	  /* RPMAF_USAGE_* bits, at least one */
	bool apm;	  /* clients persist by themselves (direct write to PMem); else GPSPM */
	rpmaf_persist_fn persist; /* GPSPM's persist of a range; NULL: a memory barrier */
};

/* a snapshot of a server's counters (rpmaf_server_get_stats()) */
struct rpmaf_server_stats {
	uint64_t accepted;	/* connections accepted */
	uint64_t rejected;	/* connection requests rejected (full, shutting down) */
	uint64_t auth_failed;	/* clients disconnected for a failed proof */
	uint64_t proto_errors;	/* clients disconnected for breaking the protocol */
	uint64_t lost;		/* connections lost without a disconnect (heartbeats missed, */
				/* the channel failed, no handshake): a client that */
				/* disconnects, cleanly or by exiting, is not counted */
	uint64_t requests;	/* control requests served (lookup, list, persist, app, ...) */
	uint64_t persists;	/* PERSIST_REQ served */
	uint64_t persist_bytes; /* bytes they persisted */
	uint64_t app_requests;	/* APP_REQ served */
	uint64_t announcements; /* ANNOUNCE messages sent */
	uint32_t connections;	/* connections open now */
	uint32_t regions;	/* regions exported now */
};

/*
 * rpmaf_server_new -- make a server of cfg (which needs a listen section)
 * on peer, whose connections the workers ws own: map and register the
 * regions, read the key. Nothing listens yet (rpmaf_server_start()).
 * cfg, peer and ws must outlive the server.
 *
 * RETURN VALUE
 * 0 and *srv_ptr set; or a negative code, *srv_ptr untouched and nothing
 * left behind (no file created, no region registered):
 * - RPMAF_E_INVAL   a NULL argument; cfg has no listen section; a
 *                   region's persistence is apm and libpmem2 reports page
 *                   granularity for its file (the log names the region,
 *                   the file and the granularity)
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_IO      a region file cannot be opened, created, locked,
 *                   extended or mapped; the key file cannot be read or
 *                   holds no key
 * - RPMAF_E_BUSY    a region file is locked by another server (of this
 *                   process or another) or by rpmemd: the log names the
 *                   file and, where it can be known, the holder's pid
 * - RPMAF_E_RDMA    a region cannot be registered
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_server_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer, struct rpmaf_workers *ws,
		     struct rpmaf_server **srv_ptr);

/*
 * rpmaf_server_handler_add -- serve APP_REQ messages of handler_id with
 * fn(handler_id, ..., arg). A request for an id with no handler gets
 * status NO_HANDLER.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv or fn NULL, id already has a handler, the server
 * already started); RPMAF_E_NOMEM.
 *
 * THREAD SAFETY
 * Before rpmaf_server_start() only; not thread-safe against other calls on srv.
 */
int rpmaf_server_handler_add(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_handler_fn fn,
			     void *arg);

/*
 * rpmaf_server_call_handler_add -- serve APP_REQ messages of handler_id
 * with fn, which answers later (rpmaf_call_fn). Until the answer the
 * request counts as in flight (rpmaf_server_stop() waits for it); an
 * answer to a connection closed meanwhile is dropped.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_server_handler_add().
 */
int rpmaf_server_call_handler_add(struct rpmaf_server *srv, uint32_t handler_id, rpmaf_call_fn fn,
				  void *arg);

/* flags of a handler (rpmaf_server_handler_add_flags()) */
#define RPMAF_HANDLER_IDEMPOTENT                                                                   \
	(1u << 0) /* running a request twice does what running it once does */

/*
 * rpmaf_server_handler_add_flags -- rpmaf_server_handler_add() with flags:
 * RPMAF_HANDLER_IDEMPOTENT says that a request run twice has the effect
 * of running it once (a read, a write of a fixed value). Clients learn the
 * flag when they connect (protocol version 2; a client of version 1 takes
 * every handler as not idempotent): a call of such a handler whose
 * connection is lost is sent again on another connection instead of
 * failing with RPMAF_E_CONNLOST, so the handler may run more than once for
 * one call.
 *
 * RETURN VALUE
 * As rpmaf_server_handler_add(); RPMAF_E_INVAL also for an unknown flag.
 *
 * THREAD SAFETY
 * As rpmaf_server_handler_add().
 */
int rpmaf_server_handler_add_flags(struct rpmaf_server *srv, uint32_t handler_id,
				   rpmaf_handler_fn fn, void *arg, unsigned flags);

/*
 * rpmaf_server_call_handler_add_flags -- rpmaf_server_call_handler_add()
 * with flags, as rpmaf_server_handler_add_flags().
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_server_handler_add_flags().
 */
int rpmaf_server_call_handler_add_flags(struct rpmaf_server *srv, uint32_t handler_id,
					rpmaf_call_fn fn, void *arg, unsigned flags);

/*
 * rpmaf_call_reply -- answer call: status 0 sends the len bytes of reply
 * (copied before the return), a negative status sends APP_FAILED
 * (RPMAF_E_REMOTE for the client) and no payload. A reply longer than
 * rpmaf_call_reply_max() is sent as APP_FAILED too (the log says why; the
 * call returns 0). call is freed by the server afterwards: do not use it
 * again. The client waits for the answer for its timeouts.operation_ms:
 * after that it fails the connection, so slow work must fit in that time.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (call NULL, a positive status, reply NULL with len;
 * from inside the handler, before it returns, also a second answer).
 *
 * THREAD SAFETY
 * Any thread, the handler's own included; exactly once per call (a second
 * answer from another thread may meet a call already freed).
 */
int rpmaf_call_reply(struct rpmaf_call *call, int status, const void *reply, size_t len);

/*
 * rpmaf_call_conn_id -- the id of the connection call came on, as
 * rpmaf_conn_closed_fn receives it (ids are not reused by a server); 0
 * for NULL. Thread-safe until the call is answered.
 */
uint64_t rpmaf_call_conn_id(const struct rpmaf_call *call);

/*
 * rpmaf_call_reply_max -- the longest reply call can carry (the smaller
 * message buffer of both sides, less the headers); 0 for NULL.
 * Thread-safe until the call is answered.
 */
size_t rpmaf_call_reply_max(const struct rpmaf_call *call);

/*
 * rpmaf_server_on_conn_closed -- run fn(conn_id, arg) whenever an
 * authenticated connection closes (one function per server).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv or fn NULL, one is set already, the server started).
 *
 * THREAD SAFETY
 * Before rpmaf_server_start() only; not thread-safe against other calls on srv.
 */
int rpmaf_server_on_conn_closed(struct rpmaf_server *srv, rpmaf_conn_closed_fn fn, void *arg);

/*
 * rpmaf_server_start -- listen and start accepting.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv NULL or started); RPMAF_E_RDMA (the address
 * cannot be listened on: not local, the port taken; the log says which);
 * RPMAF_E_SYS (the acceptor thread cannot be made). On failure nothing
 * listens, and rpmaf_server_delete() then removes the region files the
 * server created and cuts back those it extended (a start that failed
 * leaves nothing behind; a file that was there keeps its contents).
 *
 * THREAD SAFETY
 * Not thread-safe against other calls on srv.
 */
int rpmaf_server_start(struct rpmaf_server *srv);

/*
 * rpmaf_server_port -- the TCP port the server listens on (useful with
 * listen.port 0); 0 before rpmaf_server_start() or when srv is NULL.
 * Thread-safe.
 */
unsigned rpmaf_server_port(const struct rpmaf_server *srv);

/*
 * rpmaf_server_region_add -- export one more region (as rpmaf_server_new()
 * does for cfg->regions) and announce it to every authenticated client.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, a name already exported, a region
 * cfg_load would refuse, persistence apm on a file of page granularity
 * as for rpmaf_server_new(), called from a worker thread); the codes of
 * rpmaf_server_new() for mapping and registering (RPMAF_E_BUSY: its file
 * is exported already, by this server or another). On failure nothing
 * changes.
 *
 * THREAD SAFETY
 * Thread-safe (the control path; not from a worker thread).
 */
int rpmaf_server_region_add(struct rpmaf_server *srv, const struct rpmaf_cfg_region *region);

/*
 * rpmaf_server_region_add_mem -- export memory the caller mapped (a pool
 * of files it manages, say), registered as it is, and announce it. The
 * memory stays the caller's: it must stay mapped until
 * rpmaf_server_region_remove() of the region (or rpmaf_server_delete())
 * returns, which deregister it without persisting or unmapping it. The
 * server cannot ask libpmem2 about memory it did not map: with apm the
 * caller vouches that a client's flush makes writes durable there
 * (doc/DURABILITY.md).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument or pointer, size 0, no usage bit, a
 * name that is no region name or is taken, called from a worker thread);
 * RPMAF_E_NOMEM; RPMAF_E_RDMA (it cannot be registered). On failure
 * nothing changes.
 *
 * THREAD SAFETY
 * Thread-safe (the control path; not from a worker thread).
 */
int rpmaf_server_region_add_mem(struct rpmaf_server *srv, const struct rpmaf_mem_region *region);

/*
 * rpmaf_server_region_remove -- stop exporting region name: announce the
 * removal to every authenticated client, wait until each has processed the
 * announcement (the credits it returns cover it: what it posted to the
 * region before has been executed, and it posts nothing after; at most
 * timeouts.heartbeat_interval_ms x heartbeat_misses, or operation_ms without
 * heartbeats), then deregister and
 * unmap it and release its file's lock, so that the file can be exported
 * again (a file keeps its contents; it is persisted first; memory of
 * rpmaf_server_region_add_mem() is only deregistered). So
 * operations in flight during a removal complete (or fail with
 * RPMAF_E_NOENT on the client), and no connection breaks on a key that
 * went away.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, called from a worker thread);
 * RPMAF_E_NOENT (no such region).
 *
 * THREAD SAFETY
 * Thread-safe (the control path; not from a worker thread).
 */
int rpmaf_server_region_remove(struct rpmaf_server *srv, const char *name);

/*
 * rpmaf_server_region_change -- change exported region region->name in
 * place (since 1.3): another size or usage, the same memory (its file, or
 * its anonymous memory) and its bytes. The file grows first when the
 * region does (with region->create, as at the start; the bytes it holds
 * are kept); the memory is mapped and registered again beside the old
 * registration, put in its place in the table, and announced to every
 * authenticated client as changed (ANNOUNCE CHANGED, a new descriptor and
 * generation). The old registration and mapping stay until each client
 * has processed the announcement (as for rpmaf_server_region_remove(), at
 * most the heartbeat window): what clients posted through them meanwhile
 * lands in the same memory (the mappings are shared) and completes, and
 * a persist request naming the older generation is served. Then the old
 * one is deregistered and unmapped, and a region that shrank cuts its file
 * back to the new size (with region->create, and only a file that was the
 * region's size). Operations in flight beyond a new, smaller end, or
 * that a narrowed usage no longer allows, complete through the old
 * registration; clients refuse new ones. So a change fails no operation
 * in flight and breaks no connection.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument, called from a worker thread, a region
 * cfg_load would refuse, memory of rpmaf_server_region_add_mem(), another
 * backing, file or persistence method: a removal and an addition, logged);
 * RPMAF_E_NOENT (no such region); RPMAF_E_NOMEM; RPMAF_E_IO (the file
 * cannot be extended or mapped again, or is too short without create);
 * RPMAF_E_RDMA. On failure the region is exported as before.
 *
 * THREAD SAFETY
 * Thread-safe (the control path; not from a worker thread); changes and
 * removals of regions run one at a time.
 */
int rpmaf_server_region_change(struct rpmaf_server *srv, const struct rpmaf_cfg_region *region);

/*
 * rpmaf_server_region_ptr -- the local address and size of an exported
 * region, for the server's own use (verification, dumps).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_NOENT (no such region).
 *
 * THREAD SAFETY
 * Thread-safe; the pointer is valid until the region is removed or
 * changed (rpmaf_server_region_change() returns after the old mapping is
 * gone: ask again) or the server deleted.
 */
int rpmaf_server_region_ptr(struct rpmaf_server *srv, const char *name, void **ptr_ptr,
			    size_t *size_ptr);

/*
 * rpmaf_server_region_persist -- make len bytes of exported region name from
 * offset durable, as a client's PERSIST_REQ does (GPSPM): a file-backed
 * region with libpmem2's persist of the mapping, memory of
 * rpmaf_server_region_add_mem() with its persist function, anonymous
 * memory (or memory with no persist function) with a memory barrier. For
 * a handler that changes a region with the server's CPU (through
 * rpmaf_server_region_ptr()) and must not answer before the change is
 * durable.
 *
 * RETURN VALUE
 * 0 once the range is durable; RPMAF_E_INVAL (srv or name NULL, len 0,
 * offset + len beyond the region); RPMAF_E_NOENT (no such region).
 *
 * THREAD SAFETY
 * Thread-safe. On a worker thread (a handler) it takes no lock and
 * allocates nothing (the region is found in a read-side section); on any
 * other thread it takes the region table's mutex. It may block for as long
 * as the persist takes (msync(2) for a file not on persistent memory).
 * Concurrent writes to the same range by other threads are the caller's to
 * order: what a thread wrote before the call is covered.
 */
int rpmaf_server_region_persist(struct rpmaf_server *srv, const char *name, size_t offset,
				size_t len);

/*
 * rpmaf_server_stop -- drain: stop accepting, let the requests in flight
 * be answered for up to timeout_ms, then disconnect every client and
 * persist every file-backed region. The server can then only be deleted.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv NULL, called from a worker thread);
 * RPMAF_E_TIMEOUT (requests were still in
 * flight after timeout_ms; the clients were disconnected anyway).
 *
 * THREAD SAFETY
 * Not from a worker thread; not thread-safe against other calls on srv.
 */
int rpmaf_server_stop(struct rpmaf_server *srv, unsigned timeout_ms);

/*
 * rpmaf_server_delete -- stop the server if it runs (rpmaf_server_stop()
 * with timeouts.operation_ms), deregister and unmap the regions and
 * release their files' locks, free everything and set *srv_ptr to NULL.
 * A server never started (rpmaf_server_start() failed or was not called)
 * also removes the region files it created and cuts back the ones it
 * extended, as a failed rpmaf_server_new() does: it served nothing, so
 * nothing it made stays. Nothing happens when *srv_ptr is NULL.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv_ptr NULL); the first error of the teardown
 * (everything is freed anyway).
 *
 * THREAD SAFETY
 * Not from a worker thread; not thread-safe against any other use of the
 * server. The workers must be deleted after it, not before.
 */
int rpmaf_server_delete(struct rpmaf_server **srv_ptr);

/*
 * rpmaf_server_get_stats -- a snapshot of the server's counters (each read
 * atomically, not all of one instant).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_server_get_stats(const struct rpmaf_server *srv, struct rpmaf_server_stats *stats);

/* the formats of rpmaf_server_stats_write() */
enum rpmaf_stats_format {
	/*
	 * One JSON object on one line: "what" and "version" (of meta), "time"
	 * (s since the epoch), "uptime_ms" (since rpmaf_server_start()), the
	 * counters of struct rpmaf_server_stats by their names, "workers" (an
	 * array of each worker's polls, empty_polls, completions, receives,
	 * sleeps, refused and conns), "latency_ns" ("persist": the persists
	 * (GPSPM) the server made; "handler_ID": the application calls of each
	 * handler, from the request to the answer; each {"count", "mean",
	 * "min", "p50", "p90", "p99", "p99.9", "max"}) and "region_stats" (by
	 * region name: "lookups", "persists", "persist_bytes" of the requests
	 * that named it; a client's own RDMA reads and writes never reach the
	 * server, so they are not there; and how its bytes are made durable:
	 * "persistence" ("apm", "gpspm"), "mechanism" ("msync", "cache_flush",
	 * "fence", "rdma_flush", "application", "none") and libpmem2's
	 * "granularity" ("byte", "cache_line", "page"; "none", "unknown" for
	 * anonymous and the application's memory): doc/DURABILITY.md).
	 */
	RPMAF_STATS_JSON,
	/*
	 * The same figures in the Prometheus text exposition format 0.0.4 (the
	 * one node_exporter's textfile collector reads): counters
	 * rpmaf_server_*_total, rpmaf_worker_*_total{worker="N"},
	 * rpmaf_region_*_total{region="NAME"}; gauges rpmaf_server_connections,
	 * rpmaf_server_regions, rpmaf_server_uptime_seconds,
	 * rpmaf_server_info{program,version} 1 and
	 * rpmaf_region_info{region,persistence,mechanism,granularity} 1;
	 * histograms in seconds
	 * rpmaf_server_persist_duration_seconds and
	 * rpmaf_server_handler_duration_seconds{handler="ID"} (_bucket{le},
	 * _sum, _count); each with its HELP and TYPE lines.
	 */
	RPMAF_STATS_PROMETHEUS,
};

/* who writes the statistics, named in them */
struct rpmaf_stats_meta {
	const char *program; /* "rpma-server"; NULL: "rpmaf" */
	const char *version; /* the program's; NULL: "" */
};

/*
 * rpmaf_server_stats_write -- the server's statistics (its counters, its
 * workers', its regions', the latency histograms of its persists and of
 * each handler) in format to f, flushed. Each figure is read atomically;
 * the figures are not all of one instant.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (srv or f NULL, an unknown format, a program or version
 * of meta with a double quote, a backslash or a control character);
 * RPMAF_E_NOMEM; RPMAF_E_IO (writing to f failed).
 *
 * THREAD SAFETY
 * Thread-safe against the workers and against rpmaf_server_get_stats();
 * not against rpmaf_server_delete(). Not from a worker thread (it takes
 * the region table's mutex a reload holds).
 */
int rpmaf_server_stats_write(const struct rpmaf_server *srv, enum rpmaf_stats_format format,
			     const struct rpmaf_stats_meta *meta, FILE *f);

/* ======================================================================
 * Pool (pool/)
 *
 * The client side of the framework: targets[i].connections connections to
 * each target of the configuration, spread over the workers, and an
 * asynchronous API of operations on the targets' regions, by name.
 *
 * Connections. A control thread of the pool makes the connections (the
 * blocking part of connecting never runs on a worker) and hands each to
 * its worker, which runs the control protocol on it (doc/PROTOCOL.md):
 * HELLO, AUTH with the key of auth.key_file when the target asks for it,
 * then the target's region list, paged, into the pool's region table (RCU,
 * regtab/), kept current by the target's announcements. A connection is
 * healthy from then until it is lost: the peer disconnects or dies, a
 * completion fails, an operation times out, or the peer stays silent for
 * heartbeat interval x misses (the shorter of this side's
 * timeouts.heartbeat_* and the target's announced ones: a frozen or cut-off
 * target is found within this side's bound, logged as silent and counted).
 * A lost connection is closed first (its resources freed once its
 * completions are drained: nothing of it lands in an operation's memory
 * afterwards); then each operation in flight or queued on it either waits
 * to be posted again (see "Waiting" below) or completes: with
 * RPMAF_E_TIMEOUT for the one that timed out, RPMAF_E_CONNLOST for a call
 * the target may have run. The connection is made again after
 * reconnect.initial_ms, each failed attempt waiting reconnect.multiplier
 * times longer up to reconnect.max_ms, each wait varied at random by up
 * to reconnect.jitter of itself; its regions are listed again. Meanwhile
 * operations go to the target's healthy connections. A target that
 * refuses the key is not retried faster than reconnect.max_ms and the log
 * says why.
 *
 * Waiting. An operation whose target has no healthy connection when it is
 * submitted waits for one rather than failing: it takes one of the
 * target's waiting places (targets[].connections x queues.sq of them; with
 * none left the submission returns RPMAF_E_AGAIN) and is posted, in order,
 * once a connection of the target is ready. An operation whose connection
 * was lost waits the same way (without needing a place) when posting it
 * again does what posting it once does: reads, writes, flushes,
 * write+flush and atomic writes of their fixed range, a call not sent yet,
 * and a call of a handler the target announced idempotent
 * (rpmaf_server_handler_add_flags(), protocol version 2); any other call
 * completes with RPMAF_E_CONNLOST, once. Before it is posted again its
 * region is looked up again: a new registration (the target was started
 * again) is used; a region removed, or no longer holding the range or the
 * usage, completes it with RPMAF_E_NOENT. A waiting operation that
 * reaches its deadline (timeouts.operation_ms after its submission)
 * completes with RPMAF_E_TIMEOUT, once, and a log line of the pool says
 * how many timed out and why (since when the target has had no connection,
 * what was lost, what the last attempt met). So a partition or a frozen
 * target shorter than timeouts.operation_ms (less the time to find it
 * silent and to connect again) costs no operation; a longer one fails
 * each operation once, at its deadline. A region the pool has never
 * learnt of (no connection of its target was ever ready) cannot be found:
 * its operations fail at once with RPMAF_E_NOENT.
 *
 * Operations. Each names a region; the pool finds it in its table (no
 * lock: an RCU read-side section on the calling thread), checks the range
 * and the usage against it, picks a healthy connection of the region's
 * target (on a worker thread one that worker owns, if any, so that a
 * callback submitting the next operation needs no other thread; round
 * robin otherwise) and submits the operation to that connection's
 * worker, which posts it when the connection's queues have room (queued
 * until then, in order; never an overflow) and runs the callback on that
 * worker's thread when it completes. An RDMA operation submitted on that
 * worker's own thread (from a callback) is posted at once when nothing
 * waits before it; a callback never runs inside its submission. Nothing on
 * this path allocates or takes a lock: the operation's storage is the
 * caller's struct rpmaf_op.
 * Every operation completes exactly once, with a status: 0, or
 * RPMAF_E_TIMEOUT (not completed within timeouts.operation_ms of its
 * submission, queueing and waiting for a connection included: a posted
 * one's connection is then treated as lost, since an RDMA operation cannot
 * be cancelled), RPMAF_E_CONNLOST (a call the target may have run was on
 * a lost connection), RPMAF_E_NOENT (the region was removed, or replaced
 * by a new registration, before the operation was posted), RPMAF_E_REMOTE
 * (the target refused it: a remote access error, a failed persist, a
 * failed handler), RPMAF_E_SHUTDOWN (the pool is being deleted).
 *
 * Persistence. RPMAF_OP_PERSIST makes a write durable before the
 * operation completes: with rpma_flush(RPMA_FLUSH_TYPE_PERSISTENT) where
 * the region declares direct write to persistent memory (APM), otherwise
 * with a PERSIST_REQ message answered by the target once it has persisted
 * the range (GPSPM). RPMAF_OP_VISIBLE makes it visible (a flush of type
 * visibility) instead.
 *
 * Messages. Control requests and application calls (rpmaf_pool_call())
 * spend the credits of the target's window (proto/credit.h): an operation
 * with no credit waits for one (counted as a credit stall), so the target
 * never runs out of receive buffers; credits come back on every reply.
 *
 * Threads. Any thread may submit operations; its first call registers it
 * as an RCU reader (urcu-qsbr) and it is unregistered when it exits. The
 * callbacks run on worker threads: they must not block, and may submit
 * further operations.
 * ====================================================================== */

struct rpma_mr_local;
struct rpmaf_pool;

/*
 * the storage of one operation, owned by the caller: it must stay valid and
 * untouched from the submission until its completion (the callback's return,
 * or rpmaf_op_wait()'s), after which it may be reused
 */
struct rpmaf_op {
	uint64_t rpmaf_private[32];
};

/*
 * what runs when an operation completes, on the worker thread of its
 * connection: status 0 or a negative RPMAF_E_* code (see above). op may be
 * reused (submitted again) from inside the callback.
 */
typedef void (*rpmaf_op_cb)(struct rpmaf_op *op, int status, void *ctx);

/* flags of writes and flushes: what the operation guarantees when it completes */
#define RPMAF_OP_PERSIST (1u << 0) /* the data is persistent on the target */
#define RPMAF_OP_VISIBLE (1u << 1) /* the data is visible to the target's CPUs */

/* what a region looks like to the pool (rpmaf_pool_region()) */
struct rpmaf_pool_region {
	uint64_t size;
	uint64_t generation; /* the target's registration of it; a new one after a change */
	unsigned target;     /* index of its target in cfg->targets */
	unsigned usage;	     /* RPMAF_USAGE_* bits */
	bool apm;	     /* persisted by the client (true) or by the target (GPSPM) */
};

/* a snapshot of a pool's counters (rpmaf_pool_get_stats()) */
struct rpmaf_pool_stats {
	uint64_t ops[6];     /* completed, by kind: write, read, flush, write+flush, atomic, call */
	uint64_t bytes[6];   /* their bytes (a call: request and reply) */
	uint64_t errors;     /* operations completed with a status other than 0 */
	uint64_t timeouts;   /* of which RPMAF_E_TIMEOUT */
	uint64_t reconnects; /* connections made again after a loss */
	uint64_t credit_stalls; /* operations that waited for a message credit */
	uint64_t queued;	/* operations that waited for room in their queues */
	uint32_t connections;	/* connections in total (sum of targets[].connections) */
	uint32_t healthy;	/* of which healthy now */
	uint64_t lat_p50_ns, lat_p99_ns, lat_p999_ns, lat_max_ns; /* of all completed operations */
};

/*
 * rpmaf_pool_new -- make a pool of cfg (which needs at least one target) on
 * peer, whose connections the workers ws own, and start connecting every
 * target; it returns at once (rpmaf_pool_wait_ready() waits). cfg, peer
 * and ws must outlive the pool.
 *
 * RETURN VALUE
 * 0 and *pool_ptr set; or a negative code, *pool_ptr untouched:
 * - RPMAF_E_INVAL   a NULL argument; cfg has no target
 * - RPMAF_E_NOMEM   out of memory
 * - RPMAF_E_IO      the key file cannot be read
 * - RPMAF_E_SYS     the control thread cannot be made
 *
 * THREAD SAFETY
 * Thread-safe.
 */
int rpmaf_pool_new(const struct rpmaf_cfg *cfg, struct rpma_peer *peer, struct rpmaf_workers *ws,
		   struct rpmaf_pool **pool_ptr);

/*
 * rpmaf_pool_wait_ready -- wait until every target has at least one
 * healthy connection (its regions listed), for at most timeout_ms; and,
 * within that time, until each of the other connections is healthy too or
 * has failed once, so that a target that gave fewer connections than its
 * configuration asks is logged (a warning: how many, and why the others
 * failed: refused, timed out, unreachable, lost; they are retried).
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool NULL); RPMAF_E_TIMEOUT (a target is not ready:
 * the log says why); RPMAF_E_AUTH (a target refused the key);
 * RPMAF_E_SHUTDOWN (rpmaf_pool_interrupt() was called, before or during
 * the wait).
 *
 * THREAD SAFETY
 * Thread-safe; not from a worker thread.
 */
int rpmaf_pool_wait_ready(struct rpmaf_pool *pool, unsigned timeout_ms);

/*
 * rpmaf_pool_interrupt -- give up waiting for the pool: every
 * rpmaf_pool_wait_ready() in progress returns RPMAF_E_SHUTDOWN at once
 * (within a few microseconds), and every later one too. Connecting and
 * operations go on; rpmaf_pool_delete(), which the caller typically calls
 * next, abandons a connection attempt in progress rather than waiting
 * for its timeouts.connect_ms.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool NULL).
 *
 * THREAD SAFETY
 * Thread-safe and async-signal-safe: it may be called from a signal
 * handler (it only stores, adds and wakes a futex), as long as the pool is
 * not being deleted at the same time.
 */
int rpmaf_pool_interrupt(struct rpmaf_pool *pool);

/*
 * rpmaf_pool_delete -- stop connecting, complete every operation not yet
 * completed with RPMAF_E_SHUTDOWN (or its real status if it completes
 * first), close every connection, free everything and set *pool_ptr to
 * NULL. Nothing happens when *pool_ptr is NULL. A connection attempt in
 * progress is abandoned at once: the call does not wait for
 * timeouts.connect_ms.
 *
 * RETURN VALUE
 * 0; RPMAF_E_INVAL (pool_ptr NULL).
 *
 * THREAD SAFETY
 * Not from a worker thread; no operation may be submitted during or after
 * the call. The workers must be deleted after the pool, not before.
 */
int rpmaf_pool_delete(struct rpmaf_pool **pool_ptr);

/*
 * rpmaf_pool_write -- write len bytes of src (a region the application
 * registered on the pool's peer with RPMA_MR_USAGE_WRITE_SRC) from src_off
 * into region at offset; with RPMAF_OP_PERSIST or RPMAF_OP_VISIBLE, then
 * flush it as one operation.
 *
 * RETURN VALUE (of the submission; the callback gets the operation's status)
 * 0: the operation was submitted and cb(op, status, ctx) will run exactly
 * once (cb NULL: rpmaf_op_wait() must be called instead). Otherwise nothing
 * was submitted and the callback will not run:
 * - RPMAF_E_INVAL  pool, op, region or src NULL; len 0; offset + len beyond
 *                  the region; both flags, or an unknown one; the region's
 *                  usage lacks write (or flush, with a flag)
 * - RPMAF_E_NOENT  no such region in the table now
 * - RPMAF_E_AGAIN  the region's target has no healthy connection now and
 *                  all its waiting places are taken (back-pressure: retry
 *                  after a completion)
 * - RPMAF_E_SHUTDOWN  the pool is being deleted
 *
 * THREAD SAFETY
 * Any thread, worker threads included. No lock, no allocation.
 */
int rpmaf_pool_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
		     size_t offset, struct rpma_mr_local *src, size_t src_off, size_t len,
		     unsigned flags, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_pool_read -- read len bytes of region from offset into dst (a region
 * the application registered with RPMA_MR_USAGE_READ_DST) at dst_off.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write(); RPMAF_E_INVAL when the region's usage lacks read.
 */
int rpmaf_pool_read(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region, size_t offset,
		    struct rpma_mr_local *dst, size_t dst_off, size_t len, rpmaf_op_cb cb,
		    void *ctx);

/*
 * rpmaf_pool_flush -- make len bytes of region from offset persistent
 * (flags RPMAF_OP_PERSIST) or visible (RPMAF_OP_VISIBLE): exactly one of
 * them. Writes of the same connection completed before are covered; use a
 * write's own flag for a write of this thread still in flight.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write().
 */
int rpmaf_pool_flush(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
		     size_t offset, size_t len, unsigned flags, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_pool_atomic_write -- write the 8 bytes of value into region at
 * offset (8-byte aligned) atomically (rpma_atomic_write()); with
 * RPMAF_OP_PERSIST or RPMAF_OP_VISIBLE, then flush them.
 *
 * RETURN VALUE, THREAD SAFETY
 * As rpmaf_pool_write(); RPMAF_E_INVAL also for an unaligned offset.
 */
int rpmaf_pool_atomic_write(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *region,
			    size_t offset, const char value[8], unsigned flags, rpmaf_op_cb cb,
			    void *ctx);

/*
 * rpmaf_pool_call -- a message call: send req_len bytes of req to the
 * handler handler_id of target (a name of cfg->targets) and put the reply,
 * up to reply_max bytes, at reply; rpmaf_op_reply_len() gives its length.
 * req and reply must stay valid until the operation completes. A reply
 * longer than reply_max completes the operation with RPMAF_E_REMOTE and
 * nothing copied; no handler for the id gives RPMAF_E_NOENT.
 *
 * RETURN VALUE
 * As rpmaf_pool_write(); RPMAF_E_INVAL also for req_len beyond what one
 * message carries (queues.messages.size and the target's receive buffer,
 * less the 28 bytes of header); RPMAF_E_NOENT for an unknown target.
 *
 * THREAD SAFETY
 * As rpmaf_pool_write().
 */
int rpmaf_pool_call(struct rpmaf_pool *pool, struct rpmaf_op *op, const char *target,
		    uint32_t handler_id, const void *req, size_t req_len, void *reply,
		    size_t reply_max, rpmaf_op_cb cb, void *ctx);

/*
 * rpmaf_op_wait -- wait for an operation submitted without a callback and
 * return its status (0 or a negative RPMAF_E_* code). It returns at the
 * latest timeouts.operation_ms after the submission (then with
 * RPMAF_E_TIMEOUT). Calling it on an operation submitted with a callback,
 * or not submitted, returns RPMAF_E_INVAL.
 *
 * THREAD SAFETY
 * Any thread but a worker thread (it would wait for itself); one waiter
 * per operation.
 */
int rpmaf_op_wait(struct rpmaf_op *op);

/*
 * rpmaf_op_reply_len -- the length of the reply of a completed call (0 for
 * other operations, or when op is NULL). From the callback, or after
 * rpmaf_op_wait().
 */
size_t rpmaf_op_reply_len(const struct rpmaf_op *op);

/*
 * rpmaf_pool_region -- what the pool knows of region name now.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_NOENT.
 * THREAD SAFETY: any thread (registered as a reader on its first call).
 */
int rpmaf_pool_region(struct rpmaf_pool *pool, const char *name, struct rpmaf_pool_region *info);

/*
 * rpmaf_pool_get_stats -- a snapshot of the pool's counters (each read
 * atomically, not all of one instant).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_get_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_stats *stats);

/* a snapshot of a pool's faults and of what they cost (rpmaf_pool_get_fault_stats()) */
struct rpmaf_pool_fault_stats {
	uint64_t conn_lost;	/* ready connections lost */
	uint64_t peer_silent;	/* of which to the target's silence (frozen or cut off) */
	uint64_t waited;	/* operations that waited for a connection of their target */
	uint64_t retried;	/* operations posted again after their connection was lost */
	uint64_t wait_timeouts; /* operations that timed out waiting for a connection */
	uint32_t waiting;	/* operations waiting for a connection now */
	uint32_t down;		/* connections not healthy now */
};

/*
 * rpmaf_pool_get_fault_stats -- a snapshot of the pool's fault counters
 * (each read atomically, not all of one instant); the rest of the pool's
 * counters are rpmaf_pool_get_stats()'s.
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_get_fault_stats(const struct rpmaf_pool *pool, struct rpmaf_pool_fault_stats *stats);

/*
 * rpmaf_pool_dump_json -- write the pool's counters and latency
 * histograms, per worker and per connection, to out as JSON lines (one
 * object per line, the format of stats/json.h).
 * RETURN VALUE: 0; RPMAF_E_INVAL (a NULL argument); RPMAF_E_IO (a write failed).
 * THREAD SAFETY: thread-safe.
 */
int rpmaf_pool_dump_json(const struct rpmaf_pool *pool, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_H */
