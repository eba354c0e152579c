/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * json.c -- a statistics snapshot as one JSON line, into a buffer or a
 * stream through one small sink.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "json.h"

/* where the line goes: a buffer (f NULL) or a stream */
struct sink {
	FILE *f;
	char *buf;
	size_t size;
	size_t len; /* bytes of the line so far */
	int err;    /* the first error, 0 while none */
};

/* sink_printf -- append formatted text; remember the first failure */
static void __attribute__((format(printf, 2, 3))) sink_printf(struct sink *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (s->err)
		return;
	va_start(ap, fmt);
	if (s->f != NULL) {
		n = vfprintf(s->f, fmt, ap);
		if (n < 0)
			s->err = RPMAF__STATS_E_IO;
	} else {
		n = vsnprintf(s->buf + s->len, s->size - s->len, fmt, ap);
		if (n < 0 || (size_t)n >= s->size - s->len)
			s->err = RPMAF__STATS_E_NOSPC;
	}
	va_end(ap);
	if (!s->err)
		s->len += (size_t)n;
}

/* json_name_ok -- name needs no escaping and is a sensible key: [a-z0-9_.-]{1,63} */
static bool
json_name_ok(const char *name)
{
	size_t n;

	if (name == NULL)
		return false;
	n = strlen(name);
	if (n == 0 || n > 63)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* json_view_ok -- every pointer and name of v is usable */
static bool
json_view_ok(const struct rpmaf__stats_view *v)
{
	if (v == NULL || v->ctrs == NULL || !json_name_ok(v->scope) ||
	    (v->n_lat > 0 && v->lat == NULL))
		return false;
	for (size_t i = 0; i < v->n_lat; i++)
		if (!json_name_ok(v->lat[i].name) || v->lat[i].snap == NULL)
			return false;
	return true;
}

/* json_hist -- one histogram's summary object */
static void
json_hist(struct sink *s, const struct rpmaf__stats_lat *l)
{
	const struct rpmaf__hist_snap *h = l->snap;

	sink_printf(s,
		    "\"%s\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu64 ",\"min\":%" PRIu64
		    ",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64
		    ",\"p99.9\":%" PRIu64 ",\"max\":%" PRIu64 "}",
		    l->name, h->count, rpmaf__hist_snap_mean(h), h->count ? h->min : 0,
		    rpmaf__hist_snap_percentile(h, 50.0), rpmaf__hist_snap_percentile(h, 90.0),
		    rpmaf__hist_snap_percentile(h, 99.0), rpmaf__hist_snap_percentile(h, 99.9),
		    h->count ? h->max : 0);
}

/* json_line -- the whole line into s */
static void
json_line(struct sink *s, const struct rpmaf__stats_view *v)
{
	const uint64_t *c = v->ctrs->v;
	uint64_t milli =
	    c[RPMAF__CTR_POLLS] ? c[RPMAF__CTR_COMPLETIONS] * 1000 / c[RPMAF__CTR_POLLS] : 0;

	sink_printf(s,
		    "{\"time_ms\":%" PRIu64 ",\"scope\":\"%s\",\"id\":%" PRIu64 ",\"counters\":{",
		    v->time_ms, v->scope, v->id);
	for (int k = 0; k < RPMAF__CTR_MAX; k++)
		sink_printf(s, "%s\"%s\":%" PRIu64, k ? "," : "", rpmaf__ctr_name(k), c[k]);
	sink_printf(s, "},\"completions_per_poll\":\"%" PRIu64 ".%03" PRIu64 "\",\"latency_ns\":{",
		    milli / 1000, milli % 1000);
	for (size_t i = 0; i < v->n_lat; i++) {
		if (i)
			sink_printf(s, ",");
		json_hist(s, &v->lat[i]);
	}
	sink_printf(s, "}}\n");
}

/* see json.h */
int
rpmaf__stats_json_buf(const struct rpmaf__stats_view *v, char *buf, size_t size)
{
	struct sink s = {NULL, buf, size, 0, 0};

	if (buf == NULL || size == 0 || !json_view_ok(v))
		return RPMAF__STATS_E_INVAL;
	buf[0] = '\0';
	json_line(&s, v);
	if (s.err)
		return s.err;
	return s.len > INT32_MAX ? RPMAF__STATS_E_NOSPC : (int)s.len;
}

/* see json.h */
int
rpmaf__stats_json_hist(const struct rpmaf__stats_lat *l, FILE *f)
{
	struct sink s = {f, NULL, 0, 0, 0};

	if (f == NULL || l == NULL || l->snap == NULL || !json_name_ok(l->name))
		return RPMAF__STATS_E_INVAL;
	json_hist(&s, l);
	return s.err;
}

/* see json.h */
int
rpmaf__stats_json_file(const struct rpmaf__stats_view *v, FILE *f)
{
	struct sink s = {f, NULL, 0, 0, 0};

	if (f == NULL || !json_view_ok(v))
		return RPMAF__STATS_E_INVAL;
	json_line(&s, v);
	if (!s.err && fflush(f) != 0)
		s.err = RPMAF__STATS_E_IO;
	return s.err;
}
