// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * sgroup.c -- group commit of the GPSPM persists a worker collects in one
 * turn (see sgroup.h, doc/DURABILITY.md "Group commit")
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libpmem2.h>

#include "../workers/worker.h"
#include "sconn.h"
#include "sgroup.h"

/* turn_end -- the end of a turn that collected persists: they go out together */
static void
turn_end(struct rpmaf__turn_end *te)
{
	rpmaf__sgroup_flush(
	    (struct rpmaf__sgroup *)((char *)te - offsetof(struct rpmaf__sgroup, te)));
}

/* see sgroup.h */
int
rpmaf__sgroup_init(struct rpmaf__sgroup *g, struct rpmaf_server *srv, struct rpmaf_worker *w,
		   uint32_t cap)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(g, 0, sizeof(*g));
	g->srv = srv;
	g->w = w;
	g->te.fn = turn_end;
	g->cap = cap ? cap : 1;
	g->page = page > 0 ? (uint64_t)page : 4096;
	g->e = calloc(g->cap, sizeof(*g->e));
	g->runs = calloc(g->cap, sizeof(*g->runs));
	if (!g->e || !g->runs) {
		rpmaf__sgroup_fini(g);
		return RPMAF_E_NOMEM;
	}
	return 0;
}

/* see sgroup.h */
void
rpmaf__sgroup_fini(struct rpmaf__sgroup *g)
{
	free(g->e);
	free(g->runs);
	g->e = NULL;
	g->runs = NULL;
	g->cap = 0;
}

/* see sgroup.h */
uint32_t
rpmaf__sgroup_check(const struct rpmaf__sregion *r, uint64_t generation, uint64_t offset,
		    uint64_t length)
{
	if (!r)
		return RPMAF__PROTO_S_NOT_FOUND;
	if (generation < r->since || generation > r->generation)
		return RPMAF__PROTO_S_STALE;
	if (!(r->usage & RPMAF_USAGE_FLUSH))
		return RPMAF__PROTO_S_DENIED;
	if (offset > r->size || length > r->size - offset)
		return RPMAF__PROTO_S_OUT_OF_RANGE;
	return RPMAF__PROTO_S_OK;
}

/* see sgroup.h */
bool
rpmaf__sgroup_wants(const struct rpmaf__sgroup *g, const struct rpmaf__sregion *r)
{
	return g->on && r->file && !r->caller_mem && r->fd >= 0 && r->persist_fn &&
	       r->granularity == PMEM2_GRANULARITY_PAGE;
}

/* ent_fill -- e for persist m of sc on r, with everything m says copied */
static void
ent_fill(struct rpmaf__sgroup_ent *e, struct rpmaf__sconn *sc, const struct rpmaf__proto_msg *m,
	 struct rpmaf__sregion *r)
{
	const struct rpmaf__proto_persist_req *p = &m->body.persist_req;

	*e = (struct rpmaf__sgroup_ent){.sc = sc,
					.req_id = m->hdr.req_id,
					.r = r,
					.offset = p->offset,
					.length = p->length,
					.generation = p->generation,
					.name_len = p->name_len,
					.t0 = rpmaf__now_ns(),
					.version = sc->sess.version};
	memcpy(e->name, p->name, p->name_len);
}

/*
 * see sgroup.h; m is copied before a flush makes room, as the flush's
 * replies give the receive buffer m may lie in back to the peer
 */
int
rpmaf__sgroup_add(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc,
		  const struct rpmaf__proto_msg *m, struct rpmaf__sregion *r, uint64_t table_gen)
{
	struct rpmaf__sgroup_ent aside;

	if (g->n && (g->n == g->cap || table_gen != g->table_gen)) {
		ent_fill(&aside, sc, m, r);
		rpmaf__sgroup_flush(g);
		if (sc->closing)
			return 0; /* answering the others refused it: nothing more is served */
		g->e[g->n] = aside;
	} else {
		ent_fill(&g->e[g->n], sc, m, r);
	}
	g->n++;
	g->table_gen = table_gen;
	rpmaf__worker_at_turn_end(g->w, &g->te);
	return 0;
}

/*
 * recheck -- the table changed since e's region was found: check e again
 * against the region of its name in s, as if it came now; a region the
 * group does not take is persisted at once. Whether e is done (answered
 * with e->status, or synced already).
 */
static bool
recheck(struct rpmaf__sgroup *g, const struct rpmaf__sregsnap *s, struct rpmaf__sgroup_ent *e)
{
	struct rpmaf__sregion *r = rpmaf__sregtab_find(s, e->name, e->name_len);

	e->status = rpmaf__sgroup_check(r, e->generation, e->offset, e->length);
	if (e->status != RPMAF__PROTO_S_OK)
		return true;
	e->r = r;
	if (rpmaf__sgroup_wants(g, r))
		return false;
	rpmaf__sregion_persist(r, e->offset, e->length);
	return true;
}

/*
 * sync_runs -- make the k merged runs of g->runs of r durable: an msync()
 * each, or one fdatasync() of the file when there are more than
 * RPMAF__SGROUP_RUNS_MSYNC (a call each is a write-back and a device
 * flush; one for the whole file writes back its other dirty pages too);
 * OK, or IO (logged, naming the call and the errno)
 */
static uint32_t
sync_runs(struct rpmaf__sgroup *g, const struct rpmaf__sregion *r, size_t k, uint32_t persists)
{
	const char *call = "fdatasync";
	int err = 0;

	if (k > RPMAF__SGROUP_RUNS_MSYNC) {
		if (fdatasync(r->fd))
			err = errno;
	} else {
		call = "msync";
		for (size_t i = 0; i < k && !err; i++) {
			if (msync((char *)r->ptr + g->runs[i].off, g->runs[i].end - g->runs[i].off,
				  MS_SYNC))
				err = errno;
		}
	}
	if (!err)
		return RPMAF__PROTO_S_OK;
	rpmaf__wlog(g->srv->log, RPMAF_LOG_ERROR,
		    "server: region %s: %s(): %s: its %u persist(s) of the turn are answered IO",
		    r->name, call, strerror(err), persists);
	return RPMAF__PROTO_S_IO;
}

/* sync_region -- the persists of region g->e[from].r not done yet, made durable together */
static void
sync_region(struct rpmaf__sgroup *g, uint32_t from)
{
	const struct rpmaf__sregion *r = g->e[from].r;
	uint32_t persists = 0, status;
	size_t k = 0;

	for (uint32_t i = from; i < g->n; i++) {
		if (g->e[i].done || g->e[i].r != r)
			continue;
		g->runs[k++] =
		    (struct rpmaf__prange){g->e[i].offset, g->e[i].offset + g->e[i].length};
		persists++;
	}
	k = rpmaf__prange_merge(g->runs, k, g->page);
	status = sync_runs(g, r, k, persists);
	for (uint32_t i = from; i < g->n; i++) {
		if (!g->e[i].done && g->e[i].r == r) {
			g->e[i].status = status;
			g->e[i].done = true;
		}
	}
}

/* answer -- the PERSIST_REPLY of e with its status (now, or once a credit comes); counted */
static void
answer(struct rpmaf__sgroup *g, struct rpmaf__sgroup_ent *e, uint64_t now)
{
	struct rpmaf__sconn *sc = e->sc;
	struct rpmaf_server *srv = g->srv;

	e->sc = NULL;
	if (e->status == RPMAF__PROTO_S_OK) {
		rpmaf__hist_record(&srv->wst[rpmaf_worker_index(g->w)].persist_lat, now - e->t0);
		rpmaf__srv_count(&srv->st.persists, 1);
		rpmaf__srv_count(&srv->st.persist_bytes, e->length);
		rpmaf__srv_count(&e->r->persists, 1);
		rpmaf__srv_count(&e->r->persist_bytes, e->length);
	}
	rpmaf__sconn_persist_reply(sc, e->req_id, e->status);
}

/* see sgroup.h */
void
rpmaf__sgroup_flush(struct rpmaf__sgroup *g)
{
	const struct rpmaf__sregsnap *s;
	uint64_t now;
	bool same;

	if (!g->n)
		return;
	s = rpmaf__sregtab_read_lock(&g->srv->regs);
	same = s->generation == g->table_gen;
	for (uint32_t i = 0; i < g->n; i++) {
		struct rpmaf__sgroup_ent *e = &g->e[i];

		e->status = RPMAF__PROTO_S_OK;
		e->done = !same && recheck(g, s, e);
	}
	for (uint32_t i = 0; i < g->n; i++) {
		if (!g->e[i].done)
			sync_region(g, i);
	}
	now = rpmaf__now_ns();
	for (uint32_t i = 0; i < g->n; i++) {
		if (g->e[i].sc)
			answer(g, &g->e[i], now);
	}
	rpmaf__sregtab_read_unlock();
	g->n = 0;
}

/* see sgroup.h */
void
rpmaf__sgroup_stop(struct rpmaf__sgroup *g)
{
	rpmaf__sgroup_flush(g);
	rpmaf__worker_turn_end_cancel(g->w, &g->te);
	g->on = false;
}

/* see sgroup.h */
void
rpmaf__sgroup_drop(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct rpmaf__sgroup_ent *e = &g->e[i];

		if (e->sc == sc)
			e->sc = NULL;
	}
}
