/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fuzz_config.c -- libFuzzer harness of the configuration loader.
 *
 * An input is a YAML file, optionally followed by NUL-separated --set
 * strings (at most 4). Half of the inputs (by the parity of their length)
 * are checked against device limits, the others against the fixed bounds.
 * Properties:
 * - an accepted input dumps to YAML that loads back to an equal
 *   configuration, whose dump is the same text;
 * - a rejected one returns RPMAF_E_PARSE or RPMAF_E_CONFIG, touches no
 *   output, and its message is one printable line that starts with
 *   "<fuzz>:LINE:COLUMN: " (both at least 1, as in the error object) or,
 *   when an override is at fault, with "--set " and that override's index set;
 * - nothing the library allocates outlives a load or a delete (malloc,
 *   calloc, realloc and free are counted at link time; AddressSanitizer's
 *   leak check covers libyaml's own allocations).
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_assert.h"
#include "rpmaf.h"

#define MAX_SETS 4

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);

static long Live;

/* __wrap_malloc -- count what the code under test allocates */
void *
__wrap_malloc(size_t size)
{
	void *p = __real_malloc(size);

	Live += p != NULL;
	return p;
}

/* __wrap_calloc -- the same for calloc */
void *
__wrap_calloc(size_t n, size_t size)
{
	void *p = __real_calloc(n, size);

	Live += p != NULL;
	return p;
}

/* __wrap_realloc -- a new block when ptr is NULL, the same one moved otherwise */
void *
__wrap_realloc(void *ptr, size_t size)
{
	void *p = __real_realloc(ptr, size);

	Live += ptr == NULL && p != NULL;
	return p;
}

/* __wrap_free -- and what it frees */
void
__wrap_free(void *ptr)
{
	Live -= ptr != NULL;
	__real_free(ptr);
}

/* softrdma's limits, smaller than the fixed bounds */
static const struct rpmaf_cfg_limits Limits = {
    .max_cqe = 1 << 20,
    .max_qp_wr = 16384,
    .max_srq_wr = 16384,
    .max_inline_data = 256,
    .max_qp = 4096,
    .max_mr_size = 1ull << 40,
    .ncpus = 2,
};

/* dump -- cfg as text in a new buffer (libc's, freed with __real_free) */
static char *
dump(const struct rpmaf_cfg *cfg, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	fuzz_assert(f != NULL);
	fuzz_assert(rpmaf_cfg_dump(cfg, f) == 0);
	fuzz_assert(fclose(f) == 0);
	return text;
}

/* check_accepted -- dump, reload, compare */
static void
check_accepted(const struct rpmaf_cfg *cfg, const struct rpmaf_cfg_limits *limits)
{
	struct rpmaf_cfg_opts opts = {.limits = limits, .flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *again = NULL;
	struct rpmaf_cfg_err err;
	size_t len, len2;
	char *text = dump(cfg, &len);
	char *text2;
	int ret = rpmaf_cfg_load_buffer("<dump>", text, len, &opts, &again, &err);

	if (ret != 0)
		fprintf(stderr, "the dump does not load: %s\n%s", err.msg, text);
	fuzz_assert(ret == 0);
	fuzz_assert(rpmaf_cfg_equal(cfg, again));
	fuzz_assert(rpmaf_cfg_equal(again, cfg));
	text2 = dump(again, &len2);
	fuzz_assert(len == len2 && memcmp(text, text2, len) == 0);
	__real_free(text);
	__real_free(text2);
	fuzz_assert(rpmaf_cfg_delete(&again) == 0 && again == NULL);
}

/* check_rejected -- the error names a position or an override */
static void
check_rejected(int ret, const struct rpmaf_cfg_err *err, unsigned nsets)
{
	char prefix[64];

	fuzz_assert(ret == RPMAF_E_PARSE || ret == RPMAF_E_CONFIG);
	fuzz_assert(err->code == ret);
	for (const char *c = err->msg; *c; c++) /* one printable line */
		fuzz_assert((unsigned char)*c >= 0x20 && *c != 0x7f);
	if (err->override >= 0) {
		fuzz_assert((unsigned)err->override < nsets);
		fuzz_assert(strncmp(err->msg, "--set ", 6) == 0);
		return;
	}
	fuzz_assert(err->line >= 1 && err->column >= 1);
	snprintf(prefix, sizeof(prefix), "<fuzz>:%u:%u: ", err->line, err->column);
	fuzz_assert(strncmp(err->msg, prefix, strlen(prefix)) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const uint8_t *nul = memchr(data, 0, size);
	size_t yaml_len = nul ? (size_t)(nul - data) : size;
	const char *sets[MAX_SETS];
	unsigned nsets = 0;
	struct rpmaf_cfg_opts opts = {.overrides = sets, .limits = size % 2 ? &Limits : NULL};
	struct rpmaf_cfg *untouched = (struct rpmaf_cfg *)&opts;
	struct rpmaf_cfg *cfg = untouched;
	struct rpmaf_cfg_err err;
	int ret;

	/* the --set strings: NUL-terminated copies of what follows the YAML */
	for (size_t at = yaml_len + 1; at < size && nsets < MAX_SETS;) {
		const uint8_t *end = memchr(data + at, 0, size - at);
		size_t len = end ? (size_t)(end - data) - at : size - at;
		char *s = __real_malloc(len + 1);

		memcpy(s, data + at, len);
		s[len] = '\0';
		sets[nsets++] = s;
		at += len + 1;
	}
	opts.n_overrides = nsets;
	Live = 0;
	ret = rpmaf_cfg_load_buffer("<fuzz>", text, yaml_len, &opts, &cfg, &err);
	if (ret == 0) {
		fuzz_assert(cfg != untouched && cfg != NULL && err.code == 0);
		check_accepted(cfg, opts.limits);
		fuzz_assert(rpmaf_cfg_delete(&cfg) == 0 && cfg == NULL);
	} else {
		fuzz_assert(cfg == untouched);
		check_rejected(ret, &err, nsets);
	}
	fuzz_assert(Live == 0);
	for (unsigned i = 0; i < nsets; i++)
		__real_free((void *)sets[i]);
	return 0;
}
