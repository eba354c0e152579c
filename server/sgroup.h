/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * sgroup.h -- group commit of GPSPM persists (doc/DURABILITY.md, "Group
 * commit"): the persists a worker collects in one turn for regions mapped
 * at page granularity (a file on a disk: a persist is an msync()) are made
 * durable together at the end of the turn, one msync() per run of pages of
 * their union (or one fdatasync() of the file when the runs are many), and
 * each is answered only after that.
 *
 * CONCURRENCY
 * A group belongs to one worker of one server (struct rpmaf__srv_wstate):
 * every function runs on that worker's thread. No lock; nothing is
 * allocated after rpmaf__sgroup_init(). A persist collected holds its
 * connection and a pointer to its region,
 * found in a read-side section of the region table whose generation the
 * group keeps: the flush opens a section of its own and uses that region
 * only if the table is still at that generation; otherwise each persist is
 * checked again against the region of its name in the table then, as a
 * persist arriving at that moment would be (a change in place keeps it
 * served, on the new mapping of the same file; a removal answers it
 * STALE or NOT_FOUND).
 */

#ifndef RPMAF_SERVER_SGROUP_H
#define RPMAF_SERVER_SGROUP_H

#include <stdbool.h>
#include <stdint.h>

#include "../proto/wire.h"
#include "../workers/worker.h"
#include "prange.h"

struct rpmaf_server;
struct rpmaf_worker;
struct rpmaf__sconn;
struct rpmaf__sregion;
struct rpmaf__proto_msg;

/* more page runs than this in one region's group: one fdatasync() instead of an msync() each */
#define RPMAF__SGROUP_RUNS_MSYNC 4

/* a persist collected: answered at the flush */
struct rpmaf__sgroup_ent {
	struct rpmaf__sconn *sc; /* NULL: its connection closed, or answered */
	uint64_t req_id;
	struct rpmaf__sregion *r;
	uint64_t offset, length;
	uint64_t generation; /* the region's, as the client named it */
	char name[RPMAF__PROTO_NAME_MAX + 1];
	uint8_t name_len;
	uint64_t t0; /* when it was collected (the persist's latency counts from there) */
	uint8_t version;
	bool done; /* the flush has synced its region */
	uint32_t status;
};

struct rpmaf__sgroup {
	struct rpmaf_server *srv;
	struct rpmaf_worker *w;
	bool on;		     /* persists are grouped (rpmaf__sgroup_fits()) */
	struct rpmaf__turn_end te;   /* the flush at the end of the turn that collected */
	uint32_t n, cap;	     /* persists collected, room */
	struct rpmaf__sgroup_ent *e; /* cap */
	struct rpmaf__prange *runs;  /* cap: one region's ranges, merged */
	uint64_t table_gen;	     /* the region table's generation when they were found */
	uint64_t page;		     /* the system's page size */
};

/*
 * rpmaf__sgroup_init -- room for cap persists (the worker's receive
 * buffers: what one turn can take); not on yet.
 * RETURN VALUE: 0; RPMAF_E_NOMEM. CONCURRENCY: before the group is used.
 */
int rpmaf__sgroup_init(struct rpmaf__sgroup *g, struct rpmaf_server *srv, struct rpmaf_worker *w,
		       uint32_t cap);

/* rpmaf__sgroup_fini -- free what init made (the group must be empty and off) */
void rpmaf__sgroup_fini(struct rpmaf__sgroup *g);

/*
 * rpmaf__sgroup_check -- check a persist of [offset, offset + length)
 * naming generation against region r (NULL: none of that name): OK, or
 * the status to answer. A generation the region had before a change in
 * place is served (the client wrote through the old registration into the
 * same memory); one from before a removal, or newer than the region's, is
 * STALE. CONCURRENCY: while r is reachable.
 */
uint32_t rpmaf__sgroup_check(const struct rpmaf__sregion *r, uint64_t generation, uint64_t offset,
			     uint64_t length);

/*
 * rpmaf__sgroup_wants -- whether a persist of r is grouped: the group is
 * on and r is a file mapped at page granularity by the server (not the
 * caller's memory, whose persist function is the caller's).
 */
bool rpmaf__sgroup_wants(const struct rpmaf__sgroup *g, const struct rpmaf__sregion *r);

/*
 * rpmaf__sgroup_add -- collect the persist m of sc on region r (found in
 * the table at generation table_gen, checked already), to be made durable
 * and answered at the end of the turn. A group that is full, or whose
 * regions were found at another generation, is flushed first.
 * RETURN VALUE: 0 (its reply is rpmaf__sconn_persist_reply()'s: sent at
 * the flush, or once a credit comes).
 * CONCURRENCY: the group's worker thread, inside the read-side section in
 * which r was found.
 */
int rpmaf__sgroup_add(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc,
		      const struct rpmaf__proto_msg *m, struct rpmaf__sregion *r,
		      uint64_t table_gen);

/*
 * rpmaf__sgroup_flush -- make what was collected durable (per region: one
 * msync() per run of pages, or one fdatasync()) and answer every persist:
 * OK, or IO for every persist of a region whose msync()/fdatasync()
 * failed (logged), or STALE for one whose region left the table meanwhile.
 * CONCURRENCY: the group's worker thread, outside any read-side section
 * or inside one (sections nest).
 */
void rpmaf__sgroup_flush(struct rpmaf__sgroup *g);

/*
 * rpmaf__sgroup_stop -- flush what is collected and take the group off
 * the worker's end of turn (the worker stops serving).
 * CONCURRENCY: the group's worker thread.
 */
void rpmaf__sgroup_stop(struct rpmaf__sgroup *g);

/*
 * rpmaf__sgroup_drop -- connection sc closes: its persists collected will
 * not be answered (their ranges are still made durable).
 * CONCURRENCY: the worker thread, before sc is freed.
 */
void rpmaf__sgroup_drop(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc);

#endif /* RPMAF_SERVER_SGROUP_H */
