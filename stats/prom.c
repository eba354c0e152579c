// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * prom.c -- the Prometheus text exposition format (see prom.h).
 */

#include <inttypes.h>

#include "prom.h"

/* the histogram's bounds: 2^LE_FIRST to 2^LE_LAST ns */
#define LE_FIRST 10
#define LE_LAST	 33

/* escape -- s as a label value or HELP text: backslash, double quote and newline escaped */
static void
escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* labels -- {name="value"} with extra (an "le" of a bucket) after it; nothing when neither */
static void
labels(FILE *f, const struct rpmaf__prom_label *l, const char *le)
{
	const char *sep = "{";

	if (l && l->name) {
		fprintf(f, "{%s=\"", l->name);
		escape(f, l->value);
		fputc('"', f);
		sep = ",";
	}
	if (le)
		fprintf(f, "%sle=\"%s\"", sep, le);
	if ((l && l->name) || le)
		fputc('}', f);
}

/* see prom.h */
void
rpmaf__prom_family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	escape(f, help);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* see prom.h */
void
rpmaf__prom_sample(FILE *f, const char *name, const struct rpmaf__prom_label *l, uint64_t v)
{
	fputs(name, f);
	labels(f, l, NULL);
	fprintf(f, " %" PRIu64 "\n", v);
}

/* see prom.h */
void
rpmaf__prom_hist(FILE *f, const char *name, const struct rpmaf__prom_label *l,
		 const struct rpmaf__hist_snap *s)
{
	uint64_t below = 0;
	size_t b = 0;
	char le[32];

	for (unsigned k = LE_FIRST; k <= LE_LAST; k++) {
		uint64_t bound = (uint64_t)1 << k;

		/* every bucket of hist.h ends below a power of two or starts at one */
		for (; b < RPMAF__HIST_BUCKETS && rpmaf__hist_bucket_high(b) < bound; b++)
			below += s->bucket[b];
		snprintf(le, sizeof(le), "%.9g", (double)bound / 1e9);
		fprintf(f, "%s_bucket", name);
		labels(f, l, le);
		fprintf(f, " %" PRIu64 "\n", below);
	}
	fprintf(f, "%s_bucket", name);
	labels(f, l, "+Inf");
	fprintf(f, " %" PRIu64 "\n%s_sum", s->count, name);
	labels(f, l, NULL);
	fprintf(f, " %" PRIu64 ".%09" PRIu64 "\n%s_count", s->sum / 1000000000u,
		s->sum % 1000000000u, name);
	labels(f, l, NULL);
	fprintf(f, " %" PRIu64 "\n", s->count);
}
