/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_workload.c -- libFuzzer harness of rpma-load's workload parser
 * (tools/rpma-load/workload.h).
 *
 * An input is a YAML file, optionally followed by NUL-separated --set
 * strings (at most 4). Properties:
 * - an accepted input gives a workload that obeys the rules: a region, a
 *   positive total weight, sizes within bounds (lo <= hi), threads and
 *   queue depth within range, exactly one of duration and count;
 * - a rejected one returns RPMAF_E_PARSE or RPMAF_E_CONFIG, leaves the
 *   output untouched, and its message is one printable line that starts
 *   with "<fuzz>:LINE:COLUMN: " or, when an override is at fault, "--set ";
 * - nothing leaks (AddressSanitizer's leak check).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_assert.h"
#include "workload.h"

#define MAX_SETS 4

/* check_accepted -- an accepted workload obeys the rules */
static void
check_accepted(const struct workload *wl)
{
	uint64_t total = 0;

	fuzz_assert(wl->region && wl->region[0]);
	for (int k = 0; k < WL_NKINDS; k++) {
		total += wl->weight[k];
		fuzz_assert(wl->size[k].lo >= 1 && wl->size[k].lo <= wl->size[k].hi);
		fuzz_assert(wl->size[k].hi <= WL_MAX_SIZE);
	}
	fuzz_assert(total > 0);
	fuzz_assert(wl->size[WL_ATOMIC].lo == WL_ATOMIC_SIZE && wl->size[WL_ATOMIC].hi == 8);
	fuzz_assert(wl->threads >= 1 && wl->threads <= 256);
	fuzz_assert(wl->queue_depth >= 1 && wl->queue_depth <= 1024);
	fuzz_assert((wl->duration_ns != 0) != (wl->count != 0));
	fuzz_assert(wl->rate == 0 || wl->rate >= 0.001);
}

/* check_rejected -- a rejection's code and its one-line message */
static void
check_rejected(int ret, const struct rpmaf_cfg_err *err)
{
	unsigned line, col;

	fuzz_assert(ret == RPMAF_E_PARSE || ret == RPMAF_E_CONFIG);
	fuzz_assert(err->code == ret && err->msg[0]);
	for (const char *p = err->msg; *p; p++)
		fuzz_assert((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
	if (err->override >= 0) {
		fuzz_assert(err->override < MAX_SETS && !strncmp(err->msg, "--set ", 6));
		return;
	}
	fuzz_assert(sscanf(err->msg, "<fuzz>:%u:%u: ", &line, &col) == 2);
	fuzz_assert(line >= 1 && col >= 1 && line == err->line && col == err->column);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t yaml_len = nul ? (size_t)(nul - data) : size;
	const char *sets[MAX_SETS];
	unsigned nsets = 0;
	struct workload *untouched = (struct workload *)sets, *wl = untouched;
	struct rpmaf_cfg_err err;
	int ret;

	/* the --set strings: NUL-terminated copies of what follows the YAML */
	for (size_t at = yaml_len + 1; at < size && nsets < MAX_SETS;) {
		const uint8_t *end = memchr(data + at, 0, size - at);
		size_t len = end ? (size_t)(end - data) - at : size - at;
		char *s = malloc(len + 1);

		fuzz_assert(s != NULL);
		memcpy(s, data + at, len);
		s[len] = '\0';
		sets[nsets++] = s;
		at += len + 1;
	}
	ret = wl_load_buffer("<fuzz>", (const char *)data, yaml_len, sets, nsets, &wl, &err);
	if (ret == 0) {
		fuzz_assert(wl != untouched && wl != NULL);
		check_accepted(wl);
		wl_delete(&wl);
		fuzz_assert(wl == NULL);
	} else {
		fuzz_assert(wl == untouched);
		check_rejected(ret, &err);
	}
	for (unsigned i = 0; i < nsets; i++)
		free((void *)sets[i]);
	return 0;
}
