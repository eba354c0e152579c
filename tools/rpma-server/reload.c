/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * reload.c -- a configuration loaded again, applied to a running server
 * (see reload.h).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "reload.h"

/* str_eq -- two optional strings are equal */
static bool
str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* region_find -- the region of cfg named name, or NULL */
static const struct rpmaf_cfg_region *
region_find(const struct rpmaf_cfg *cfg, const char *name)
{
	for (uint32_t i = 0; i < cfg->nregions; i++)
		if (strcmp(cfg->regions[i].name, name) == 0)
			return &cfg->regions[i];
	return NULL;
}

/* region_same -- whether a region is exported the same way in both files */
static bool
region_same(const struct rpmaf_cfg_region *a, const struct rpmaf_cfg_region *b)
{
	return a->size == b->size && a->backing == b->backing && str_eq(a->path, b->path) &&
	       a->create == b->create && a->usage == b->usage && a->persistence == b->persistence &&
	       a->direct_write == b->direct_write;
}

/* add_new -- add the regions only next has; on a failure remove those added */
static int
add_new(struct rpmaf_server *srv, const struct rpmaf_cfg *cur, const struct rpmaf_cfg *next,
	reload_log_fn log)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < next->nregions; i++) {
		const struct rpmaf_cfg_region *r = &next->regions[i];

		if (region_find(cur, r->name))
			continue;
		if ((ret = rpmaf_server_region_add(srv, r)) != 0) {
			log(RPMAF_LOG_ERROR, "reload: region %s cannot be added: %s", r->name,
			    rpmaf_err_str(ret));
			break;
		}
	}
	if (!ret)
		return 0;
	while (i-- > 0)
		if (!region_find(cur, next->regions[i].name))
			(void)rpmaf_server_region_remove(srv, next->regions[i].name);
	return ret;
}

/*
 * same_memory -- whether b describes the memory of a again (the same
 * backing, file and persistence), so that a change of its size or usage
 * is made in place
 */
static bool
same_memory(const struct rpmaf_cfg_region *a, const struct rpmaf_cfg_region *b)
{
	return a->backing == b->backing && str_eq(a->path, b->path) &&
	       a->persistence == b->persistence && a->direct_write == b->direct_write;
}

/*
 * change_in_place -- resize region r or change its usage, announced to the
 * clients as changed: what they have in flight completes (old is what was
 * exported)
 */
static void
change_in_place(struct rpmaf_server *srv, const struct rpmaf_cfg_region *old,
		const struct rpmaf_cfg_region *r, reload_log_fn log)
{
	int ret = rpmaf_server_region_change(srv, r);

	if (ret == 0) {
		log(RPMAF_LOG_NOTICE,
		    "reload: region %s changed: %llu bytes (were %llu), usage 0x%x (was 0x%x)",
		    r->name, (unsigned long long)r->size, (unsigned long long)old->size, r->usage,
		    old->usage);
		return;
	}
	log(RPMAF_LOG_ERROR, "reload: region %s cannot be changed (%s): the old one is kept",
	    r->name, rpmaf_err_str(ret));
}

/*
 * replace -- export region r again, its memory another (backing, file,
 * persistence): a removal and an addition; the old one is restored when the
 * new one cannot be added
 */
static void
replace(struct rpmaf_server *srv, const struct rpmaf_cfg_region *old,
	const struct rpmaf_cfg_region *r, reload_log_fn log)
{
	int ret;

	(void)rpmaf_server_region_remove(srv, r->name);
	if ((ret = rpmaf_server_region_add(srv, r)) == 0) {
		log(RPMAF_LOG_NOTICE, "reload: region %s replaced (removed and added again)",
		    r->name);
		return;
	}
	log(RPMAF_LOG_ERROR, "reload: region %s cannot be replaced (%s): the old one is kept",
	    r->name, rpmaf_err_str(ret));
	if ((ret = rpmaf_server_region_add(srv, old)) != 0)
		log(RPMAF_LOG_ERROR, "reload: region %s cannot be restored either: %s", r->name,
		    rpmaf_err_str(ret));
}

/*
 * replace_changed -- apply the regions whose attributes changed: in place
 * when only the size, the usage or create did, else removed and added again
 */
static void
replace_changed(struct rpmaf_server *srv, const struct rpmaf_cfg *cur, const struct rpmaf_cfg *next,
		reload_log_fn log)
{
	for (uint32_t i = 0; i < next->nregions; i++) {
		const struct rpmaf_cfg_region *r = &next->regions[i];
		const struct rpmaf_cfg_region *old = region_find(cur, r->name);

		if (!old || region_same(old, r))
			continue;
		if (same_memory(old, r))
			change_in_place(srv, old, r, log);
		else
			replace(srv, old, r, log);
	}
}

/* remove_gone -- stop exporting the regions next no longer has */
static void
remove_gone(struct rpmaf_server *srv, const struct rpmaf_cfg *cur, const struct rpmaf_cfg *next,
	    reload_log_fn log)
{
	for (uint32_t i = 0; i < cur->nregions; i++) {
		const char *name = cur->regions[i].name;

		if (region_find(next, name))
			continue;
		if (rpmaf_server_region_remove(srv, name) == 0)
			log(RPMAF_LOG_NOTICE, "reload: region %s removed", name);
	}
}

/* note_restart -- say which sections changed that only a restart applies */
static void
note_restart(const struct rpmaf_cfg *cur, const struct rpmaf_cfg *next, reload_log_fn log)
{
	bool listen = cur->listen.port != next->listen.port ||
		      !str_eq(cur->listen.address, next->listen.address) ||
		      cur->listen.backlog != next->listen.backlog ||
		      cur->listen.max_connections != next->listen.max_connections;
	bool workers = cur->workers.count != next->workers.count ||
		       cur->workers.polling != next->workers.polling ||
		       cur->workers.spin_us != next->workers.spin_us ||
		       cur->workers.batch != next->workers.batch;
	const struct rpmaf_cfg_queues *a = &cur->queues, *b = &next->queues;
	bool queues = a->sq != b->sq || a->rq != b->rq || a->cq != b->cq || a->rcq != b->rcq ||
		      a->srq_rq != b->srq_rq || a->srq_rcq != b->srq_rcq ||
		      a->inline_size != b->inline_size || a->msg_size != b->msg_size ||
		      a->msg_credits != b->msg_credits;
	bool auth = !str_eq(cur->auth.key_file, next->auth.key_file);

	if (listen || workers || queues || auth)
		log(RPMAF_LOG_WARNING, "reload: %s%s%s%schanged: applied at the next restart only",
		    listen ? "listen " : "", workers ? "workers " : "", queues ? "queues " : "",
		    auth ? "auth " : "");
}

/* see reload.h */
int
reload_apply(struct rpmaf_server *srv, const struct rpmaf_cfg *cur, const struct rpmaf_cfg *next,
	     reload_log_fn log)
{
	int ret = add_new(srv, cur, next, log);

	if (ret)
		return ret;
	for (uint32_t i = 0; i < next->nregions; i++)
		if (!region_find(cur, next->regions[i].name))
			log(RPMAF_LOG_NOTICE, "reload: region %s added", next->regions[i].name);
	replace_changed(srv, cur, next, log);
	remove_gone(srv, cur, next, log);
	note_restart(cur, next, log);
	return 0;
}
