/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf/config.h -- librpmaf's public API: the configuration (config/). One
 * part of rpmaf.h, which includes every part: an application includes
 * <rpmaf.h>.
 */

#ifndef RPMAF_PUBLIC_CONFIG_H
#define RPMAF_PUBLIC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "errors.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_PUBLIC_CONFIG_H */
