/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * cfg.c -- the public entry points of the configuration: a load runs the
 * steps in order (text, YAML tree, overrides, mapping, rules, files) and
 * either returns a whole configuration or frees everything it built.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfg.h"
#include "diag.h"
#include "doc.h"
#include "dump.h"
#include "fscheck.h"
#include "map.h"
#include "override.h"
#include "rules.h"
#include "schema.h"
#include "text.h"

#define FIELD(base, key) ((char *)(base) + (key)->offset)

/* see rpmaf.h */
const char *
rpmaf_err_str(int code)
{
	switch (code) {
	case 0:
		return "success";
	case RPMAF_E_INVAL:
		return "invalid argument";
	case RPMAF_E_NOMEM:
		return "out of memory";
	case RPMAF_E_IO:
		return "input/output error";
	case RPMAF_E_PARSE:
		return "not an acceptable YAML document";
	case RPMAF_E_CONFIG:
		return "invalid configuration";
	case RPMAF_E_AGAIN:
		return "no room now, try again";
	case RPMAF_E_RDMA:
		return "an RDMA (librpma) call failed";
	case RPMAF_E_SYS:
		return "a system call failed";
	case RPMAF_E_TIMEOUT:
		return "the operation timed out";
	case RPMAF_E_CONNLOST:
		return "the connection was lost";
	case RPMAF_E_NOENT:
		return "no such region, target or handler";
	case RPMAF_E_REMOTE:
		return "the peer refused the request";
	case RPMAF_E_AUTH:
		return "authentication failed";
	case RPMAF_E_PROTO:
		return "the peer broke the protocol";
	case RPMAF_E_SHUTDOWN:
		return "shutting down";
	case RPMAF_E_BUSY:
		return "in use by another server or process";
	default:
		return "unknown error";
	}
}

/* cfg_keys_free -- free what the keys of one struct point to */
static void
cfg_keys_free(const struct rpmaf__cfg_key *keys, void *base)
{
	for (const struct rpmaf__cfg_key *k = keys; k->name; k++) {
		void *field = FIELD(base, k);

		if (k->type == RPMAF__CFG_T_SECTION)
			cfg_keys_free(k->keys, field);
		else if (k->type == RPMAF__CFG_T_BACKING)
			cfg_keys_free(k->keys, base);
		else if (k->type == RPMAF__CFG_T_LIST) {
			char *array = *(char **)field;
			uint32_t n = *(uint32_t *)((char *)base + k->count_offset);

			for (uint32_t i = 0; array && i < n; i++)
				cfg_keys_free(k->keys, array + i * k->elem_size);
			free(array);
		} else if (k->type == RPMAF__CFG_T_NAME || k->type == RPMAF__CFG_T_HOST ||
			   k->type == RPMAF__CFG_T_PATH || k->type == RPMAF__CFG_T_CPUS)
			free(*(void **)field);
	}
}

/* see cfg.h */
void
rpmaf__cfg_free(struct rpmaf_cfg *cfg)
{
	if (cfg == NULL)
		return;
	cfg_keys_free(rpmaf__cfg_schema.keys, cfg);
	free(cfg);
}

/* cfg_str_equal -- two strings, either maybe NULL */
static bool
cfg_str_equal(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool cfg_keys_equal(const struct rpmaf__cfg_key *keys, const void *a, const void *b);

/* cfg_list_equal -- two lists of key's elements */
static bool
cfg_list_equal(const struct rpmaf__cfg_key *k, const void *a, const void *b)
{
	uint32_t n = *(const uint32_t *)((const char *)a + k->count_offset);
	const char *ea = *(const char *const *)((const char *)a + k->offset);
	const char *eb = *(const char *const *)((const char *)b + k->offset);

	if (n != *(const uint32_t *)((const char *)b + k->count_offset))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!cfg_keys_equal(k->keys, ea + i * k->elem_size, eb + i * k->elem_size))
			return false;
	return true;
}

/* cfg_key_equal -- the value of key k in two structs */
static bool
cfg_key_equal(const struct rpmaf__cfg_key *k, const void *a, const void *b)
{
	const char *fa = (const char *)a + k->offset;
	const char *fb = (const char *)b + k->offset;
	uint32_t na, nb;

	switch (k->type) {
	case RPMAF__CFG_T_SECTION:
		return (k->count_offset == RPMAF__CFG_NONE ||
			*(const bool *)(fa + k->count_offset) ==
			    *(const bool *)(fb + k->count_offset)) &&
		       cfg_keys_equal(k->keys, fa, fb);
	case RPMAF__CFG_T_LIST:
		return cfg_list_equal(k, a, b);
	case RPMAF__CFG_T_U32:
	case RPMAF__CFG_T_U32_AUTO:
		return *(const uint32_t *)fa == *(const uint32_t *)fb;
	case RPMAF__CFG_T_SIZE:
		return *(const uint64_t *)fa == *(const uint64_t *)fb;
	case RPMAF__CFG_T_BOOL:
		return *(const bool *)fa == *(const bool *)fb;
	case RPMAF__CFG_T_ENUM:
	case RPMAF__CFG_T_FLAGS:
		return *(const int *)fa == *(const int *)fb;
	case RPMAF__CFG_T_FLOAT:
		return *(const double *)fa == *(const double *)fb;
	case RPMAF__CFG_T_CPUS:
		na = *(const uint32_t *)((const char *)a + k->count_offset);
		nb = *(const uint32_t *)((const char *)b + k->count_offset);
		return na == nb &&
		       (na == 0 || memcmp(*(uint32_t *const *)fa, *(uint32_t *const *)fb,
					  na * sizeof(uint32_t)) == 0);
	case RPMAF__CFG_T_BACKING:
		return *(const int *)fa == *(const int *)fb && cfg_keys_equal(k->keys, a, b);
	default: /* NAME, HOST, PATH */
		return cfg_str_equal(*(const char *const *)fa, *(const char *const *)fb);
	}
}

/* cfg_keys_equal -- every key of one struct */
static bool
cfg_keys_equal(const struct rpmaf__cfg_key *keys, const void *a, const void *b)
{
	for (const struct rpmaf__cfg_key *k = keys; k->name; k++)
		if (!cfg_key_equal(k, a, b))
			return false;
	return true;
}

/* see rpmaf.h */
bool
rpmaf_cfg_equal(const struct rpmaf_cfg *a, const struct rpmaf_cfg *b)
{
	if (a == NULL || b == NULL)
		return false;
	return a->conns_per_worker == b->conns_per_worker &&
	       cfg_keys_equal(rpmaf__cfg_schema.keys, a, b);
}

/* see rpmaf.h */
int
rpmaf_cfg_delete(struct rpmaf_cfg **cfg_ptr)
{
	if (cfg_ptr == NULL)
		return RPMAF_E_INVAL;
	rpmaf__cfg_free(*cfg_ptr);
	*cfg_ptr = NULL;
	return 0;
}

/* see rpmaf.h */
int
rpmaf_cfg_dump(const struct rpmaf_cfg *cfg, FILE *out)
{
	if (cfg == NULL || out == NULL)
		return RPMAF_E_INVAL;
	return rpmaf__cfg_dump_write(cfg, out);
}

/* cfg_invalid -- an RPMAF_E_INVAL about the arguments */
static int
cfg_invalid(struct rpmaf__cfg_diag *d, const char *what)
{
	struct rpmaf__cfg_pos none = {0, 0, -1};

	return rpmaf__cfg_diag_fail(d, RPMAF_E_INVAL, none, NULL, "invalid argument: %s", what);
}

/* cfg_check_opts -- the options a caller gave are usable */
static int
cfg_check_opts(struct rpmaf__cfg_diag *d, const struct rpmaf_cfg_opts *opts)
{
	if (opts->n_overrides > RPMAF_CFG_MAX_OVERRIDES)
		return cfg_invalid(d, "more than RPMAF_CFG_MAX_OVERRIDES overrides");
	if (opts->n_overrides && opts->overrides == NULL)
		return cfg_invalid(d, "overrides is NULL");
	for (unsigned i = 0; i < opts->n_overrides; i++)
		if (opts->overrides[i] == NULL)
			return cfg_invalid(d, "an override is NULL");
	return 0;
}

/* cfg_build -- the configuration from the tree: mapped, resolved and checked */
static int
cfg_build(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root,
	  const struct rpmaf_cfg_opts *opts, struct rpmaf_cfg **cfg_ptr)
{
	struct rpmaf_cfg *cfg = malloc(sizeof(*cfg));
	int ret;

	if (cfg == NULL)
		return rpmaf__cfg_diag_nomem(d);
	rpmaf__cfg_defaults(cfg);
	if ((ret = rpmaf__cfg_map(d, root, cfg)) ||
	    (ret = rpmaf__cfg_rules_check(d, root, cfg, opts->limits)))
		goto err_free;
	if (!(opts->flags & RPMAF_CFG_NO_FILE_CHECKS) && (ret = rpmaf__cfg_fscheck(d, root, cfg)))
		goto err_free;
	*cfg_ptr = cfg;
	return 0;

err_free:
	rpmaf__cfg_free(cfg);
	return ret;
}

/* cfg_load -- the whole load of len bytes at buf */
static int
cfg_load(struct rpmaf__cfg_diag *d, const char *buf, size_t len, const struct rpmaf_cfg_opts *opts,
	 struct rpmaf_cfg **cfg_ptr)
{
	struct rpmaf__cfg_node *root = NULL;
	int ret;

	if (len > RPMAF_CFG_MAX_FILE) {
		struct rpmaf__cfg_pos none = {0, 0, -1};

		return rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL,
					    "%zu bytes, more than %u (a smaller file)", len,
					    RPMAF_CFG_MAX_FILE);
	}
	if ((ret = rpmaf__cfg_tree(d, buf, len, opts->n_overrides, &root)))
		return ret;
	ret = cfg_build(d, root, opts, cfg_ptr);
	rpmaf__cfg_node_delete(root);
	return ret;
}

/* see rpmaf.h */
int
rpmaf_cfg_load_buffer(const char *name, const char *buf, size_t len,
		      const struct rpmaf_cfg_opts *opts, struct rpmaf_cfg **cfg_ptr,
		      struct rpmaf_cfg_err *err)
{
	static const struct rpmaf_cfg_opts none;
	struct rpmaf__cfg_diag d;
	int ret;

	opts = opts ? opts : &none;
	rpmaf__cfg_diag_init(&d, name ? name : "<buffer>", opts->overrides, err);
	if (cfg_ptr == NULL || (buf == NULL && len != 0))
		return cfg_invalid(&d, cfg_ptr == NULL ? "cfg_ptr is NULL" : "buf is NULL");
	if ((ret = cfg_check_opts(&d, opts)))
		return ret;
	return cfg_load(&d, buf ? buf : "", len, opts, cfg_ptr);
}

/* cfg_read_fd -- up to size bytes from fd into buf, until the end; 0 or an errno */
static int
cfg_read_fd(int fd, char *buf, size_t size, size_t *len)
{
	*len = 0;
	while (*len < size) {
		ssize_t n = read(fd, buf + *len, size - *len);

		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return errno;
		if (n > 0)
			*len += (size_t)n;
	}
	return 0;
}

/* cfg_read -- the whole file at path into a new buffer */
static int
cfg_read(struct rpmaf__cfg_diag *d, const char *path, char **buf, size_t *len)
{
	struct rpmaf__cfg_pos none = {0, 0, -1};
	struct stat st;
	int err;
	int ret = RPMAF_E_IO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL,
					    "cannot open: %s (a readable configuration file)",
					    strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL, "not a regular file (a YAML file)");
		goto err_close;
	}
	if (st.st_size > RPMAF_CFG_MAX_FILE) {
		rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL,
				     "%lld bytes, more than %u (a smaller file)",
				     (long long)st.st_size, RPMAF_CFG_MAX_FILE);
		goto err_close;
	}
	/* one byte more than the size, to see a file that grew since fstat() */
	*buf = malloc((size_t)st.st_size + 1);
	if (*buf == NULL) {
		ret = rpmaf__cfg_diag_nomem(d);
		goto err_close;
	}
	if ((err = cfg_read_fd(fd, *buf, (size_t)st.st_size + 1, len)) != 0 ||
	    *len > (size_t)st.st_size) {
		rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL, "cannot read: %s (a stable file)",
				     err ? strerror(err) : "the file grew while read");
		goto err_free;
	}
	close(fd);
	return 0;

err_free:
	free(*buf);
	*buf = NULL;
err_close:
	close(fd);
	return ret;
}

/* see rpmaf.h */
int
rpmaf_cfg_load_file(const char *path, const struct rpmaf_cfg_opts *opts, struct rpmaf_cfg **cfg_ptr,
		    struct rpmaf_cfg_err *err)
{
	static const struct rpmaf_cfg_opts none;
	struct rpmaf__cfg_diag d;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	opts = opts ? opts : &none;
	rpmaf__cfg_diag_init(&d, path ? path : "<null>", opts->overrides, err);
	if (path == NULL || cfg_ptr == NULL)
		return cfg_invalid(&d, path == NULL ? "path is NULL" : "cfg_ptr is NULL");
	if ((ret = cfg_check_opts(&d, opts)) || (ret = cfg_read(&d, path, &buf, &len)))
		return ret;
	ret = cfg_load(&d, buf, len, opts, cfg_ptr);
	free(buf);
	return ret;
}
