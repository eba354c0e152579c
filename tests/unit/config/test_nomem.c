/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_nomem.c -- every allocation of a load failing in turn: each failure
 * is RPMAF_E_NOMEM with its message and no configuration (AddressSanitizer
 * checks that nothing leaks), until the load needs no more allocations and
 * succeeds.
 */

#include "config_test.h"

#include <stdio.h>
#include <string.h>

static const char Yaml[] = "workers: {count: 2, cpus: [0, 1], polling: busy}\n"
			   "listen: {address: &a 127.0.0.1}\n"
			   "targets: [{name: t, address: *a}, {name: u, address: *a}]\n"
			   "regions: [{name: r, size: 4K, backing: {file: /f, create: true}},\n"
			   "          {name: s, size: 8K, usage: &u [read, write]}]\n"
			   "log: {file: /l}\nauth: {key_file: /k}\nstats: {file: /s}\n";

/* nomem_at -- a load whose n-th allocation fails; whether it succeeded */
static int
nomem_at(long n, const struct rpmaf_cfg_opts *opts, const char *path)
{
	struct rpmaf_cfg *untouched = (struct rpmaf_cfg *)0x5a5a;
	struct rpmaf_cfg *c = untouched;
	struct rpmaf_cfg_err err;
	int ret;

	fail_alloc_after(n);
	if (path)
		ret = rpmaf_cfg_load_file(path, opts, &c, &err);
	else
		ret = rpmaf_cfg_load_buffer(T_NAME, Yaml, strlen(Yaml), opts, &c, &err);
	fail_alloc_after(-1);
	if (ret == 0) {
		assert_int_equal(c->ntargets, 2);
		assert_string_equal(c->regions[1].name, "s");
		assert_int_equal(c->workers.polling, RPMAF_POLLING_BUSY);
		rpmaf_cfg_delete(&c);
		return 1;
	}
	assert_int_equal(ret, RPMAF_E_NOMEM);
	assert_string_equal(err.msg, fmt("%s: out of memory", path ? path : T_NAME));
	assert_ptr_equal(c, untouched);
	return 0;
}

/* every_allocation -- of a buffer load with overrides */
static void
every_allocation(void **state)
{
	const char *sets[] = {"workers.count=2", "queues.messages={credits: 8}",
			      "targets[1].port=9000"};
	struct rpmaf_cfg_opts opts = {
	    .overrides = sets, .n_overrides = 3, .flags = RPMAF_CFG_NO_FILE_CHECKS};
	long n = 0;

	(void)state;
	while (!nomem_at(n, &opts, NULL))
		n++;
	/* the document's nodes, the overrides and the configuration's strings at least */
	assert_true(n > 40);
	print_message("a load of this document makes %ld allocations\n", n);
}

/* every_allocation_file -- of a file load (its buffer too) */
static void
every_allocation_file(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	const char *path = tmp_path("nomem.yaml");
	char copy[256];
	FILE *f = fopen(path, "w");
	long n = 0;

	(void)state;
	snprintf(copy, sizeof(copy), "%s", path);
	assert_non_null(f);
	fputs(Yaml, f);
	assert_int_equal(fclose(f), 0);
	while (!nomem_at(n, &opts, copy))
		n++;
	assert_true(n > 40);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_allocation),
	    cmocka_unit_test(every_allocation_file),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
