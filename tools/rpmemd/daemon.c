// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * daemon.c -- librpmem's pool requests, served on rpmemd's control thread
 * (see daemon.h).
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "pool.h"
#include "rpmem_proto.h"

/* a request to run, or (call NULL) a connection whose pools to close */
struct job {
	struct job *next;
	struct rpmaf_call *call;
	uint64_t conn_id;
	struct rpmem_proto_req req;
};

/* a pool open for a client: its files, its region, its owner */
struct open_pool {
	struct open_pool *next;
	uint64_t id;
	uint64_t owner; /* the connection it was opened through */
	struct pool *pool;
	char region[RPMEM_PROTO_REGION_MAX + 1];
	char name[RPMEM_PROTO_NAME_MAX + 1];
};

struct rpmemd {
	const struct rpmaf_cfg *cfg;
	struct rpmaf_server *srv;
	rpmemd_log_fn log;
	struct beneath_dir
	    dir; /* rpmem.poolset_dir, opened once: every file is reached beneath it */
	pthread_t thread;
	pthread_mutex_t lock; /* the queue and stop */
	pthread_cond_t cond;
	struct job *head, *tail;
	bool stop;
	struct open_pool *pools; /* the control thread's */
	atomic_uint npools;
};

/* an answer being made: the wire answer and room for the daemon's message */
struct answer {
	struct rpmem_proto_ans ans;
	char err[POOL_ERR_MAX];
};

/* push -- queue a job for the control thread (a worker thread: no blocking beyond the mutex) */
static void
push(struct rpmemd *d, struct job *j)
{
	pthread_mutex_lock(&d->lock);
	j->next = NULL;
	if (d->tail)
		d->tail->next = j;
	else
		d->head = j;
	d->tail = j;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

/* pop -- the next job, waiting for one; NULL once stopped with nothing queued */
static struct job *
pop(struct rpmemd *d)
{
	struct job *j;

	pthread_mutex_lock(&d->lock);
	while (!d->head && !d->stop)
		pthread_cond_wait(&d->cond, &d->lock);
	if ((j = d->head) && !(d->head = j->next))
		d->tail = NULL;
	pthread_mutex_unlock(&d->lock);
	return j;
}

/* fail -- the answer is the failure err (a negative errno), described by text */
static void
fail(struct rpmem_proto_ans *a, int err, const char *text)
{
	uint32_t status = (uint32_t)-err;

	a->status = rpmem_proto_status_known(status) && status ? status : EIO;
	rpmem_proto_ans_set_msg(a, "%s", text);
}

/* send_answer -- encode a and answer call with it (a failure to encode answers APP_FAILED) */
static void
send_answer(struct rpmaf_call *call, const struct rpmem_proto_ans *a)
{
	uint8_t buf[1024];
	size_t len;

	if (rpmem_proto_ans_encode(a, buf, sizeof(buf), &len) || len > rpmaf_call_reply_max(call))
		(void)rpmaf_call_reply(call, RPMAF_E_PROTO, NULL, 0);
	else
		(void)rpmaf_call_reply(call, 0, buf, len);
}

/* on_call -- a worker thread's handler: decode, queue; a malformed request is answered EPROTO */
static void
on_call(struct rpmaf_call *call, uint32_t handler_id, const void *req, size_t len, void *arg)
{
	struct rpmemd *d = arg;
	struct job *j = calloc(1, sizeof(*j));
	struct answer an = {.ans.kind = (uint16_t)(handler_id & 0xffffu)};
	int ret;

	if (!j) {
		(void)rpmaf_call_reply(call, RPMAF_E_NOMEM, NULL, 0);
		return;
	}
	j->call = call;
	j->conn_id = rpmaf_call_conn_id(call);
	ret = rpmem_proto_req_decode(req, len, &j->req, an.err, sizeof(an.err));
	if (!ret && j->req.kind != an.ans.kind) {
		snprintf(an.err, sizeof(an.err), "request kind %u sent to handler %#x", j->req.kind,
			 handler_id);
		ret = -EPROTO;
	}
	if (ret) {
		d->log(RPMAF_LOG_WARNING, "client #%llu: malformed request: %s",
		       (unsigned long long)j->conn_id, an.err);
		fail(&an.ans, -EPROTO, an.err);
		send_answer(call, &an.ans);
		free(j);
		return;
	}
	push(d, j);
}

/* on_closed -- a worker thread's hook: the connection's pools are closed on the control thread */
static void
on_closed(uint64_t conn_id, void *arg)
{
	struct rpmemd *d = arg;
	struct job *j = calloc(1, sizeof(*j));

	if (!j) {
		d->log(RPMAF_LOG_ERROR, "client #%llu: no memory to close its pools",
		       (unsigned long long)conn_id);
		return;
	}
	j->conn_id = conn_id;
	push(d, j);
}

/*
 * fail_pool -- the answer is the failure err of a pool call on the set
 * name, whose message is in an->err: the client gets that message (it
 * names files relative to the directory only, pool.h), except for a
 * refusal (-EPERM), whose message may quote a path outside the directory
 * and goes to the daemon's log only
 */
static void
fail_pool(struct answer *an, int err, const char *name)
{
	fail(&an->ans, err, an->err);
	if (err == -EPERM)
		rpmem_proto_ans_set_msg(&an->ans, "%s: refused by the daemon (its log says why)",
					name);
}

/* the codec's attributes and the header's are laid out alike, field for field */
_Static_assert(sizeof(struct rpmem_proto_attr) == sizeof(struct pool_hdr_attr),
	       "attribute layouts differ");

/* attr_from_wire -- the 104 bytes of librpmem's attributes (little-endian) into a */
static void
attr_from_wire(const uint8_t *w, struct pool_hdr_attr *a)
{
	struct rpmem_proto_attr pa;

	rpmem_proto_attr_unpack(w, &pa);
	memcpy(a, &pa, sizeof(*a));
}

/* attr_to_wire -- a into the 104 bytes of the wire */
static void
attr_to_wire(const struct pool_hdr_attr *a, uint8_t *w)
{
	struct rpmem_proto_attr pa;

	memcpy(&pa, a, sizeof(pa));
	rpmem_proto_attr_pack(&pa, w);
}

/* pool_find -- the open pool of id, NULL when the daemon holds none */
static struct open_pool *
pool_find(struct rpmemd *d, uint64_t id)
{
	struct open_pool *p = d->pools;

	while (p && p->id != id)
		p = p->next;
	return p;
}

/* pool_drop -- withdraw p's region, close its files, take it out of the table and free it */
static int
pool_drop(struct rpmemd *d, struct open_pool *p, char *err, size_t err_len)
{
	struct open_pool **pp = &d->pools;
	int ret;

	(void)rpmaf_server_region_remove(d->srv, p->region);
	ret = pool_close(&p->pool, err, err_len);
	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	free(p);
	atomic_fetch_sub_explicit(&d->npools, 1, memory_order_relaxed);
	return ret;
}

/* new_id -- a random pool id, non-zero and not in use */
static int
new_id(struct rpmemd *d, uint64_t *id_ptr)
{
	uint64_t id;

	do {
		if (getrandom(&id, sizeof(id), 0) != (ssize_t)sizeof(id))
			return -errno;
	} while (!id || pool_find(d, id));
	*id_ptr = id;
	return 0;
}

/*
 * persist_choose -- whether the pool p is served by APM (the client's RDMA
 * flush makes a write durable) rather than GPSPM (the daemon persists it),
 * the rule the framework's server applies to its regions (doc/DURABILITY.md):
 * APM needs direct_write and a pool on persistent memory (libpmem2 reports
 * a byte or cache-line granularity for every part). On ordinary files a
 * flush would leave the writes in the page cache: an explicit apm is
 * refused (0 with *apm unset, -EINVAL), auto falls back to GPSPM, logged.
 */
static int
persist_choose(struct rpmemd *d, struct open_pool *p, struct answer *an, bool *apm)
{
	bool want = d->cfg->rpmem.direct_write && d->cfg->rpmem.persistence != RPMAF_PERSIST_GPSPM;
	bool pmem = pool_get_granularity(p->pool) != PMEM2_GRANULARITY_PAGE;

	*apm = want && pmem;
	if (!want || pmem)
		return 0;
	if (d->cfg->rpmem.persistence == RPMAF_PERSIST_APM) {
		snprintf(an->err, sizeof(an->err),
			 "persistence apm cannot be durable for %s: it is not on persistent "
			 "memory (page granularity), a flush would leave writes in the page cache",
			 p->name);
		fail(&an->ans, -EINVAL, an->err);
		return -EINVAL;
	}
	d->log(RPMAF_LOG_NOTICE,
	       "pool %s: GPSPM (an msync for each persist) although direct_write is set: "
	       "not on persistent memory (page granularity)",
	       p->name);
	return 0;
}

/* export -- make the opened pool p a region and enter it in the table; the answer's fields */
static int export(struct rpmemd *d, struct open_pool *p, const struct job *j, struct answer *an)
{
	bool apm = false;
	struct rpmaf_mem_region mr = {
	    .name = p->region,
	    .ptr = pool_get_addr(p->pool),
	    .size = pool_get_size(p->pool),
	    .usage = RPMAF_USAGE_READ | RPMAF_USAGE_WRITE | RPMAF_USAGE_FLUSH,
	    .persist = pool_get_persist_fn(p->pool),
	};
	int ret;

	if ((ret = persist_choose(d, p, an, &apm)))
		return ret;
	mr.apm = apm;
	if ((ret = new_id(d, &p->id))) {
		fail(&an->ans, ret, "no random bytes for the pool's id");
		return ret;
	}
	snprintf(p->region, sizeof(p->region), "rpmem-%016llx", (unsigned long long)p->id);
	if ((ret = rpmaf_server_region_add_mem(d->srv, &mr))) {
		snprintf(an->err, sizeof(an->err), "the pool cannot be exported: %s",
			 rpmaf_err_str(ret));
		fail(&an->ans, ret == RPMAF_E_NOMEM ? -ENOMEM : -EIO, an->err);
		return -EIO;
	}
	p->owner = j->conn_id;
	p->next = d->pools;
	d->pools = p;
	atomic_fetch_add_explicit(&d->npools, 1, memory_order_relaxed);
	an->ans.pool_id = p->id;
	an->ans.pool_size = mr.size;
	an->ans.nlanes =
	    j->req.nlanes < d->cfg->rpmem.max_lanes ? j->req.nlanes : d->cfg->rpmem.max_lanes;
	an->ans.persist = apm ? RPMEM_PROTO_PERSIST_APM : RPMEM_PROTO_PERSIST_GPSPM;
	an->ans.region_len = (uint8_t)strlen(p->region);
	memcpy(an->ans.region, p->region, an->ans.region_len + 1u);
	return 0;
}

/* do_open -- CREATE or OPEN: the pool's files, then its region */
static void
do_open(struct rpmemd *d, const struct job *j, struct answer *an)
{
	const struct rpmem_proto_req *q = &j->req;
	struct open_pool *p = calloc(1, sizeof(*p));
	struct pool_hdr_attr attr;
	int ret;

	if (!p) {
		fail(&an->ans, -ENOMEM, "out of memory");
		return;
	}
	memcpy(p->name, q->name, sizeof(p->name));
	if (q->kind == RPMEM_PROTO_CREATE && q->attr_present)
		attr_from_wire(q->attr, &attr);
	ret = q->kind == RPMEM_PROTO_CREATE
		  ? pool_create(&d->dir, q->name, q->attr_present ? &attr : NULL, q->pool_size,
				&p->pool, an->err, sizeof(an->err))
		  : pool_open(&d->dir, q->name, q->pool_size, &p->pool, an->err, sizeof(an->err));
	if (ret) {
		fail_pool(an, ret, q->name);
		goto err_free;
	}
	if (export(d, p, j, an))
		goto err_close;
	if (q->kind == RPMEM_PROTO_OPEN) {
		pool_get_attr(p->pool, &attr);
		attr_to_wire(&attr, an->ans.attr);
	}
	return;

err_close:
	(void)pool_close(&p->pool, NULL, 0);
	/* a pool made for nothing is not left behind */
	if (q->kind == RPMEM_PROTO_CREATE)
		(void)pool_remove(&d->dir, q->name, POOL_REMOVE_FORCE, NULL, 0);
err_free:
	free(p);
}

/* do_close -- CLOSE: withdraw the region, close the files */
static void
do_close(struct rpmemd *d, const struct job *j, struct answer *an)
{
	struct open_pool *p = pool_find(d, j->req.pool_id);
	int ret;

	if (!p) {
		fail(&an->ans, -ENOENT, "no such pool open");
		return;
	}
	if ((ret = pool_drop(d, p, an->err, sizeof(an->err))))
		fail(&an->ans, ret, an->err);
}

/* do_set_attr -- SET_ATTR: every header rewritten */
static void
do_set_attr(struct rpmemd *d, const struct job *j, struct answer *an)
{
	struct open_pool *p = pool_find(d, j->req.pool_id);
	struct pool_hdr_attr attr;
	int ret;

	if (!p) {
		fail(&an->ans, -ENOENT, "no such pool open");
		return;
	}
	if (j->req.attr_present)
		attr_from_wire(j->req.attr, &attr);
	ret = pool_set_attr(p->pool, j->req.attr_present ? &attr : NULL, an->err, sizeof(an->err));
	if (ret)
		fail(&an->ans, ret, an->err);
}

/* do_remove -- REMOVE: the part files (and the set file) unlinked */
static void
do_remove(struct rpmemd *d, const struct job *j, struct answer *an)
{
	int ret;

	if ((ret = pool_remove(&d->dir, j->req.name, (int)j->req.flags, an->err, sizeof(an->err))))
		fail_pool(an, ret, j->req.name);
}

/* printable -- text for a log line: bytes a terminal would act on become '?' */
static void
printable(const char *in, char *out, size_t size)
{
	size_t i = 0;

	for (; in[i] && i + 1 < size; i++)
		out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
	out[i] = '\0';
}

/* subject -- what a request is about, for the log: its set name, or the name of its pool */
static void
subject(struct rpmemd *d, const struct job *j, char *out, size_t size)
{
	const struct open_pool *p;

	if (j->req.kind == RPMEM_PROTO_CLOSE || j->req.kind == RPMEM_PROTO_SET_ATTR)
		printable((p = pool_find(d, j->req.pool_id)) ? p->name : "(no such pool)", out,
			  size);
	else
		printable(j->req.name, out, size);
}

/* serve -- run one request and answer it */
static void
serve(struct rpmemd *d, const struct job *j)
{
	struct answer an = {.ans.kind = j->req.kind};
	char what[RPMEM_PROTO_NAME_MAX + 1], why[POOL_ERR_MAX];

	subject(d, j, what, sizeof(what));
	if (j->req.kind == RPMEM_PROTO_CREATE || j->req.kind == RPMEM_PROTO_OPEN)
		do_open(d, j, &an);
	else if (j->req.kind == RPMEM_PROTO_CLOSE)
		do_close(d, j, &an);
	else if (j->req.kind == RPMEM_PROTO_SET_ATTR)
		do_set_attr(d, j, &an);
	else
		do_remove(d, j, &an);
	/* the log has the whole message, which the client may not have had (fail_pool()) */
	printable(an.err[0] ? an.err : an.ans.msg, why, sizeof(why));
	if (an.ans.status)
		d->log(RPMAF_LOG_WARNING, "client #%llu: %s %s: %s: %s",
		       (unsigned long long)j->conn_id, rpmem_proto_kind_name(j->req.kind), what,
		       strerror((int)an.ans.status), why);
	else
		d->log(RPMAF_LOG_INFO, "client #%llu: %s %s: done (pool %016llx)",
		       (unsigned long long)j->conn_id, rpmem_proto_kind_name(j->req.kind), what,
		       (unsigned long long)(an.ans.pool_id ? an.ans.pool_id : j->req.pool_id));
	send_answer(j->call, &an.ans);
}

/* close_owned -- the connection conn_id went: close the pools opened through it */
static void
close_owned(struct rpmemd *d, uint64_t conn_id)
{
	char err[POOL_ERR_MAX], name[RPMEM_PROTO_NAME_MAX + 1];
	struct open_pool *p = d->pools, *next;

	for (; p; p = next) {
		next = p->next;
		if (p->owner != conn_id)
			continue;
		printable(p->name, name, sizeof(name));
		d->log(RPMAF_LOG_NOTICE, "client #%llu gone: pool %s (%016llx) closed",
		       (unsigned long long)conn_id, name, (unsigned long long)p->id);
		if (pool_drop(d, p, err, sizeof(err)))
			d->log(RPMAF_LOG_ERROR, "closing pool: %s", err);
	}
}

/* control -- the control thread: the jobs in the order they came */
static void *
control(void *arg)
{
	struct rpmemd *d = arg;
	struct job *j;

	while ((j = pop(d))) {
		if (j->call)
			serve(d, j);
		else
			close_owned(d, j->conn_id);
		free(j);
	}
	return NULL;
}

/*
 * dir_open -- rpmem.poolset_dir opened for good; one warning when others
 * than the daemon's user and root may write it or own it: whoever writes
 * there may plant a set file (owned by them, it is refused; but they may
 * also rename or remove the administrator's own files)
 */
static int
dir_open(struct rpmemd *d)
{
	const char *path = d->cfg->rpmem.poolset_dir;
	char err[BENEATH_ERR_MAX];
	uid_t euid = geteuid();
	struct stat st;

	if (beneath_dir_open(path, &d->dir, err, sizeof(err))) {
		d->log(RPMAF_LOG_ERROR, "rpmem.poolset_dir: %s", err);
		return RPMAF_E_SYS;
	}
	if (fstat(d->dir.fd, &st)) {
		d->log(RPMAF_LOG_ERROR, "rpmem.poolset_dir: %s: cannot stat: %s", path,
		       strerror(errno));
		beneath_dir_close(&d->dir);
		return RPMAF_E_SYS;
	}
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) || (st.st_uid != euid && st.st_uid != 0))
		d->log(RPMAF_LOG_WARNING,
		       "rpmem.poolset_dir %s is not private: mode %04o, owner uid %u (the daemon "
		       "runs as uid %u): whoever may write it can rename or remove pool set files "
		       "and parts; make it owned by the daemon's user, mode 0700",
		       path, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)euid);
	return 0;
}

/* see daemon.h */
int
rpmemd_new(const struct rpmaf_cfg *cfg, struct rpmaf_server *srv, rpmemd_log_fn log,
	   struct rpmemd **d_ptr)
{
	struct rpmemd *d;
	int ret = RPMAF_E_SYS;

	if (!cfg || !srv || !log || !d_ptr || !cfg->rpmem.enabled)
		return RPMAF_E_INVAL;
	if (!(d = calloc(1, sizeof(*d))))
		return RPMAF_E_NOMEM;
	d->cfg = cfg;
	d->srv = srv;
	d->log = log;
	if ((ret = dir_open(d))) {
		free(d);
		return ret;
	}
	for (unsigned k = RPMEM_PROTO_CREATE; k <= RPMEM_PROTO_REMOVE; k++) {
		if ((ret = rpmaf_server_call_handler_add(srv, RPMEM_PROTO_HANDLER(k), on_call, d)))
			goto err_free;
	}
	if ((ret = rpmaf_server_on_conn_closed(srv, on_closed, d)))
		goto err_free;
	ret = RPMAF_E_SYS;
	if (pthread_mutex_init(&d->lock, NULL))
		goto err_free;
	if (pthread_cond_init(&d->cond, NULL))
		goto err_lock;
	if (pthread_create(&d->thread, NULL, control, d))
		goto err_cond;
	*d_ptr = d;
	return 0;

err_cond:
	pthread_cond_destroy(&d->cond);
err_lock:
	pthread_mutex_destroy(&d->lock);
err_free:
	beneath_dir_close(&d->dir);
	free(d);
	return ret;
}

/* see daemon.h */
void
rpmemd_delete(struct rpmemd **d_ptr)
{
	struct rpmemd *d = *d_ptr;
	char err[POOL_ERR_MAX], name[RPMEM_PROTO_NAME_MAX + 1];

	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->stop = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	while (d->pools) {
		printable(d->pools->name, name, sizeof(name));
		d->log(RPMAF_LOG_NOTICE, "pool %s closed at exit", name);
		if (pool_drop(d, d->pools, err, sizeof(err)))
			d->log(RPMAF_LOG_ERROR, "closing pool: %s", err);
	}
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	beneath_dir_close(&d->dir);
	free(d);
	*d_ptr = NULL;
}

/* see daemon.h */
unsigned
rpmemd_pools_open(const struct rpmemd *d)
{
	return atomic_load_explicit(&((struct rpmemd *)d)->npools, memory_order_relaxed);
}
