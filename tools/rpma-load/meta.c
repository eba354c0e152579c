/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * meta.c -- the run's metadata: version, start time, host, digest.
 */

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "meta.h"

/* see meta.h */
void
meta_start(struct report_meta *m)
{
	time_t now = time(NULL);
	struct tm tm;

	m->version = RPMAF_TOOLS_VERSION;
	if (gmtime_r(&now, &tm))
		strftime(m->start, sizeof(m->start), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(m->host, sizeof(m->host)) < 0)
		snprintf(m->host, sizeof(m->host), "unknown");
	m->host[sizeof(m->host) - 1] = '\0';
}

/* wl_text -- the resolved workload, one key a line */
static void
wl_text(FILE *out, const struct workload *wl)
{
	fprintf(out, "workload:\n  region: %s\n", wl->region);
	for (int k = 0; k < WL_NKINDS; k++)
		if (wl->in_mix[k])
			fprintf(out,
				"  %s: {weight: %" PRIu32 ", size: [%" PRIu64 ", %" PRIu64 "]}\n",
				Wl_kind_names[k], wl->weight[k], wl->size[k].lo, wl->size[k].hi);
	fprintf(out,
		"  threads: %" PRIu32 "\n  queue_depth: %" PRIu32 "\n  duration_ns: %" PRIu64
		"\n  count: %" PRIu64 "\n  warmup_ns: %" PRIu64 "\n  rate: %.17g\n",
		wl->threads, wl->queue_depth, wl->duration_ns, wl->count, wl->warmup_ns, wl->rate);
	if (wl->has_seed)
		fprintf(out, "  seed: %" PRIu64 "\n", wl->seed);
}

/* see meta.h */
int
meta_digest(struct report_meta *m, const struct rpmaf_cfg *cfg, const struct workload *wl)
{
	unsigned char h[crypto_hash_sha256_BYTES];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret = -1;

	if (sodium_init() < 0) {
		fprintf(stderr, "rpma-load: libsodium cannot start\n");
		return -1;
	}
	if (!(f = open_memstream(&text, &len)))
		goto err_nomem;
	if (rpmaf_cfg_dump(cfg, f)) {
		fclose(f);
		goto err_nomem;
	}
	wl_text(f, wl);
	if (fclose(f))
		goto err_nomem;
	crypto_hash_sha256(h, (const unsigned char *)text, len);
	for (size_t i = 0; i < sizeof(h); i++)
		snprintf(m->digest + 2 * i, 3, "%02x", h[i]);
	ret = 0;
	goto out;

err_nomem:
	fprintf(stderr, "rpma-load: out of memory (the configuration's digest)\n");
out:
	free(text);
	return ret;
}
