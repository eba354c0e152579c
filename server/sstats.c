// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * sstats.c -- a server's statistics written out as one JSON line or as
 * Prometheus text (rpmaf.h, rpmaf_server_stats_write()).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../stats/json.h"
#include "../stats/prom.h"
#include "../workers/worker.h"
#include "server.h"

/* what one write reads: the counters and the merged histograms */
struct snap {
	struct rpmaf_server_stats st;
	uint64_t uptime_ms;
	const char *program, *version;
	struct rpmaf__hist_snap persist;
	struct rpmaf__hist_snap *handler; /* one per handler */
};

/* text_ok -- s may go between double quotes in JSON and in a Prometheus label as it is */
static bool
text_ok(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

/* snap_take -- read the server's counters and merge each histogram over the workers */
static int
snap_take(struct rpmaf_server *srv, const struct rpmaf_stats_meta *meta, struct snap *s)
{
	unsigned nw = rpmaf_workers_count(srv->ws);

	s->program = meta && meta->program ? meta->program : "rpmaf";
	s->version = meta && meta->version ? meta->version : "";
	if (!text_ok(s->program) || !text_ok(s->version))
		return RPMAF_E_INVAL;
	if (!(s->handler = calloc(srv->nhandlers ? srv->nhandlers : 1, sizeof(*s->handler))))
		return RPMAF_E_NOMEM;
	(void)rpmaf_server_get_stats(srv, &s->st);
	s->uptime_ms = srv->started ? (rpmaf__now_ns() - srv->start_ns) / 1000000u : 0;
	rpmaf__hist_snap_clear(&s->persist);
	for (uint32_t h = 0; h < srv->nhandlers; h++)
		rpmaf__hist_snap_clear(&s->handler[h]);
	for (unsigned i = 0; i < nw; i++) {
		rpmaf__hist_snap_add(&s->persist, &srv->wst[i].persist_lat);
		for (uint32_t h = 0; srv->wst[i].handler_lat && h < srv->nhandlers; h++)
			rpmaf__hist_snap_add(&s->handler[h], &srv->wst[i].handler_lat[h]);
	}
	return 0;
}

/* json_counters -- the server's counters and its workers' */
static void
json_counters(struct rpmaf_server *srv, const struct snap *s, FILE *f)
{
	const struct rpmaf_server_stats *st = &s->st;
	struct rpmaf_worker_stats ws;
	struct rpmaf_worker *w;

	fprintf(f,
		"{\"what\":\"%s\",\"version\":\"%s\",\"time\":%lld,\"uptime_ms\":%" PRIu64
		",\"accepted\":%" PRIu64 ",\"rejected\":%" PRIu64 ",\"auth_failed\":%" PRIu64
		",\"proto_errors\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"requests\":%" PRIu64
		",\"persists\":%" PRIu64 ",\"persist_bytes\":%" PRIu64 ",\"app_requests\":%" PRIu64
		",\"announcements\":%" PRIu64 ",\"connections\":%u,\"regions\":%u,\"workers\":[",
		s->program, s->version, (long long)time(NULL), s->uptime_ms, st->accepted,
		st->rejected, st->auth_failed, st->proto_errors, st->lost, st->requests,
		st->persists, st->persist_bytes, st->app_requests, st->announcements,
		st->connections, st->regions);
	for (unsigned i = 0; i < rpmaf_workers_count(srv->ws); i++) {
		(void)rpmaf_workers_get(srv->ws, i, &w);
		(void)rpmaf_worker_get_stats(w, &ws);
		fprintf(f,
			"%s{\"polls\":%" PRIu64 ",\"empty_polls\":%" PRIu64
			",\"completions\":%" PRIu64 ",\"receives\":%" PRIu64 ",\"sleeps\":%" PRIu64
			",\"refused\":%" PRIu64 ",\"conns\":%u}",
			i ? "," : "", ws.polls, ws.empty_polls, ws.completions, ws.receives,
			ws.sleeps, ws.refused, ws.conns);
	}
	fputs("]", f);
}

/* json_regions -- "region_stats": each region's counters, by name (the table's mutex) */
static void
json_regions(struct rpmaf_server *srv, FILE *f)
{
	const struct rpmaf__sregsnap *t = rpmaf__sregtab_lock(&srv->regs);

	fputs(",\"region_stats\":{", f);
	for (uint32_t i = 0; i < t->n; i++) {
		struct rpmaf__sregion *r = t->v[i];
		struct rpmaf__sregion_dur d;

		rpmaf__sregion_durability(r, &d);
		/* a region name is [A-Za-z0-9._-] (doc/PROTOCOL.md), the words fixed: no escape */
		fprintf(f,
			"%s\"%s\":{\"lookups\":%llu,\"persists\":%llu,\"persist_bytes\":%llu,"
			"\"persistence\":\"%s\",\"mechanism\":\"%s\",\"granularity\":\"%s\"}",
			i ? "," : "", r->name,
			atomic_load_explicit(&r->lookups, memory_order_relaxed),
			atomic_load_explicit(&r->persists, memory_order_relaxed),
			atomic_load_explicit(&r->persist_bytes, memory_order_relaxed),
			d.persistence, d.mechanism, d.granularity);
	}
	rpmaf__sregtab_unlock(&srv->regs);
	fputs("}", f);
}

/* json_write -- the whole line */
static int
json_write(struct rpmaf_server *srv, const struct snap *s, FILE *f)
{
	struct rpmaf__stats_lat l = {"persist", &s->persist};
	char name[32];
	int ret;

	json_counters(srv, s, f);
	fputs(",\"latency_ns\":{", f);
	ret = rpmaf__stats_json_hist(&l, f);
	for (uint32_t h = 0; !ret && h < srv->nhandlers; h++) {
		snprintf(name, sizeof(name), "handler_%" PRIu32, srv->handlers[h].id);
		l = (struct rpmaf__stats_lat){name, &s->handler[h]};
		fputc(',', f);
		ret = rpmaf__stats_json_hist(&l, f);
	}
	fputs("}", f);
	json_regions(srv, f);
	fputs("}\n", f);
	return ret;
}

/* prom_counter -- a family of one unlabelled sample */
static void
prom_one(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	rpmaf__prom_family(f, name, type, help);
	rpmaf__prom_sample(f, name, NULL, v);
}

/* prom_server -- the server's own counters and gauges */
static void
prom_server(const struct snap *s, FILE *f)
{
	const struct rpmaf_server_stats *st = &s->st;

	rpmaf__prom_family(f, "rpmaf_server_info", "gauge", "the program serving and its version");
	fprintf(f, "rpmaf_server_info{program=\"%s\",version=\"%s\"} 1\n", s->program, s->version);
	rpmaf__prom_family(f, "rpmaf_server_uptime_seconds", "gauge",
			   "seconds since the server started");
	fprintf(f, "rpmaf_server_uptime_seconds %" PRIu64 ".%03" PRIu64 "\n", s->uptime_ms / 1000,
		s->uptime_ms % 1000);
	prom_one(f, "rpmaf_server_connections_accepted_total", "counter", "connections accepted",
		 st->accepted);
	prom_one(f, "rpmaf_server_connections_rejected_total", "counter",
		 "connection requests rejected (full, shutting down)", st->rejected);
	prom_one(f, "rpmaf_server_auth_failed_total", "counter",
		 "clients disconnected for a failed proof", st->auth_failed);
	prom_one(f, "rpmaf_server_protocol_errors_total", "counter",
		 "clients disconnected for breaking the protocol", st->proto_errors);
	prom_one(f, "rpmaf_server_connections_lost_total", "counter",
		 "connections lost without a disconnect", st->lost);
	prom_one(f, "rpmaf_server_requests_total", "counter", "control requests served",
		 st->requests);
	prom_one(f, "rpmaf_server_persists_total", "counter", "persists (GPSPM) served",
		 st->persists);
	prom_one(f, "rpmaf_server_persist_bytes_total", "counter", "bytes persisted (GPSPM)",
		 st->persist_bytes);
	prom_one(f, "rpmaf_server_app_requests_total", "counter", "application calls served",
		 st->app_requests);
	prom_one(f, "rpmaf_server_announcements_total", "counter", "region announcements sent",
		 st->announcements);
	prom_one(f, "rpmaf_server_connections", "gauge", "connections open now", st->connections);
	prom_one(f, "rpmaf_server_regions", "gauge", "regions exported now", st->regions);
}

/* prom_workers -- one family per worker counter, a sample per worker */
static void
prom_workers(struct rpmaf_server *srv, FILE *f)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} ctrs[] = {
#define CTR(f, h) {"rpmaf_worker_" #f "_total", h, offsetof(struct rpmaf_worker_stats, f)}
	    CTR(polls, "turns of the worker's loop"),
	    CTR(empty_polls, "turns that found no completion"),
	    CTR(completions, "send completions taken"),
	    CTR(receives, "receive completions taken"),
	    CTR(sleeps, "times the worker slept"),
	    CTR(refused, "admissions refused"),
#undef CTR
	};
	unsigned n = rpmaf_workers_count(srv->ws);
	struct rpmaf_worker_stats ws;
	struct rpmaf_worker *w;
	char id[16];

	for (size_t c = 0; c < sizeof(ctrs) / sizeof(ctrs[0]); c++) {
		rpmaf__prom_family(f, ctrs[c].name, "counter", ctrs[c].help);
		for (unsigned i = 0; i < n; i++) {
			struct rpmaf__prom_label l = {"worker", id};

			snprintf(id, sizeof(id), "%u", i);
			(void)rpmaf_workers_get(srv->ws, i, &w);
			(void)rpmaf_worker_get_stats(w, &ws);
			rpmaf__prom_sample(f, ctrs[c].name, &l,
					   *(const uint64_t *)((const char *)&ws + ctrs[c].off));
		}
	}
}

/* prom_regions -- each region's durability and counters, a sample per region (the table's mutex) */
static void
prom_regions(struct rpmaf_server *srv, FILE *f)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} ctrs[] = {
	    {"rpmaf_region_lookups_total", "lookups that named the region",
	     offsetof(struct rpmaf__sregion, lookups)},
	    {"rpmaf_region_persists_total", "persists (GPSPM) of the region",
	     offsetof(struct rpmaf__sregion, persists)},
	    {"rpmaf_region_persist_bytes_total", "bytes of the region persisted (GPSPM)",
	     offsetof(struct rpmaf__sregion, persist_bytes)},
	};
	const struct rpmaf__sregsnap *t = rpmaf__sregtab_lock(&srv->regs);
	struct rpmaf__sregion_dur d;

	rpmaf__prom_family(f, "rpmaf_region_info", "gauge",
			   "how the region's bytes are made durable: the persistence method "
			   "clients use, the server's mechanism, libpmem2's granularity");
	for (uint32_t i = 0; i < t->n; i++) {
		rpmaf__sregion_durability(t->v[i], &d);
		/* as in json_regions(): nothing to escape */
		fprintf(f,
			"rpmaf_region_info{region=\"%s\",persistence=\"%s\",mechanism=\"%s\","
			"granularity=\"%s\"} 1\n",
			t->v[i]->name, d.persistence, d.mechanism, d.granularity);
	}
	for (size_t c = 0; c < sizeof(ctrs) / sizeof(ctrs[0]); c++) {
		rpmaf__prom_family(f, ctrs[c].name, "counter", ctrs[c].help);
		for (uint32_t i = 0; i < t->n; i++) {
			struct rpmaf__prom_label l = {"region", t->v[i]->name};
			atomic_ullong *v = (atomic_ullong *)((char *)t->v[i] + ctrs[c].off);

			rpmaf__prom_sample(f, ctrs[c].name, &l,
					   atomic_load_explicit(v, memory_order_relaxed));
		}
	}
	rpmaf__sregtab_unlock(&srv->regs);
}

/* prom_write -- the whole exposition */
static int
prom_write(struct rpmaf_server *srv, const struct snap *s, FILE *f)
{
	char id[16];

	prom_server(s, f);
	prom_workers(srv, f);
	prom_regions(srv, f);
	rpmaf__prom_family(f, "rpmaf_server_persist_duration_seconds", "histogram",
			   "time a persist (GPSPM) took on the server");
	rpmaf__prom_hist(f, "rpmaf_server_persist_duration_seconds", NULL, &s->persist);
	rpmaf__prom_family(f, "rpmaf_server_handler_duration_seconds", "histogram",
			   "time from an application call's request to its answer");
	for (uint32_t h = 0; h < srv->nhandlers; h++) {
		struct rpmaf__prom_label l = {"handler", id};

		snprintf(id, sizeof(id), "%" PRIu32, srv->handlers[h].id);
		rpmaf__prom_hist(f, "rpmaf_server_handler_duration_seconds", &l, &s->handler[h]);
	}
	return 0;
}

/* see rpmaf.h */
int
rpmaf_server_stats_write(const struct rpmaf_server *csrv, enum rpmaf_stats_format format,
			 const struct rpmaf_stats_meta *meta, FILE *f)
{
	/* read only: the counters and histograms are atomics, the table takes its mutex */
	struct rpmaf_server *srv = (struct rpmaf_server *)csrv;
	struct snap *s;
	int ret;

	if (!srv || !f || (format != RPMAF_STATS_JSON && format != RPMAF_STATS_PROMETHEUS) ||
	    rpmaf__current)
		return RPMAF_E_INVAL;
	if (!(s = calloc(1, sizeof(*s))))
		return RPMAF_E_NOMEM;
	if ((ret = snap_take(srv, meta, s)))
		goto out;
	ret = format == RPMAF_STATS_JSON ? json_write(srv, s, f) : prom_write(srv, s, f);
	if (ret == RPMAF__STATS_E_INVAL)
		ret = RPMAF_E_INVAL;
	if ((fflush(f) || ferror(f)) && !ret)
		ret = RPMAF_E_IO;
	else if (ret < 0 && ret != RPMAF_E_INVAL)
		ret = RPMAF_E_IO;
out:
	free(s->handler);
	free(s);
	return ret;
}
