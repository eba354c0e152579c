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

/* see sgroup.h */
int
rpmaf__sgroup_init(struct rpmaf__sgroup *g, struct rpmaf_server *srv, struct rpmaf_worker *w,
		   uint32_t cap)
{
	long page = sysconf(_SC_PAGESIZE);

	memset(g, 0, sizeof(*g));
	g->srv = srv;
	g->w = w;
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
bool
rpmaf__sgroup_wants(const struct rpmaf__sgroup *g, const struct rpmaf__sregion *r)
{
	return g->on && r->file && !r->caller_mem && r->fd >= 0 && r->persist_fn &&
	       r->granularity == PMEM2_GRANULARITY_PAGE;
}

/* see sgroup.h */
int
rpmaf__sgroup_add(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc,
		  const struct rpmaf__proto_msg *m, struct rpmaf__sregion *r, uint64_t table_gen)
{
	const struct rpmaf__proto_persist_req *p = &m->body.persist_req;
	struct rpmaf__sgroup_ent *e;
	size_t size;
	void *buf;
	int ret;

	if (g->n && (g->n == g->cap || table_gen != g->table_gen))
		rpmaf__sgroup_flush(g);
	if (sc->closing)
		return 0; /* answering the others refused it: nothing more is served */
	/* the reply's credit and buffer now: the flush cannot run out of them */
	if ((ret = rpmaf__ctl_prepare(&sc->ctl, &buf, &size)))
		return ret == RPMAF_E_AGAIN ? ret : 0;
	g->table_gen = table_gen;
	e = &g->e[g->n++];
	*e = (struct rpmaf__sgroup_ent){.sc = sc,
					.buf = buf,
					.req_id = m->hdr.req_id,
					.r = r,
					.offset = p->offset,
					.length = p->length,
					.t0 = rpmaf__now_ns(),
					.version = sc->sess.version};
	return 0;
}

/* in_table -- whether r is one of the regions of s (compared, not read) */
static bool
in_table(const struct rpmaf__sregsnap *s, const struct rpmaf__sregion *r)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (s->v[i] == r)
			return true;
	}
	return false;
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

/* answer -- PERSIST_REPLY of e with its status, in the buffer prepared for it; counted */
static void
answer(struct rpmaf__sgroup *g, struct rpmaf__sgroup_ent *e, uint64_t now)
{
	struct rpmaf__sconn *sc = e->sc;
	struct rpmaf_server *srv = g->srv;
	struct rpmaf__proto_msg out;
	int ret;

	e->sc = NULL; /* the buffer is the commit's from now on: a drop leaves it */
	memset(&out, 0, sizeof(out));
	out.hdr.version = e->version;
	out.hdr.type = RPMAF__PROTO_T_PERSIST_REPLY;
	out.hdr.req_id = e->req_id;
	out.body.persist_reply.status = e->status;
	if (e->status == RPMAF__PROTO_S_OK) {
		rpmaf__hist_record(&srv->wst[rpmaf_worker_index(g->w)].persist_lat, now - e->t0);
		rpmaf__srv_count(&srv->st.persists, 1);
		rpmaf__srv_count(&srv->st.persist_bytes, e->length);
		rpmaf__srv_count(&e->r->persists, 1);
		rpmaf__srv_count(&e->r->persist_bytes, e->length);
	}
	if (!(ret = rpmaf__ctl_commit(&sc->ctl, e->buf, &out)))
		rpmaf__srv_count(&srv->st.requests, 1);
	else if (ret == RPMAF_E_INVAL)
		rpmaf__sconn_refuse(sc, RPMAF__PROTO_S_INTERNAL, e->req_id, &srv->st.proto_errors,
				    "the reply does not encode");
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

		/* another region at a freed one's address: the freed one was persisted whole */
		e->done = !same && (!in_table(s, e->r) || e->offset + e->length > e->r->size);
		e->status = RPMAF__PROTO_S_STALE;
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
rpmaf__sgroup_turn_end(struct rpmaf_worker *w, void *arg)
{
	(void)w;
	rpmaf__sgroup_flush(arg);
}

/* see sgroup.h */
void
rpmaf__sgroup_drop(struct rpmaf__sgroup *g, struct rpmaf__sconn *sc)
{
	for (uint32_t i = 0; i < g->n; i++) {
		struct rpmaf__sgroup_ent *e = &g->e[i];

		if (e->sc == sc) {
			rpmaf__ctl_abort(&sc->ctl, e->buf);
			e->sc = NULL;
		}
	}
}
