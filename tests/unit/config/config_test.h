/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * config_test.h -- what the tests of config/ share: loading a YAML text and
 * asserting success or the exact error, the dump/reload round trip,
 * allocation failures on demand and a scratch directory.
 */

#ifndef CONFIG_TEST_H
#define CONFIG_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fail_alloc.h"
#include "rpmaf.h"

/* the name every test buffer is loaded under, as it appears in messages */
#define T_NAME "t.yaml"

/* load_ok -- load yaml (with sets, flags) and assert success; the caller deletes the result */
struct rpmaf_cfg *load_ok(const char *yaml);
struct rpmaf_cfg *load_ok_opts(const char *yaml, const struct rpmaf_cfg_opts *opts);
struct rpmaf_cfg *load_ok_set(const char *yaml, const char *set);

/*
 * expect_err -- loading yaml fails with code and exactly msg, leaves the
 * output pointer untouched and fills err's position as msg says
 */
void expect_err(const char *yaml, int code, const char *msg);
void expect_err_opts(const char *yaml, const struct rpmaf_cfg_opts *opts, int code,
		     const char *msg);
void expect_err_set(const char *yaml, const char *set, int code, const char *msg);
void expect_err_limits(const char *yaml, const struct rpmaf_cfg_limits *lim, const char *msg);

/* dump_str -- cfg dumped into a new string (free() it) */
char *dump_str(const struct rpmaf_cfg *cfg);

/*
 * expect_roundtrip -- cfg dumps to YAML that loads back (without file
 * checks) to an equal configuration, whose dump is the same text
 */
void expect_roundtrip(const struct rpmaf_cfg *cfg);

/* tmp_path -- a path in the scratch directory of this test program (static buffer) */
const char *tmp_path(const char *name);

/* tmp_file -- create tmp_path(name) with size zero bytes and mode; returns its path */
const char *tmp_file(const char *name, size_t size, unsigned mode);

/* tmp_setup, tmp_teardown -- cmocka group set-up: the scratch directory, made and removed */
int tmp_setup(void **state);
int tmp_teardown(void **state);

/* fmt -- printf into a static buffer (one of four, used in turn) */
const char *fmt(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* CONFIG_TEST_H */
