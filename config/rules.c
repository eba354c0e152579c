/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * rules.c -- rules between keys. A size that cannot work is refused with the
 * arithmetic that shows why: which numbers were multiplied or added and what
 * the least workable value is.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "path.h"
#include "rules.h"
#include "schema.h"

/* the fixed bounds that hold without device limits (as in the key table) */
#define FIXED_QP_WR  32768
#define FIXED_CQE    4194304
#define FIXED_INLINE 1024

struct rules {
	struct rpmaf__cfg_diag *d;
	const struct rpmaf__cfg_node *root;
	struct rpmaf_cfg *cfg;
	const struct rpmaf_cfg_limits *lim; /* all zero when none were given */
	char conns_why[192];		    /* how conns_per_worker was computed */
};

/* a bound: the smaller of the fixed one and the device's, and what to call it */
struct rules_cap {
	uint64_t max;
	char what[48];
};

/* see rules.h */
int
rpmaf__cfg_rules_fail(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
		      const char *path, const char *fmt, ...)
{
	const struct rpmaf__cfg_node *nearest;
	const struct rpmaf__cfg_node *node = rpmaf__cfg_path_find(root, path, &nearest);
	char what[RPMAF_CFG_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	/* a scalar is shown where its value is, a mapping or list where its key is */
	if (node && node->kind == RPMAF__CFG_SCALAR)
		nearest = node;
	return rpmaf__cfg_diag_fail(d, RPMAF_E_CONFIG, nearest->pos, path, "%s", what);
}

#define RULE_FAIL(r, path, ...) rpmaf__cfg_rules_fail((r)->d, (r)->root, path, __VA_ARGS__)

/* rules_given -- whether the file (or an override) sets the key at path */
static bool
rules_given(const struct rules *r, const char *path)
{
	return rpmaf__cfg_path_find(r->root, path, NULL) != NULL;
}

/* plural -- "s" unless n is 1 */
static const char *
plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* rules_cap -- the bound from the fixed one and the device's limit (0: unknown) */
static struct rules_cap
rules_cap(uint64_t fixed, uint64_t limit, const char *limit_name)
{
	struct rules_cap c = {fixed, "the fixed bound"};

	if (limit && limit < fixed) {
		c.max = limit;
		snprintf(c.what, sizeof(c.what), "the device's %s", limit_name);
	}
	return c;
}

/* rules_workers -- CPU list against the count and the host; spin_us only when adaptive */
static int
rules_workers(struct rules *r)
{
	struct rpmaf_cfg_workers *w = &r->cfg->workers;
	static const char *const polling[] = {"busy", "adaptive", "event"};
	char path[32];

	if (w->ncpus && w->ncpus != w->count)
		return RULE_FAIL(r, "workers.cpus",
				 "has %u CPU%s for workers.count %u (one CPU per worker)", w->ncpus,
				 w->ncpus == 1 ? "" : "s", w->count);
	for (uint32_t i = 0; i < w->ncpus && r->lim->ncpus; i++) {
		if (w->cpus[i] < r->lim->ncpus)
			continue;
		snprintf(path, sizeof(path), "workers.cpus[%u]", i);
		return RULE_FAIL(r, path, "CPU %u is not on this host (a CPU number from 0 to %u)",
				 w->cpus[i], r->lim->ncpus - 1);
	}
	if (w->polling == RPMAF_POLLING_ADAPTIVE)
		return 0;
	if (rules_given(r, "workers.spin_us"))
		return RULE_FAIL(r, "workers.spin_us",
				 "set while workers.polling is %s (only adaptive polling spins)",
				 polling[w->polling]);
	w->spin_us = 0;
	return 0;
}

/* rules_conns -- connections per worker, and all connections against the device */
static int
rules_conns(struct rules *r)
{
	struct rpmaf_cfg *cfg = r->cfg;
	uint64_t listen = cfg->listen.enabled ? cfg->listen.max_connections : 0;
	uint64_t targets = 0;
	uint64_t total;
	size_t o = 0;

	for (uint32_t i = 0; i < cfg->ntargets; i++)
		targets += cfg->targets[i].connections;
	total = listen + targets;
	if (r->lim->max_qp && total > r->lim->max_qp)
		return RULE_FAIL(r, cfg->listen.enabled ? "listen.max_connections" : "targets",
				 "%" PRIu64 " connections in all (listen.max_connections %" PRIu64
				 " + targets[].connections %" PRIu64
				 ") exceed the device's max_qp (at most %u connections)",
				 total, listen, targets, r->lim->max_qp);
	cfg->conns_per_worker = (uint32_t)((total + cfg->workers.count - 1) / cfg->workers.count);
	if (cfg->conns_per_worker == 0) {
		cfg->conns_per_worker = 1;
		snprintf(
		    r->conns_why, sizeof(r->conns_why),
		    "; 1 connection per worker, the least, with no listen section and no targets");
		return 0;
	}
	o = (size_t)snprintf(r->conns_why, sizeof(r->conns_why),
			     "; %u connection%s per worker = ceil((", cfg->conns_per_worker,
			     plural(cfg->conns_per_worker));
	if (cfg->listen.enabled)
		o += (size_t)snprintf(r->conns_why + o, sizeof(r->conns_why) - o,
				      "listen.max_connections %" PRIu64 " + ", listen);
	snprintf(r->conns_why + o, sizeof(r->conns_why) - o,
		 "targets[].connections %" PRIu64 ") / workers.count %u)", targets,
		 cfg->workers.count);
	return 0;
}

/*
 * rules_size -- resolve the size at *size when "auto" to need, and check
 * need <= *size <= cap; why says how need was computed
 */
static int
rules_size(struct rules *r, const char *path, uint32_t *size, uint64_t need, const char *why,
	   struct rules_cap cap)
{
	if (*size == RPMAF__CFG_AUTO) {
		if (need > cap.max)
			return RULE_FAIL(r, path,
					 "auto gives %" PRIu64
					 " = %s, more than %s (at most %" PRIu64
					 ": fewer connections per worker or smaller queues)",
					 need, why, cap.what, cap.max);
		*size = (uint32_t)need;
		return 0;
	}
	if (*size < need)
		return RULE_FAIL(
		    r, path, "%u cannot hold what may be outstanding (at least %" PRIu64 " = %s)",
		    *size, need, why);
	if (*size > cap.max)
		return RULE_FAIL(r, path, "%u is more than %s (at most %" PRIu64 ")", *size,
				 cap.what, cap.max);
	return 0;
}

/* rules_srq -- a shared receive queue per worker and its completion queue */
static int
rules_srq(struct rules *r)
{
	struct rpmaf_cfg_queues *q = &r->cfg->queues;
	uint32_t conns = r->cfg->conns_per_worker;
	char why[320];
	int ret;

	if (rules_given(r, "queues.rq") || rules_given(r, "queues.rcq"))
		return RULE_FAIL(
		    r, rules_given(r, "queues.rq") ? "queues.rq" : "queues.rcq",
		    "set while the workers share a receive queue (leave it out, or set "
		    "queues.srq.rq: 0 to give each connection its own)");
	q->rq = 0;
	q->rcq = 0;
	snprintf(why, sizeof(why), "%u connection%s per worker × queues.messages.credits %u%s",
		 conns, plural(conns), q->msg_credits, r->conns_why);
	ret = rules_size(r, "queues.srq.rq", &q->srq_rq, (uint64_t)conns * q->msg_credits, why,
			 rules_cap(FIXED_QP_WR, r->lim->max_srq_wr, "max_srq_wr"));
	if (ret)
		return ret;
	snprintf(why, sizeof(why), "queues.srq.rq %u", q->srq_rq);
	return rules_size(r, "queues.srq.rcq", &q->srq_rcq, q->srq_rq, why,
			  rules_cap(FIXED_CQE, r->lim->max_cqe, "max_cqe"));
}

/* rules_own_rq -- a receive queue per connection and one completion queue per worker */
static int
rules_own_rq(struct rules *r)
{
	struct rpmaf_cfg_queues *q = &r->cfg->queues;
	uint32_t conns = r->cfg->conns_per_worker;
	char why[320];
	int ret;

	if (rules_given(r, "queues.srq.rcq"))
		return RULE_FAIL(
		    r, "queues.srq.rcq",
		    "set while queues.srq.rq is 0 (no shared receive queue to complete)");
	q->srq_rcq = 0;
	snprintf(why, sizeof(why), "queues.messages.credits %u", q->msg_credits);
	ret = rules_size(r, "queues.rq", &q->rq, q->msg_credits, why,
			 rules_cap(FIXED_QP_WR, r->lim->max_qp_wr, "max_qp_wr"));
	if (ret)
		return ret;
	snprintf(why, sizeof(why), "%u connection%s per worker × queues.rq %u%s", conns,
		 plural(conns), q->rq, r->conns_why);
	return rules_size(r, "queues.rcq", &q->rcq, (uint64_t)conns * q->rq, why,
			  rules_cap(FIXED_CQE, r->lim->max_cqe, "max_cqe"));
}

/* rules_queues -- every queue size resolved and able to hold what may be outstanding */
static int
rules_queues(struct rules *r)
{
	struct rpmaf_cfg_queues *q = &r->cfg->queues;
	struct rules_cap cap = rules_cap(FIXED_QP_WR, r->lim->max_qp_wr, "max_qp_wr");
	char why[320];
	int ret;

	if (q->sq > cap.max)
		return RULE_FAIL(r, "queues.sq", "%u is more than %s (at most %" PRIu64 ")", q->sq,
				 cap.what, cap.max);
	if (q->msg_credits > q->sq)
		return RULE_FAIL(r, "queues.messages.credits",
				 "%u is more than queues.sq %u (at most %u: each message in flight "
				 "holds a send queue entry)",
				 q->msg_credits, q->sq, q->sq);
	ret = q->srq_rq != 0 ? rules_srq(r) : rules_own_rq(r);
	if (ret)
		return ret;
	snprintf(why, sizeof(why), "%u connection%s per worker × queues.sq %u%s",
		 r->cfg->conns_per_worker, plural(r->cfg->conns_per_worker), q->sq, r->conns_why);
	ret = rules_size(r, "queues.cq", &q->cq, (uint64_t)r->cfg->conns_per_worker * q->sq, why,
			 rules_cap(FIXED_CQE, r->lim->max_cqe, "max_cqe"));
	if (ret)
		return ret;
	cap = rules_cap(FIXED_INLINE, r->lim->max_inline_data, "max_inline_data");
	if (q->inline_size > cap.max)
		return RULE_FAIL(r, "queues.inline", "%u is more than %s (at most %" PRIu64 ")",
				 q->inline_size, cap.what, cap.max);
	if (r->cfg->workers.batch > q->cq)
		return RULE_FAIL(
		    r, "workers.batch",
		    "%u is more than queues.cq %u (at most %u: a poll cannot take more "
		    "than a completion queue holds)",
		    r->cfg->workers.batch, q->cq, q->cq);
	return 0;
}

/* rules_targets -- target names unique */
static int
rules_targets(struct rules *r)
{
	const struct rpmaf_cfg *cfg = r->cfg;
	char path[48];

	for (uint32_t i = 1; i < cfg->ntargets; i++) {
		for (uint32_t j = 0; j < i; j++) {
			if (strcmp(cfg->targets[i].name, cfg->targets[j].name) != 0)
				continue;
			snprintf(path, sizeof(path), "targets[%u].name", i);
			return RULE_FAIL(r, path,
					 "\"%s\" is already the name of targets[%u] (a name of its "
					 "own for each target)",
					 cfg->targets[i].name, j);
		}
	}
	return 0;
}

/* rules_region_unique -- region i has a name and a file of its own */
static int
rules_region_unique(struct rules *r, uint32_t i)
{
	const struct rpmaf_cfg_region *regs = r->cfg->regions;
	char path[48];
	char quoted[RPMAF__CFG_PATH_MAX];

	for (uint32_t j = 0; j < i; j++) {
		if (strcmp(regs[i].name, regs[j].name) == 0) {
			snprintf(path, sizeof(path), "regions[%u].name", i);
			return RULE_FAIL(r, path,
					 "\"%s\" is already the name of regions[%u] (a name of its "
					 "own for each region)",
					 regs[i].name, j);
		}
		if (regs[i].path && regs[j].path && strcmp(regs[i].path, regs[j].path) == 0) {
			snprintf(path, sizeof(path), "regions[%u].backing.file", i);
			return RULE_FAIL(r, path,
					 "%s is already the file of regions[%u] (a file of its own "
					 "for each region)",
					 rpmaf__cfg_quote(quoted, sizeof(quoted), regs[i].path,
							  strlen(regs[i].path)),
					 j);
		}
	}
	return 0;
}

/* rules_region_persist -- persistence that the backing and direct_write allow */
static int
rules_region_persist(struct rules *r, uint32_t i)
{
	const struct rpmaf_cfg_region *reg = &r->cfg->regions[i];
	static const char *const method[] = {"auto", "apm", "gpspm"};
	char path[48];

	if (reg->backing == RPMAF_BACKING_ANONYMOUS && reg->persistence != RPMAF_PERSIST_AUTO) {
		snprintf(path, sizeof(path), "regions[%u].persistence", i);
		return RULE_FAIL(r, path,
				 "%s needs a file backing (anonymous memory is not persistent: "
				 "persistence auto, or backing: {file: PATH})",
				 method[reg->persistence]);
	}
	if (reg->backing == RPMAF_BACKING_ANONYMOUS && reg->direct_write) {
		snprintf(path, sizeof(path), "regions[%u].direct_write", i);
		return RULE_FAIL(r, path,
				 "true needs a file backing (anonymous memory is not persistent "
				 "memory)");
	}
	if (reg->persistence == RPMAF_PERSIST_APM && !reg->direct_write) {
		snprintf(path, sizeof(path), "regions[%u].persistence", i);
		return RULE_FAIL(r, path,
				 "apm needs direct_write: true (APM relies on remote writes "
				 "reaching PMem directly; gpspm or auto otherwise)");
	}
	return 0;
}

/* rules_regions -- names and files unique, persistence possible, sizes within the device */
static int
rules_regions(struct rules *r)
{
	const struct rpmaf_cfg *cfg = r->cfg;
	char path[48];
	char size[32];
	char max[32];
	int ret;

	for (uint32_t i = 0; i < cfg->nregions; i++) {
		if ((ret = rules_region_unique(r, i)) || (ret = rules_region_persist(r, i)))
			return ret;
		if (r->lim->max_mr_size == 0 || cfg->regions[i].size <= r->lim->max_mr_size)
			continue;
		snprintf(path, sizeof(path), "regions[%u].size", i);
		return RULE_FAIL(r, path, "%s is more than the device's max_mr_size (at most %s)",
				 rpmaf__cfg_size_str(cfg->regions[i].size, size, sizeof(size)),
				 rpmaf__cfg_size_str(r->lim->max_mr_size, max, sizeof(max)));
	}
	return 0;
}

/*
 * rules_misc -- backoff bounds in order; a Prometheus file written at an
 * interval; the target daemon's section complete
 */
static int
rules_misc(struct rules *r)
{
	const struct rpmaf_cfg *cfg = r->cfg;

	if (cfg->stats_prometheus_file && !cfg->stats.interval_ms)
		return RULE_FAIL(r, "stats.prometheus_file",
				 "needs stats.interval_ms above 0 (the file is written again "
				 "every interval, for a collector that reads it then)");
	if (cfg->reconnect.initial_ms > cfg->reconnect.max_ms)
		return RULE_FAIL(
		    r, "reconnect.initial_ms", "%u is more than reconnect.max_ms %u (at most %u)",
		    cfg->reconnect.initial_ms, cfg->reconnect.max_ms, cfg->reconnect.max_ms);
	if (!cfg->rpmem.enabled)
		return 0;
	if (!cfg->listen.enabled)
		return RULE_FAIL(r, "rpmem",
				 "the target daemon needs a listen section (listen.address to "
				 "accept connections on)");
	if (cfg->rpmem.persistence == RPMAF_PERSIST_APM && !cfg->rpmem.direct_write)
		return RULE_FAIL(r, "rpmem.persistence",
				 "apm needs rpmem.direct_write: true (APM relies on remote writes "
				 "reaching PMem directly; gpspm or auto otherwise)");
	return 0;
}

/* see rules.h */
int
rpmaf__cfg_rules_check(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
		       struct rpmaf_cfg *cfg, const struct rpmaf_cfg_limits *limits)
{
	static const struct rpmaf_cfg_limits none;
	struct rules r = {.d = d, .root = root, .cfg = cfg, .lim = limits ? limits : &none};
	int ret;

	if ((ret = rules_workers(&r)) || (ret = rules_conns(&r)) || (ret = rules_queues(&r)) ||
	    (ret = rules_targets(&r)) || (ret = rules_regions(&r)) || (ret = rules_misc(&r)))
		return ret;
	return 0;
}
