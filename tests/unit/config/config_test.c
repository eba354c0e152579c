/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * config_test.c -- shared helpers of the config/ tests.
 */

#include "config_test.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* see config_test.h */
const char *
fmt(const char *format, ...)
{
	static char bufs[4][2048];
	static int next;
	char *buf = bufs[next++ % 4];
	va_list ap;

	va_start(ap, format);
	vsnprintf(buf, sizeof(bufs[0]), format, ap);
	va_end(ap);
	return buf;
}

/* see config_test.h */
struct rpmaf_cfg *
load_ok_opts(const char *yaml, const struct rpmaf_cfg_opts *opts)
{
	struct rpmaf_cfg *cfg = NULL;
	struct rpmaf_cfg_err err;
	int ret = rpmaf_cfg_load_buffer(T_NAME, yaml, strlen(yaml), opts, &cfg, &err);

	if (ret != 0)
		fail_msg("load failed (%d): %s", ret, err.msg);
	assert_non_null(cfg);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.msg, "");
	return cfg;
}

/* see config_test.h */
struct rpmaf_cfg *
load_ok(const char *yaml)
{
	return load_ok_opts(yaml, NULL);
}

/* see config_test.h */
struct rpmaf_cfg *
load_ok_set(const char *yaml, const char *set)
{
	struct rpmaf_cfg_opts opts = {.overrides = &set, .n_overrides = 1};

	return load_ok_opts(yaml, &opts);
}

/* check_position -- err's line, column and override agree with the start of its message */
static void
check_position(const struct rpmaf_cfg_err *err)
{
	char prefix[64];

	if (strncmp(err->msg, "--set ", 6) == 0) {
		assert_true(err->override >= 0);
		assert_int_equal(err->line, 0);
		return;
	}
	assert_int_equal(err->override, -1);
	if (err->line == 0) {
		assert_int_equal(err->column, 0);
		return;
	}
	snprintf(prefix, sizeof(prefix), T_NAME ":%u:%u: ", err->line, err->column);
	assert_memory_equal(err->msg, prefix, strlen(prefix));
}

/* see config_test.h */
void
expect_err_opts(const char *yaml, const struct rpmaf_cfg_opts *opts, int code, const char *msg)
{
	struct rpmaf_cfg *untouched = (struct rpmaf_cfg *)0x5a5a;
	struct rpmaf_cfg *cfg = untouched;
	struct rpmaf_cfg_err err;
	int ret = rpmaf_cfg_load_buffer(T_NAME, yaml, strlen(yaml), opts, &cfg, &err);

	if (ret != code || strcmp(err.msg, msg) != 0)
		fail_msg("expected %d \"%s\"\n         got %d \"%s\"", code, msg, ret, err.msg);
	assert_ptr_equal(cfg, untouched);
	assert_int_equal(err.code, code);
	check_position(&err);
}

/* see config_test.h */
void
expect_err(const char *yaml, int code, const char *msg)
{
	expect_err_opts(yaml, NULL, code, msg);
}

/* see config_test.h */
void
expect_err_set(const char *yaml, const char *set, int code, const char *msg)
{
	struct rpmaf_cfg_opts opts = {.overrides = &set, .n_overrides = 1};

	expect_err_opts(yaml, &opts, code, msg);
}

/* see config_test.h */
void
expect_err_limits(const char *yaml, const struct rpmaf_cfg_limits *lim, const char *msg)
{
	struct rpmaf_cfg_opts opts = {.limits = lim};

	expect_err_opts(yaml, &opts, RPMAF_E_CONFIG, msg);
}

/* see config_test.h */
char *
dump_str(const struct rpmaf_cfg *cfg)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(rpmaf_cfg_dump(cfg, f), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* see config_test.h */
void
expect_roundtrip(const struct rpmaf_cfg *cfg)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	char *text = dump_str(cfg);
	struct rpmaf_cfg *again = load_ok_opts(text, &opts);
	char *text2 = dump_str(again);

	assert_true(rpmaf_cfg_equal(cfg, again));
	assert_true(rpmaf_cfg_equal(again, cfg));
	assert_string_equal(text, text2);
	rpmaf_cfg_delete(&again);
	free(text);
	free(text2);
}

static char Tmp_dir[256];

/* see config_test.h */
const char *
tmp_path(const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", Tmp_dir, name);
	return path;
}

/* see config_test.h */
const char *
tmp_file(const char *name, size_t size, unsigned mode)
{
	const char *path = tmp_path(name);
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
	return path;
}

/* see config_test.h */
int
tmp_setup(void **state)
{
	(void)state;
	snprintf(Tmp_dir, sizeof(Tmp_dir), "/tmp/rpmaf-config-test.XXXXXX");
	return mkdtemp(Tmp_dir) ? 0 : -1;
}

/* tmp_remove -- remove one entry of the scratch directory tree */
static int
tmp_remove(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* see config_test.h */
int
tmp_teardown(void **state)
{
	(void)state;
	return nftw(Tmp_dir, tmp_remove, 16, FTW_DEPTH | FTW_PHYS);
}
