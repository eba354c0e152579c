/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * fscheck.c -- file system rules, so that a server does not find at start
 * (or worse, at its first client) that a file it needs is not there.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../proto/auth.h"
#include "fscheck.h"
#include "rules.h"
#include "schema.h"

struct fscheck {
	struct rpmaf__cfg_diag *d;
	const struct rpmaf__cfg_node *root;
	char quoted[RPMAF__CFG_PATH_MAX];
};

#define FS_FAIL(f, path, ...) rpmaf__cfg_rules_fail((f)->d, (f)->root, path, __VA_ARGS__)

/* fs_quote -- file as a printable quoted string (kept in f) */
static const char *
fs_quote(struct fscheck *f, const char *file)
{
	return rpmaf__cfg_quote(f->quoted, sizeof(f->quoted), file, strlen(file));
}

/* fs_dir_of -- the directory of file into buf ("." for a bare name) */
static void
fs_dir_of(const char *file, char *buf, size_t size)
{
	const char *slash = strrchr(file, '/');

	if (slash == NULL)
		snprintf(buf, size, ".");
	else if (slash == file)
		snprintf(buf, size, "/");
	else
		snprintf(buf, size, "%.*s", (int)(slash - file), file);
}

/* fs_dir -- dir (the key at path names it, or a file in it) exists as a directory */
static int
fs_dir(struct fscheck *f, const char *path, const char *dir, const char *expected)
{
	struct stat st;

	if (stat(dir, &st) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return FS_FAIL(f, path, "directory %s does not exist (%s)",
				       fs_quote(f, dir), expected);
		return FS_FAIL(f, path, "cannot access %s: %s (%s)", fs_quote(f, dir),
			       strerror(errno), expected);
	}
	if (!S_ISDIR(st.st_mode))
		return FS_FAIL(f, path, "%s is not a directory (%s)", fs_quote(f, dir), expected);
	return 0;
}

/* fs_parent -- the directory a file (to be created) goes in exists */
static int
fs_parent(struct fscheck *f, const char *path, const char *file, const char *expected)
{
	char dir[4096];

	fs_dir_of(file, dir, sizeof(dir));
	return fs_dir(f, path, dir, expected);
}

/* fs_region_missing -- region file that is not there: fine only with create */
static int
fs_region_missing(struct fscheck *f, const struct rpmaf_cfg_region *reg, const char *path)
{
	if (!reg->create)
		return FS_FAIL(f, path, "%s does not exist (an existing file, or create: true)",
			       fs_quote(f, reg->path));
	return fs_parent(f, path, reg->path, "create: true makes the file, not its directory");
}

/* fs_region -- the file of region i: large enough, or may be created or extended */
static int
fs_region(struct fscheck *f, const struct rpmaf_cfg_region *reg, uint32_t i)
{
	char path[48];
	char need[32];
	struct stat st;

	snprintf(path, sizeof(path), "regions[%u].backing.file", i);
	if (stat(reg->path, &st) != 0) {
		if (errno == ENOENT)
			return fs_region_missing(f, reg, path);
		return FS_FAIL(f, path, "cannot access %s: %s (a file the server can map)",
			       fs_quote(f, reg->path), strerror(errno));
	}
	if (S_ISCHR(st.st_mode)) /* device DAX: its size is known once mapped */
		return 0;
	if (!S_ISREG(st.st_mode))
		return FS_FAIL(f, path, "%s is not a regular file (a file or a device DAX)",
			       fs_quote(f, reg->path));
	if ((uint64_t)st.st_size >= reg->size || reg->create)
		return 0;
	rpmaf__cfg_size_str(reg->size, need, sizeof(need));
	return FS_FAIL(f, path,
		       "%s is %lld bytes, smaller than regions[%u].size %s (a file of at least %s, "
		       "or create: true to extend it)",
		       fs_quote(f, reg->path), (long long)st.st_size, i, need, need);
}

/*
 * fs_key -- the key file, read and parsed as the control protocol will at
 * run time (proto/auth.c), so that a key the server could not use is refused
 * at load with the configuration's position; the key itself is wiped at once
 */
static int
fs_key(struct fscheck *f, const char *file)
{
	struct rpmaf__proto_key key;
	struct rpmaf__proto_err err;

	if (rpmaf__proto_key_load(file, &key, &err) == 0) {
		rpmaf__proto_key_wipe(&key);
		return 0;
	}
	return FS_FAIL(f, "auth.key_file", "%s", err.msg);
}

/* see fscheck.h */
int
rpmaf__cfg_fscheck(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
		   const struct rpmaf_cfg *cfg)
{
	struct fscheck f = {.d = d, .root = root};
	int ret;

	for (uint32_t i = 0; i < cfg->nregions; i++)
		if (cfg->regions[i].backing == RPMAF_BACKING_FILE &&
		    (ret = fs_region(&f, &cfg->regions[i], i)))
			return ret;
	if (cfg->auth.key_file && (ret = fs_key(&f, cfg->auth.key_file)))
		return ret;
	if (cfg->log.file &&
	    (ret = fs_parent(&f, "log.file", cfg->log.file, "a file in an existing directory")))
		return ret;
	if (cfg->stats.file &&
	    (ret = fs_parent(&f, "stats.file", cfg->stats.file, "a file in an existing directory")))
		return ret;
	if (cfg->stats_prometheus_file &&
	    (ret = fs_parent(&f, "stats.prometheus_file", cfg->stats_prometheus_file,
			     "a file in an existing directory")))
		return ret;
	if (cfg->rpmem.enabled && (ret = fs_dir(&f, "rpmem.poolset_dir", cfg->rpmem.poolset_dir,
						"the directory of the pool set files")))
		return ret;
	return 0;
}
