/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rpmaf/server.h -- librpmaf's public API: the server (server/). One part of
 * rpmaf.h, which includes every part: an application includes <rpmaf.h>.
 */

#ifndef RPMAF_PUBLIC_SERVER_H
#define RPMAF_PUBLIC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "errors.h"
#include "workers.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif

#endif /* RPMAF_PUBLIC_SERVER_H */
