// SPDX-License-Identifier: BSD-3-Clause
/* Copyright 2026, the librpma authors */

/*
 * churn.c -- connections come and gone, one log line a burst (see churn.h).
 */

#include <stdio.h>
#include <string.h>

#include "../workers/worker.h"
#include "churn.h"

/* burst_of -- the burst an event of kind k belongs to: accepted (0) or closed (1) */
static unsigned
burst_of(enum rpmaf__churn_kind k)
{
	return k == RPMAF__CHURN_ACCEPTED ? 0 : 1;
}

/* see churn.h */
void
rpmaf__churn_note(struct rpmaf__churn *c, enum rpmaf__churn_kind k)
{
	unsigned b = burst_of(k);
	unsigned long long now = rpmaf__now_ns(), none = 0;

	/* counted first: the report that swaps the burst's start out takes the count too */
	atomic_fetch_add_explicit(&c->n[k], 1, memory_order_relaxed);
	atomic_store(&c->last_ns[b], now);
	(void)atomic_compare_exchange_strong(&c->first_ns[b], &none, now);
}

/* take -- the count of kind k, swapped out */
static unsigned
take(struct rpmaf__churn *c, enum rpmaf__churn_kind k)
{
	return atomic_exchange(&c->n[k], 0);
}

/* part -- append ", N what" to buf (at len) when N is not 0 */
static size_t
part(char *buf, size_t size, size_t len, unsigned n, const char *what)
{
	int w;

	if (!n || len >= size)
		return len;
	w = snprintf(buf + len, size - len, "%s%u %s", len ? ", " : "", n, what);
	return w < 0 ? len : len + (size_t)w;
}

/* say -- the line of burst b, which lasted ns, with the counts swapped out */
static void
say(struct rpmaf__churn *c, const struct rpmaf__wlog *log, unsigned b, unsigned long long ns)
{
	double s = (double)ns / 1e9;
	unsigned by, lost, refused, stopping, all;
	char why[160] = "";
	size_t len = 0;

	if (b == 0) {
		if ((all = take(c, RPMAF__CHURN_ACCEPTED)))
			rpmaf__wlog(log, RPMAF_LOG_NOTICE,
				    "server: %u client%s connected in %.1f s", all,
				    all == 1 ? "" : "s", s);
		return;
	}
	by = take(c, RPMAF__CHURN_BY_CLIENT);
	lost = take(c, RPMAF__CHURN_LOST);
	refused = take(c, RPMAF__CHURN_REFUSED);
	stopping = take(c, RPMAF__CHURN_STOPPING);
	if (!(all = by + lost + refused + stopping))
		return;
	len = part(why, sizeof(why), len, by, "by the client");
	len = part(why, sizeof(why), len, lost, "lost");
	len = part(why, sizeof(why), len, refused, "refused");
	(void)part(why, sizeof(why), len, stopping, "as the server stopped");
	rpmaf__wlog(log, RPMAF_LOG_NOTICE, "server: %u client%s disconnected in %.1f s (%s)", all,
		    all == 1 ? "" : "s", s, why);
}

/* see churn.h */
int
rpmaf__churn_report(struct rpmaf__churn *c, const struct rpmaf__wlog *log, bool force)
{
	const unsigned long long quiet = RPMAF__CHURN_QUIET_MS * 1000000ull,
				 max = RPMAF__CHURN_MAX_MS * 1000000ull;
	unsigned long long now = rpmaf__now_ns(), due_ns = 0;
	int due = -1;

	for (unsigned b = 0; b < 2; b++) {
		unsigned long long first = atomic_load(&c->first_ns[b]);
		unsigned long long last = atomic_load(&c->last_ns[b]);
		unsigned long long end = last + quiet < first + max ? last + quiet : first + max;

		if (!first)
			continue;
		if (force || now >= end) {
			/* a later event starts a burst of its own, or is counted here */
			atomic_store(&c->first_ns[b], 0);
			say(c, log, b, last > first ? last - first : 0);
			continue;
		}
		if (due < 0 || end - now < due_ns)
			due_ns = end - now;
		due = (int)(due_ns / 1000000) + 1;
	}
	return due;
}
