// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * session.c -- the control protocol of one pool connection, client side:
 * HELLO, AUTH when the target asks for it, the paged region list into the
 * pool's region table (a full resync: regions of the target no longer
 * listed are dropped), the paged list of the target's idempotent handlers
 * (protocol version 2), then announcements and the replies that complete
 * operations. Every function runs on the connection's worker thread, most
 * from the channel's on_msg.
 */

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../proto/list.h"
#include "pool.h"

/* the name this client gives itself in AUTH */
#define CLIENT_NAME "rpmaf-pool"

/* status_code -- the operation's status for a reply's wire status */
static int
status_code(uint32_t status)
{
	switch (status) {
	case RPMAF__PROTO_S_OK:
		return 0;
	case RPMAF__PROTO_S_NOT_FOUND:
	case RPMAF__PROTO_S_STALE:
	case RPMAF__PROTO_S_NO_HANDLER:
		return RPMAF_E_NOENT;
	default:
		return RPMAF_E_REMOTE;
	}
}

/* send_hdr -- the header of a request of this session, with a fresh req_id */
static void
msg_init(struct rpmaf__pool_conn *pc, struct rpmaf__proto_msg *m, unsigned type)
{
	memset(m, 0, sizeof(*m));
	m->hdr.version = pc->sess.version ? pc->sess.version : RPMAF__PROTO_VERSION_HELLO;
	m->hdr.type = (uint8_t)type;
	m->hdr.req_id = pc->next_req_id++;
}

/* rpmaf__pool_session_start -- a fresh session: HELLO with this side's sizes */
int
rpmaf__pool_session_start(struct rpmaf__pool_conn *pc)
{
	const struct rpmaf_cfg *cfg = pc->pool->cfg;
	struct rpmaf__proto_params own = {(uint32_t)cfg->queues.msg_size, cfg->queues.msg_credits,
					  0, 0};
	uint8_t nonce[RPMAF__PROTO_NONCE_SIZE];
	struct rpmaf__proto_err err;
	struct rpmaf__proto_msg m;

	if (rpmaf__proto_auth_nonce(nonce))
		return RPMAF_E_SYS;
	if (rpmaf__proto_client_init(&pc->sess, pc->pool->has_key ? &pc->pool->key : NULL,
				     CLIENT_NAME, nonce, &err))
		return RPMAF_E_PROTO;
	if (rpmaf__proto_client_hello(&pc->sess, &own, pc->next_req_id++, &m))
		return RPMAF_E_PROTO;
	return rpmaf__ctl_send(&pc->ctl, &m);
}

/*
 * rpmaf__pool_session_kick -- send the next page request of the list being
 * read (regions, or handlers) if it waits
 */
int
rpmaf__pool_session_kick(struct rpmaf__pool_conn *pc)
{
	struct rpmaf__proto_msg m;
	int ret;

	if (!pc->list_pending || (pc->phase != PH_LIST && pc->phase != PH_HANDLERS))
		return 0;
	if (pc->phase == PH_LIST) {
		msg_init(pc, &m, RPMAF__PROTO_T_REGION_LIST_REQ);
		m.body.list_req.start = pc->list_next;
		m.body.list_req.max_entries = 0;
	} else {
		msg_init(pc, &m, RPMAF__PROTO_T_HANDLER_LIST_REQ);
		m.body.handler_list_req.start = pc->hl_next;
	}
	ret = rpmaf__ctl_send(&pc->ctl, &m);
	if (ret == RPMAF_E_AGAIN)
		return 0;
	if (ret == 0)
		pc->list_pending = false;
	return ret;
}

/* refuse -- the session refused m (ret, err): tell the peer, say why, fail */
static int
refuse(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_msg *m, int ret,
       const struct rpmaf__proto_err *err)
{
	struct rpmaf__pool_target *tg = &pc->pool->targets[pc->target];
	int code = RPMAF_E_PROTO;
	struct rpmaf__proto_msg out;

	if (ret == RPMAF__PROTO_E_AUTH || ret == RPMAF__PROTO_E_AUTH_MODE ||
	    (ret == RPMAF__PROTO_E_PEER && (m->body.error.status == RPMAF__PROTO_S_AUTH_FAILED ||
					    m->body.error.status == RPMAF__PROTO_S_AUTH_REQUIRED)))
		code = RPMAF_E_AUTH;
	if (ret != RPMAF__PROTO_E_PEER) {
		rpmaf__proto_session_error(&out, pc->sess.version, m->hdr.req_id,
					   rpmaf__proto_status_of(ret));
		(void)rpmaf__ctl_send(&pc->ctl, &out);
	}
	rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR, "pool: %s: session refused: %s", pc->peer,
		    err->msg);
	pc->fail_code = code;
	if (code == RPMAF_E_AUTH) {
		atomic_store(&tg->auth_failed, true);
		rpmaf__pool_notify(pc->pool);
	}
	return code;
}

/* list_begin -- ask for the region list from its first page */
static int
list_begin(struct rpmaf__pool_conn *pc)
{
	pc->phase = PH_LIST;
	pc->list_next = 0;
	pc->nseen = 0;
	pc->list_pending = true;
	return rpmaf__pool_session_kick(pc);
}

/*
 * hb_choose -- the heartbeats this side watches the target with: its own
 * (timeouts.heartbeat_*) when they find a silent target sooner than the
 * target's own settings would, the target's otherwise, so that a frozen or
 * cut-off target is found out within the bound this side was configured with
 */
static void
hb_choose(const struct rpmaf_cfg_timeouts *own, const struct rpmaf__proto_hello_reply *hr,
	  uint32_t *interval_ms, uint32_t *misses)
{
	uint64_t mine = (uint64_t)own->heartbeat_interval_ms * own->heartbeat_misses;
	uint64_t theirs = (uint64_t)hr->hb_interval_ms * hr->hb_misses;

	if (own->heartbeat_interval_ms && (!hr->hb_interval_ms || mine < theirs)) {
		*interval_ms = own->heartbeat_interval_ms;
		*misses = own->heartbeat_misses;
	} else {
		*interval_ms = hr->hb_interval_ms;
		*misses = hr->hb_misses;
	}
}

/* on_hello_reply -- the target's sizes, window and heartbeat; then AUTH or the list */
static int
on_hello_reply(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_hello_reply *hr)
{
	struct rpmaf__proto_msg m;
	uint32_t hb_ms, hb_misses;
	int ret;

	if ((ret = rpmaf__ctl_start(&pc->ctl, hr->credits, hr->max_msg_size, hr->version)))
		return pc->fail_code = RPMAF_E_PROTO;
	hb_choose(&pc->pool->cfg->timeouts, hr, &hb_ms, &hb_misses);
	if (rpmaf__ctl_heartbeat_start(&pc->ctl, hb_ms, hb_misses))
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
			    "pool: %s: no room for the heartbeat timer", pc->peer);
	if (pc->sess.state != RPMAF__PROTO_CLI_NEED_AUTH)
		return list_begin(pc);
	if (rpmaf__proto_client_auth(&pc->sess, pc->next_req_id++, &m))
		return pc->fail_code = RPMAF_E_PROTO;
	pc->phase = PH_AUTH;
	return rpmaf__ctl_send(&pc->ctl, &m);
}

/* seen_add -- note a region listed in this listing */
static int
seen_add(struct rpmaf__pool_conn *pc, const char *name, size_t len)
{
	if (pc->nseen == pc->seen_max) {
		uint32_t max = pc->seen_max ? pc->seen_max * 2 : 16;
		void *p = realloc(pc->seen, (size_t)max * sizeof(*pc->seen));

		if (!p)
			return RPMAF_E_NOMEM;
		pc->seen = p;
		pc->seen_max = max;
	}
	memcpy(pc->seen[pc->nseen], name, len);
	pc->seen[pc->nseen++][len] = '\0';
	return 0;
}

/* a region of the target not listed any more */
struct stale {
	struct rpmaf__pool_conn *pc;
	char (*names)[RPMAF__REGTAB_NAME_MAX + 1];
	uint64_t *gens;
	uint32_t n, max;
};

/* stale_cb -- collect the target's entries the listing did not name */
static int
stale_cb(const struct rpmaf__regtab_entry *e, void *arg)
{
	struct stale *s = arg;

	/* newer than the listing's table: added after it (an announcement) */
	if (e->target != s->pc->target || e->generation > s->pc->list_gen || s->n == s->max)
		return 0;
	for (uint32_t i = 0; i < s->pc->nseen; i++)
		if (strcmp(s->pc->seen[i], e->name) == 0)
			return 0;
	memcpy(s->names[s->n], e->name, sizeof(e->name));
	s->gens[s->n++] = e->generation;
	return 0;
}

/*
 * drop_unlisted -- after a full listing, the regions of this target the
 * listing did not name, and older than its table, were removed while the
 * connection was down (the server's table generation comes from the same
 * counter as its regions': doc/PROTOCOL.md)
 */
static void
drop_unlisted(struct rpmaf__pool_conn *pc)
{
	struct stale s = {pc, NULL, NULL, 0, 0};

	rpmaf__regtab_read_lock();
	s.max = (uint32_t)rpmaf__regtab_count(pc->pool->tab);
	rpmaf__regtab_read_unlock();
	if (s.max == 0)
		return;
	s.names = calloc(s.max, sizeof(*s.names));
	s.gens = calloc(s.max, sizeof(*s.gens));
	if (s.names && s.gens) {
		rpmaf__regtab_read_lock();
		(void)rpmaf__regtab_foreach(pc->pool->tab, stale_cb, &s);
		rpmaf__regtab_read_unlock();
		for (uint32_t i = 0; i < s.n; i++)
			(void)rpmaf__regtab_remove(pc->pool->tab, s.names[i], strlen(s.names[i]),
						   s.gens[i] + 1);
	}
	free(s.gens);
	free(s.names);
}

/* list_done -- the table is in sync: the connection is healthy */
static void
list_done(struct rpmaf__pool_conn *pc)
{
	struct rpmaf_pool *pool = pc->pool;
	struct rpmaf__pool_target *tg = &pool->targets[pc->target];
	uint32_t peer = pc->ctl.peer_msg_size, own = (uint32_t)pool->cfg->queues.msg_size;

	/*
	 * tombstones stay (one per removed name, until the name comes back):
	 * another connection may still deliver an older announcement, which
	 * only the tombstone keeps from bringing the region back
	 */
	drop_unlisted(pc);
	pc->phase = PH_READY;
	if (pc->ever_ready)
		rpmaf__ctrs_add(&pc->ctrs, RPMAF__CTR_RECONNECTS, 1);
	pc->ever_ready = pc->was_ready = true;
	atomic_store_explicit(&tg->max_req,
			      (peer && peer < own ? peer : own) - RPMAF__PROTO_APP_REQ_PAYLOAD_OFF,
			      memory_order_relaxed);
	atomic_store(&tg->auth_failed, false);
	atomic_store_explicit(&pc->healthy, true, memory_order_release);
	rpmaf__wlog(pool->log, RPMAF_LOG_INFO,
		    "pool: %s: ready (%u region%s listed, %u idempotent handler%s; protocol "
		    "version %u)",
		    pc->peer, pc->nseen, pc->nseen == 1 ? "" : "s", pc->nidem,
		    pc->nidem == 1 ? "" : "s", (unsigned)pc->sess.version);
	rpmaf__pool_notify(pool);
}

/* ready -- the session's lists are read: healthy; what waited for it goes, then what queued */
static int
ready(struct rpmaf__pool_conn *pc)
{
	list_done(pc);
	rpmaf__pool_wait_flush(pc);
	rpmaf__pool_pump(pc);
	return 0;
}

/* handlers_begin -- version 2: ask for the target's handlers with flags, from the first page */
static int
handlers_begin(struct rpmaf__pool_conn *pc)
{
	pc->phase = PH_HANDLERS;
	pc->hl_next = 0;
	pc->nidem = 0;
	pc->list_pending = true;
	return rpmaf__pool_session_kick(pc);
}

/* idem_add -- handler id, after every one taken so far, is idempotent */
static int
idem_add(struct rpmaf__pool_conn *pc, uint32_t id)
{
	if (pc->nidem == pc->idem_max) {
		uint32_t max = pc->idem_max ? pc->idem_max * 2 : 16;
		uint32_t *p = realloc(pc->idem, (size_t)max * sizeof(*p));

		if (!p)
			return RPMAF_E_NOMEM;
		pc->idem = p;
		pc->idem_max = max;
	}
	pc->idem[pc->nidem++] = id;
	return 0;
}

/*
 * on_handlers -- one page of the handler list: the idempotent ones noted
 * (in increasing order across pages too), the next page asked for, or the
 * connection ready
 */
static int
on_handlers(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_handler_list *l)
{
	uint32_t id, flags;

	if (pc->phase != PH_HANDLERS || l->start != pc->hl_next)
		return pc->fail_code = RPMAF_E_PROTO;
	for (uint32_t i = 0; i < l->count; i++) {
		rpmaf__proto_handler_entry(l, i, &id, &flags);
		if (pc->nidem && id <= pc->idem[pc->nidem - 1]) {
			rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR,
				    "pool: %s: HANDLER_LIST: handler %u after %u (increasing)",
				    pc->peer, (unsigned)id, (unsigned)pc->idem[pc->nidem - 1]);
			return pc->fail_code = RPMAF_E_PROTO;
		}
		if ((flags & RPMAF__PROTO_HANDLER_IDEMPOTENT) && idem_add(pc, id))
			return pc->fail_code = RPMAF_E_NOMEM;
	}
	pc->hl_next = l->start + l->count;
	if (pc->hl_next < l->total && l->count) {
		pc->list_pending = true;
		return rpmaf__pool_session_kick(pc);
	}
	return ready(pc);
}

/* list_apply -- one listed region into the table (an older entry is replaced) */
static void
list_apply(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_region *reg)
{
	int ret = rpmaf__regtab_apply(pc->pool->tab, pc->target, reg);

	if (ret && ret != RPMAF__REGTAB_E_STALE)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
			    "pool: %s: region %.*s not taken (%d)", pc->peer, (int)reg->name_len,
			    reg->name, ret);
}

/* on_list -- one page of the region list: apply it, ask for the next or finish */
static int
on_list(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_region_list *l)
{
	struct rpmaf__proto_list_iter it;
	struct rpmaf__proto_region reg;
	int ret;

	if (pc->phase != PH_LIST || l->start != pc->list_next)
		return pc->fail_code = RPMAF_E_PROTO;
	if (l->start == 0)
		pc->list_gen = l->table_generation;
	else if (l->table_generation != pc->list_gen)
		return list_begin(pc); /* the table changed between pages */
	rpmaf__proto_list_iter_init(&it, l);
	while ((ret = rpmaf__proto_list_next(&it, &reg)) == 1) {
		list_apply(pc, &reg);
		if (seen_add(pc, reg.name, reg.name_len))
			return pc->fail_code = RPMAF_E_NOMEM;
	}
	pc->list_next = l->start + l->count;
	if (pc->list_next < l->total && l->count) {
		pc->list_pending = true;
		return rpmaf__pool_session_kick(pc);
	}
	if (pc->sess.version >= RPMAF__PROTO_VERSION_HANDLERS)
		return handlers_begin(pc);
	return ready(pc);
}

/*
 * on_announce -- a region added, changed or removed on the target; a
 * change replaces the entry in one step and continues it (operations
 * submitted against the old generation may still be posted)
 */
static void
on_announce(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_announce *a)
{
	bool removed = a->event == RPMAF__PROTO_EV_REMOVED;
	const struct rpmaf__proto_region *reg = &a->region;
	int ret = a->event == RPMAF__PROTO_EV_CHANGED
		      ? rpmaf__regtab_change(pc->pool->tab, pc->target, reg)
		      : rpmaf__regtab_announce(pc->pool->tab, pc->target, reg, removed);

	/*
	 * the table no longer has the old registration for this connection's
	 * later posts: say so at once, the server deregisters it (the region
	 * removed, or its old registration after a change) once every client has
	 */
	if (a->event != RPMAF__PROTO_EV_ADDED)
		rpmaf__ctl_credit_soon(&pc->ctl);
	if (ret && ret != RPMAF__REGTAB_E_STALE)
		rpmaf__wlog(pc->pool->log, RPMAF_LOG_WARNING,
			    "pool: %s: announcement of %.*s not applied (%d)", pc->peer,
			    (int)reg->name_len, reg->name, ret);
}

/*
 * wrong_answer -- m answers a request whose operation waits for another
 * type of answer (an APP_REPLY to a PERSIST_REQ, a PERSIST_REPLY to a
 * call): the target breaks the protocol, and the operation's fields of the
 * other kind (a call's reply buffer, which a persist does not have) must
 * not be used. The session fails.
 */
static int
wrong_answer(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_msg *m)
{
	rpmaf__wlog(pc->pool->log, RPMAF_LOG_ERROR,
		    "pool: %s: %s answers request %llu, which is not %s", pc->peer,
		    rpmaf__proto_type_str(m->hdr.type), (unsigned long long)m->hdr.req_id,
		    m->hdr.type == RPMAF__PROTO_T_APP_REPLY ? "a call" : "a persist");
	return pc->fail_code = RPMAF_E_PROTO;
}

/* on_app_reply -- a call's reply: its payload into the caller's buffer */
static int
on_app_reply(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_msg *m)
{
	const struct rpmaf__proto_app_reply *r = &m->body.app_reply;
	struct rpmaf__pool_op *o = rpmaf__pool_op_find(pc, m->hdr.req_id);

	if (!o)
		return 0;
	if (o->kind != POOL_K_CALL)
		return wrong_answer(pc, m);
	if (r->status != RPMAF__PROTO_S_OK) {
		rpmaf__pool_op_complete(pc, o, status_code(r->status));
		return 0;
	}
	if (r->payload_len > o->u.call.reply_max) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_REMOTE);
		return 0;
	}
	if (r->payload_len)
		memcpy(o->u.call.reply, r->payload, r->payload_len);
	o->reply_len = r->payload_len;
	rpmaf__pool_op_complete(pc, o, 0);
	return 0;
}

/* on_reply -- a reply that is only a status (PERSIST_REPLY) or an ERROR */
static int
on_reply(struct rpmaf__pool_conn *pc, const struct rpmaf__proto_msg *m)
{
	struct rpmaf__pool_op *o = rpmaf__pool_op_find(pc, m->hdr.req_id);

	if (m->hdr.type == RPMAF__PROTO_T_PERSIST_REPLY) {
		if (o && o->kind == POOL_K_CALL)
			return wrong_answer(pc, m);
		if (o)
			rpmaf__pool_op_complete(pc, o, status_code(m->body.persist_reply.status));
		return 0;
	}
	rpmaf__wlog(pc->pool->log, RPMAF_LOG_NOTICE, "pool: %s: ERROR %s: %.*s", pc->peer,
		    rpmaf__proto_status_str(m->body.error.status), (int)m->body.error.reason_len,
		    m->body.error.reason);
	if (o) {
		rpmaf__pool_op_complete(pc, o, RPMAF_E_REMOTE);
		return 0;
	}
	return pc->fail_code = RPMAF_E_PROTO; /* the target closes the session */
}

/* rpmaf__pool_session_msg -- every message but the channel's own */
int
rpmaf__pool_session_msg(struct rpmaf__ctl *c, const struct rpmaf__proto_msg *m, void *ctx)
{
	struct rpmaf__pool_conn *pc = ctx;
	struct rpmaf__proto_err err = {0, ""};
	int ret;

	(void)c;
	if (pc->phase == PH_FAILING)
		return 0;
	if ((ret = rpmaf__proto_client_recv(&pc->sess, m, &err)))
		return refuse(pc, m, ret, &err);
	switch (m->hdr.type) {
	case RPMAF__PROTO_T_HELLO_REPLY:
		return on_hello_reply(pc, &m->body.hello_reply);
	case RPMAF__PROTO_T_AUTH_REPLY:
		return list_begin(pc);
	case RPMAF__PROTO_T_REGION_LIST:
		return on_list(pc, &m->body.list);
	case RPMAF__PROTO_T_ANNOUNCE:
		on_announce(pc, &m->body.announce);
		return 0;
	case RPMAF__PROTO_T_APP_REPLY:
		return on_app_reply(pc, m);
	case RPMAF__PROTO_T_HANDLER_LIST:
		return on_handlers(pc, &m->body.handler_list);
	case RPMAF__PROTO_T_PERSIST_REPLY:
	case RPMAF__PROTO_T_ERROR:
		return on_reply(pc, m);
	default:
		return 0;
	}
}
