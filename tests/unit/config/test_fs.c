/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * test_fs.c -- the rules that look at files: region files (present, large
 * enough, or to be created in an existing directory), the key file (private,
 * of a sensible size), the directories of the log, the statistics and the
 * pool set files; and RPMAF_CFG_NO_FILE_CHECKS, which skips them all.
 */

#include "config_test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* col_of -- the 1-based column of needle in a one-line yaml */
static unsigned
col_of(const char *yaml, const char *needle)
{
	const char *at = strstr(yaml, needle);

	assert_non_null(at);
	return (unsigned)(at - yaml) + 1;
}

/* region_yaml -- one file-backed region of 8K */
static const char *
region_yaml(const char *path, const char *create)
{
	return fmt("regions: [{name: r, size: 8K, backing: {file: %s%s}}]", path, create);
}

/* region_files -- a file that is there and large enough, or may be created or extended */
static void
region_files(void **state)
{
	const char *big = tmp_file("big", 8192, 0600);
	char small[256];
	const char *yaml;
	struct rpmaf_cfg *c;

	(void)state;
	c = load_ok(region_yaml(big, ""));
	assert_string_equal(c->regions[0].path, big);
	rpmaf_cfg_delete(&c);
	c = load_ok(region_yaml("/dev/null", "")); /* a character device: a device DAX */
	rpmaf_cfg_delete(&c);
	snprintf(small, sizeof(small), "%s", tmp_file("small", 4096, 0600));
	yaml = region_yaml(small, "");
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:%u: regions[0].backing.file: \"%s\" is 4096 bytes, smaller than "
		       "regions[0].size 8K (a file of at least 8K, or create: true to extend it)",
		       col_of(yaml, small), small));
	c = load_ok(region_yaml(small, ", create: true"));
	rpmaf_cfg_delete(&c);
	c = load_ok(region_yaml(tmp_path("new"), ", create: true"));
	rpmaf_cfg_delete(&c);
}

/* region_files_bad -- missing, in a missing directory, a directory, behind a file */
static void
region_files_bad(void **state)
{
	char path[256];
	const char *yaml;

	(void)state;
	snprintf(path, sizeof(path), "%s", tmp_path("missing"));
	yaml = region_yaml(path, "");
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:%u: regions[0].backing.file: \"%s\" does not exist (an existing "
		       "file, or create: true)",
		       col_of(yaml, path), path));
	snprintf(path, sizeof(path), "%s", tmp_path("nodir/new"));
	yaml = region_yaml(path, ", create: true");
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:%u: regions[0].backing.file: directory \"%s\" does not exist "
		       "(create: true makes the file, not its directory)",
		       col_of(yaml, path), tmp_path("nodir")));
	snprintf(path, sizeof(path), "%s", tmp_path(""));
	yaml = region_yaml(path, "");
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:%u: regions[0].backing.file: \"%s\" is not a regular file (a file "
		       "or a device DAX)",
		       col_of(yaml, path), path));
	tmp_file("plain", 0, 0600);
	snprintf(path, sizeof(path), "%s", tmp_path("plain/x"));
	yaml = region_yaml(path, "");
	expect_err(
	    yaml, RPMAF_E_CONFIG,
	    fmt("t.yaml:1:%u: regions[0].backing.file: cannot access \"%s\": Not a directory "
		"(a file the server can map)",
		col_of(yaml, path), path));
}

/* tmp_key -- a key file of ndigits hex digits and a newline, with mode */
static const char *
tmp_key(const char *name, size_t ndigits, unsigned mode)
{
	const char *path = tmp_path(name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < ndigits; i++)
		fputc("0123456789abcdef"[i % 16], f);
	fputc('\n', f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
	return path;
}

/*
 * key_file -- the control protocol's key file (proto/auth.c): private, 64 to
 * 128 hex digits; refused at load with the protocol's own message
 */
static void
key_file(void **state)
{
	char path[256];
	char yaml[512];
	struct rpmaf_cfg *c;

	(void)state;
	snprintf(path, sizeof(path), "%s", tmp_key("key", 64, 0600));
	c = load_ok(fmt("auth: {key_file: %s}", path));
	assert_string_equal(c->auth.key_file, path);
	rpmaf_cfg_delete(&c);
	c = load_ok(fmt("auth: {key_file: %s}", tmp_key("key128", 128, 0400)));
	rpmaf_cfg_delete(&c);

	snprintf(yaml, sizeof(yaml), "auth: {key_file: %s}", path);
	tmp_key("key", 64, 0644);
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:18: auth.key_file: %s: mode 0644 lets its group or other users in "
		       "(only its owner may have access: chmod 600)",
		       path));
	tmp_key("key", 62, 0600);
	expect_err(
	    yaml, RPMAF_E_CONFIG,
	    fmt("t.yaml:1:18: auth.key_file: %s: a 31-byte key is too short (32 to 64 bytes: "
		"64 to 128 hexadecimal digits)",
		path));
	tmp_key("key", 130, 0600);
	expect_err(yaml, RPMAF_E_CONFIG,
		   fmt("t.yaml:1:18: auth.key_file: %s: more than 129 bytes (a key is 64 to 128 "
		       "hexadecimal digits and at most one newline)",
		       path));
	tmp_file("key", 64, 0600);
	expect_err(
	    yaml, RPMAF_E_CONFIG,
	    fmt("t.yaml:1:18: auth.key_file: %s: byte 1 is not a hexadecimal digit (a key file "
		"holds hex digits and at most one final newline)",
		path));
	snprintf(path, sizeof(path), "%s", tmp_path("nokey"));
	expect_err(
	    fmt("auth: {key_file: %s}", path), RPMAF_E_CONFIG,
	    fmt("t.yaml:1:18: auth.key_file: %s: cannot open: No such file or directory", path));
	expect_err("auth: {key_file: /}", RPMAF_E_CONFIG,
		   "t.yaml:1:18: auth.key_file: /: not a regular file (a key file)");
}

/* directories -- of the log, of the statistics, of the pool set files */
static void
directories(void **state)
{
	char dir[256];
	char log[256];
	struct rpmaf_cfg *c;

	(void)state;
	snprintf(log, sizeof(log), "%s", tmp_path("x.log"));
	c = load_ok(fmt("log: {file: %s}\nstats: {file: stats.json}\nlisten: {address: a}\n"
			"rpmem: {poolset_dir: %s}",
			log, tmp_path("")));
	assert_string_equal(c->stats.file, "stats.json");
	rpmaf_cfg_delete(&c);
	snprintf(dir, sizeof(dir), "%s", tmp_path("nodir"));
	expect_err(fmt("log: {file: %s/x.log}", dir), RPMAF_E_CONFIG,
		   fmt("t.yaml:1:13: log.file: directory \"%s\" does not exist (a file in an "
		       "existing directory)",
		       dir));
	expect_err(fmt("stats: {file: %s/x.log}", dir), RPMAF_E_CONFIG,
		   fmt("t.yaml:1:15: stats.file: directory \"%s\" does not exist (a file in an "
		       "existing directory)",
		       dir));
	expect_err(fmt("listen: {address: a}\nrpmem: {poolset_dir: %s}", dir), RPMAF_E_CONFIG,
		   fmt("t.yaml:2:22: rpmem.poolset_dir: directory \"%s\" does not exist (the "
		       "directory of the pool set files)",
		       dir));
	snprintf(dir, sizeof(dir), "%s", tmp_file("plain2", 0, 0600));
	expect_err(
	    fmt("listen: {address: a}\nrpmem: {poolset_dir: %s}", dir), RPMAF_E_CONFIG,
	    fmt("t.yaml:2:22: rpmem.poolset_dir: \"%s\" is not a directory (the directory of "
		"the pool set files)",
		dir));
	snprintf(dir, sizeof(dir), "%s", tmp_path("loop"));
	assert_int_equal(symlink(dir, dir), 0);
	expect_err(fmt("log: {file: %s/x.log}", dir), RPMAF_E_CONFIG,
		   fmt("t.yaml:1:13: log.file: cannot access \"%s\": Too many levels of symbolic "
		       "links (a file in an existing directory)",
		       dir));
	snprintf(dir, sizeof(dir), "%s", tmp_path("plain2"));
	expect_err(fmt("log: {file: %s/x}", dir), RPMAF_E_CONFIG,
		   fmt("t.yaml:1:13: log.file: \"%s\" is not a directory (a file in an existing "
		       "directory)",
		       dir));
}

/* no_file_checks -- the flag skips every check above */
static void
no_file_checks(void **state)
{
	struct rpmaf_cfg_opts opts = {.flags = RPMAF_CFG_NO_FILE_CHECKS};
	struct rpmaf_cfg *c;

	(void)state;
	c = load_ok_opts("regions: [{name: r, size: 8K, backing: {file: /no/such}}]\n"
			 "auth: {key_file: /no/key}\nlog: {file: /no/dir/log}\n"
			 "stats: {file: /no/dir/stats}\nlisten: {address: a}\n"
			 "rpmem: {poolset_dir: /no/dir}\n",
			 &opts);
	assert_string_equal(c->rpmem.poolset_dir, "/no/dir");
	rpmaf_cfg_delete(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(region_files),   cmocka_unit_test(region_files_bad),
	    cmocka_unit_test(key_file),	      cmocka_unit_test(directories),
	    cmocka_unit_test(no_file_checks),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
