/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * workload.c -- the workload file: its key tables, the rules between keys,
 * and the load (the YAML tree with its overrides from config/'s
 * rpmaf__cfg_tree(), then the mapper of wmap.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "override.h"
#include "text.h"
#include "wmap.h"
#include "workload.h"

#define WL_MAX_THREADS 256
#define WL_MAX_QD      1024
#define WL_MAX_WEIGHT  1000000
#define WL_MAX_RATE    1e9

enum { WL_CHOSE_COUNT = 1, WL_CHOSE_DURATION };

const char *const Wl_kind_names[WL_NKINDS + 1] = {"write",  "write_persist", "read",
						  "atomic", "call",	     NULL};

static const char Kind_expected[] = "one of write, write_persist, read, atomic, call";
static const char Size_expected[] = "a size from 1 to 1G (\"4K\") or {uniform: [LOW, HIGH]}";

/* one entry of the mix while it is mapped */
struct wl_mix_entry {
	int kind;
	uint64_t weight;
};

/* mix_kind -- mix[i].kind */
static int
mix_kind(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct wl_mix_entry *e = obj;

	return rpmaf__cfg_keypath_word(m, node, Wl_kind_names, Kind_expected, &e->kind);
}

/* mix_weight -- mix[i].weight */
static int
mix_weight(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct wl_mix_entry *e = obj;

	return rpmaf__cfg_keypath_uint(m, node, false, 0, WL_MAX_WEIGHT,
				       "an integer from 0 to 1000000", &e->weight);
}

static const struct wmap_key Mix_keys[] = {
    {"kind", mix_kind, true, Kind_expected},
    {"weight", mix_weight, false, "an integer from 0 to 1000000 (default 1)"},
    {NULL, NULL, false, NULL},
};

/* mix_entry -- one entry of the mix into wl; a kind may appear once */
static int
mix_entry(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, struct workload *wl)
{
	struct wl_mix_entry e = {.kind = -1, .weight = 1};
	char what[96];
	int ret;

	if ((ret = wmap_section(m, Mix_keys, node, &e)))
		return ret;
	if (wl->in_mix[e.kind]) {
		snprintf(what, sizeof(what), "kind %s appears twice", Wl_kind_names[e.kind]);
		return rpmaf__cfg_keypath_fail(m, node, what, "each kind once in the mix");
	}
	wl->in_mix[e.kind] = true;
	wl->weight[e.kind] = (uint32_t)e.weight;
	return 0;
}

/* top_mix -- the list of kinds and weights */
static int
top_mix(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	static const char expected[] = "a list of {kind: KIND, weight: N}";
	struct workload *wl = obj;
	uint64_t total = 0;
	int ret;

	if (node->kind != RPMAF__CFG_SEQ)
		return rpmaf__cfg_keypath_type_fail(m, node, expected);
	if (node->n == 0)
		return rpmaf__cfg_keypath_fail(m, node, "an empty list", expected);
	for (size_t i = 0; i < node->n; i++) {
		size_t old = rpmaf__cfg_keypath_push_index(m, i);

		if ((ret = mix_entry(m, node->items[i], wl)))
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	for (int k = 0; k < WL_NKINDS; k++)
		total += wl->weight[k];
	if (total == 0)
		return rpmaf__cfg_keypath_fail(m, node, "every weight is 0",
					       "at least one weight above 0");
	return 0;
}

/* size_uniform -- sizes.KIND.uniform: [LOW, HIGH] */
static int
size_uniform(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	static const char expected[] = "[LOW, HIGH]: two sizes from 1 to 1G, LOW <= HIGH";
	struct wl_size *s = obj;
	size_t old;
	int ret;

	if (node->kind != RPMAF__CFG_SEQ || node->n != 2)
		return node->kind == RPMAF__CFG_SEQ
			   ? rpmaf__cfg_keypath_fail(m, node, "not two sizes", expected)
			   : rpmaf__cfg_keypath_type_fail(m, node, expected);
	for (size_t i = 0; i < 2; i++) {
		old = rpmaf__cfg_keypath_push_index(m, i);
		if ((ret = rpmaf__cfg_keypath_uint(m, node->items[i], true, 1, WL_MAX_SIZE,
						   expected, i ? &s->hi : &s->lo)))
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	if (s->lo > s->hi)
		return rpmaf__cfg_keypath_fail(m, node, "LOW is above HIGH", expected);
	return 0;
}

static const struct wmap_key Dist_keys[] = {
    {"uniform", size_uniform, true, "[LOW, HIGH]"},
    {NULL, NULL, false, NULL},
};

/* size_value -- a size or a distribution of sizes into s */
static int
size_value(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, struct wl_size *s)
{
	if (node->kind == RPMAF__CFG_MAP)
		return wmap_section(m, Dist_keys, node, s);
	if (rpmaf__cfg_keypath_uint(m, node, true, 1, WL_MAX_SIZE, Size_expected, &s->lo))
		return RPMAF_E_CONFIG;
	s->hi = s->lo;
	return 0;
}

/* size_kind -- sizes.KIND of kind k into wl */
static int
size_kind(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, struct workload *wl,
	  int k)
{
	return size_value(m, node, &wl->size[k]);
}

/* size_atomic -- sizes.atomic: only 8 is possible */
static int
size_atomic(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct wl_size s;
	int ret;

	(void)obj;
	if ((ret = size_value(m, node, &s)))
		return ret;
	if (s.lo != WL_ATOMIC_SIZE || s.hi != WL_ATOMIC_SIZE)
		return rpmaf__cfg_keypath_fail(m, node, "an atomic write is 8 bytes", "8");
	return 0;
}

/* sizes_write, sizes_write_persist, sizes_read, sizes_call -- one key of sizes each */
static int
sizes_write(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	return size_kind(m, node, obj, WL_WRITE);
}

static int
sizes_write_persist(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	return size_kind(m, node, obj, WL_WRITE_PERSIST);
}

static int
sizes_read(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	return size_kind(m, node, obj, WL_READ);
}

static int
sizes_call(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	return size_kind(m, node, obj, WL_CALL);
}

static const struct wmap_key Size_keys[] = {
    {"write", sizes_write, false, Size_expected},
    {"write_persist", sizes_write_persist, false, Size_expected},
    {"read", sizes_read, false, Size_expected},
    {"atomic", size_atomic, false, "8"},
    {"call", sizes_call, false, Size_expected},
    {NULL, NULL, false, NULL},
};

/* top_sizes -- the sizes of each kind */
static int
top_sizes(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	return wmap_section(m, Size_keys, node, obj);
}

/* top_region -- the target region's name */
static int
top_region(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	return wmap_name(m, node, "a region name of the target", &wl->region);
}

/* top_threads -- application threads */
static int
top_threads(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;
	uint64_t v;
	int ret = rpmaf__cfg_keypath_uint(m, node, false, 1, WL_MAX_THREADS,
					  "an integer from 1 to 256", &v);

	wl->threads = (uint32_t)v;
	return ret;
}

/* top_queue_depth -- operations in flight per thread */
static int
top_queue_depth(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;
	uint64_t v;
	int ret =
	    rpmaf__cfg_keypath_uint(m, node, false, 1, WL_MAX_QD, "an integer from 1 to 1024", &v);

	wl->queue_depth = (uint32_t)v;
	return ret;
}

/* top_duration -- how long to run */
static int
top_duration(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	return wmap_duration(m, node, &wl->duration_ns);
}

/* top_warmup -- how long to run before the figures start */
static int
top_warmup(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	return wmap_duration(m, node, &wl->warmup_ns);
}

/* top_count -- how many operations to run, in all */
static int
top_count(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	return rpmaf__cfg_keypath_uint(m, node, false, 1, UINT64_MAX / 2,
				       "an integer of at least 1", &wl->count);
}

/* top_rate -- the open-loop rate */
static int
top_rate(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	return rpmaf__cfg_keypath_float(m, node, 0.001, WL_MAX_RATE,
					"operations per second, up to 1e9", &wl->rate);
}

/* top_seed -- the seed of the random choices */
static int
top_seed(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj)
{
	struct workload *wl = obj;

	wl->has_seed = true;
	return rpmaf__cfg_keypath_uint(m, node, false, 0, UINT64_MAX, "an integer", &wl->seed);
}

static const struct wmap_key Top_keys[] = {
    {"region", top_region, true, "a region name of the target"},
    {"mix", top_mix, true, "a list of {kind: KIND, weight: N}"},
    {"sizes", top_sizes, false, "a mapping of kinds to sizes"},
    {"threads", top_threads, false, "an integer from 1 to 256"},
    {"queue_depth", top_queue_depth, false, "an integer from 1 to 1024"},
    {"duration", top_duration, false, "a time (\"5s\")"},
    {"count", top_count, false, "an integer of at least 1"},
    {"warmup", top_warmup, false, "a time (\"1s\") run before the figures start"},
    {"rate", top_rate, false, "operations per second"},
    {"seed", top_seed, false, "an integer"},
    {NULL, NULL, false, NULL},
};

/* wl_defaults -- a workload with every default */
static void
wl_defaults(struct workload *wl)
{
	memset(wl, 0, sizeof(*wl));
	for (int k = 0; k < WL_NKINDS; k++)
		wl->size[k].lo = wl->size[k].hi = 4096;
	wl->size[WL_ATOMIC].lo = wl->size[WL_ATOMIC].hi = WL_ATOMIC_SIZE;
	wl->size[WL_CALL].lo = wl->size[WL_CALL].hi = 64;
	wl->threads = 1;
	wl->queue_depth = 1;
}

/*
 * wl_rules -- exactly one of duration and count, unless an override chose
 * (the later of the two wins over the file); a warm-up only with duration
 */
static int
wl_rules(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *root, struct workload *wl,
	 int chosen)
{
	size_t i = rpmaf__cfg_map_find(root, "count", 5);
	size_t old;
	int ret;

	if (chosen == WL_CHOSE_COUNT)
		wl->duration_ns = 0;
	else if (chosen == WL_CHOSE_DURATION)
		wl->count = 0;
	if (wl->duration_ns && wl->count) {
		old = rpmaf__cfg_keypath_push(m, "count", 5);
		ret = rpmaf__cfg_keypath_fail(m, root->items[i - 1], "given with duration",
					      "one of duration and count");
		rpmaf__cfg_keypath_pop(m, old);
		return ret;
	}
	if (!wl->duration_ns && !wl->count)
		return rpmaf__cfg_keypath_fail(m, root, "neither duration nor count",
					       "one of them: duration: 5s, or count: 10000");
	if (wl->warmup_ns && wl->count)
		return rpmaf__cfg_keypath_fail(m, root, "a warm-up with count",
					       "duration: a warm-up runs before a duration only");
	return 0;
}

/* wl_chosen -- which of count and duration the last override of them sets, if any */
static int
wl_chosen(const char *const *overrides, unsigned n)
{
	int chosen = 0;

	for (unsigned i = 0; i < n; i++)
		if (!strncmp(overrides[i], "count=", 6))
			chosen = WL_CHOSE_COUNT;
		else if (!strncmp(overrides[i], "duration=", 9))
			chosen = WL_CHOSE_DURATION;
	return chosen;
}

/* wl_build -- the workload of the tree */
static int
wl_build(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root, int chosen,
	 struct workload **wl_ptr)
{
	struct workload *wl = malloc(sizeof(*wl));
	struct rpmaf__cfg_keypath m;
	int ret;

	if (!wl)
		return rpmaf__cfg_diag_nomem(d);
	wl_defaults(wl);
	rpmaf__cfg_keypath_init(&m, d);
	if (rpmaf__cfg_node_is_null(root))
		ret = rpmaf__cfg_diag_fail(d, RPMAF_E_PARSE, root->pos, NULL,
					   "empty document (a workload: region, mix, ...)");
	else if (!(ret = wmap_section(&m, Top_keys, root, wl)))
		ret = wl_rules(&m, root, wl, chosen);
	if (ret) {
		wl_delete(&wl);
		return ret;
	}
	*wl_ptr = wl;
	return 0;
}

/* see workload.h */
int
wl_load_buffer(const char *name, const char *buf, size_t len, const char *const *overrides,
	       unsigned n_overrides, struct workload **wl_ptr, struct rpmaf_cfg_err *err)
{
	struct rpmaf__cfg_pos none = {0, 0, -1};
	struct rpmaf__cfg_node *root = NULL;
	struct rpmaf__cfg_diag d;
	int ret;

	rpmaf__cfg_diag_init(&d, name ? name : "<buffer>", overrides, err);
	if (!wl_ptr || (!buf && len) || (n_overrides && !overrides) ||
	    n_overrides > RPMAF_CFG_MAX_OVERRIDES)
		return rpmaf__cfg_diag_fail(&d, RPMAF_E_INVAL, none, NULL, "invalid arguments");
	for (unsigned i = 0; i < n_overrides; i++)
		if (!overrides[i])
			return rpmaf__cfg_diag_fail(&d, RPMAF_E_INVAL, none, NULL,
						    "an override is NULL");
	if (len > RPMAF_CFG_MAX_FILE)
		return rpmaf__cfg_diag_fail(&d, RPMAF_E_IO, none, NULL,
					    "%zu bytes, more than %u (a smaller file)", len,
					    RPMAF_CFG_MAX_FILE);
	if ((ret = rpmaf__cfg_tree(&d, buf ? buf : "", len, n_overrides, &root)))
		return ret;
	ret = wl_build(&d, root, wl_chosen(overrides, n_overrides), wl_ptr);
	rpmaf__cfg_node_delete(root);
	return ret;
}

/* wl_read -- the whole file at path (at most RPMAF_CFG_MAX_FILE + 1 bytes) into *buf */
static int
wl_read(struct rpmaf__cfg_diag *d, const char *path, char **buf, size_t *len)
{
	struct rpmaf__cfg_pos none = {0, 0, -1};
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f)
		return rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL, "cannot open: %s",
					    strerror(errno));
	if (!(*buf = malloc(RPMAF_CFG_MAX_FILE + 1))) {
		ret = rpmaf__cfg_diag_nomem(d);
		goto err_close;
	}
	*len = fread(*buf, 1, RPMAF_CFG_MAX_FILE + 1, f);
	if (ferror(f)) {
		ret = rpmaf__cfg_diag_fail(d, RPMAF_E_IO, none, NULL, "cannot read: %s",
					   strerror(errno));
		free(*buf);
		*buf = NULL;
	}
err_close:
	fclose(f);
	return ret;
}

/* see workload.h */
int
wl_load_file(const char *path, const char *const *overrides, unsigned n_overrides,
	     struct workload **wl_ptr, struct rpmaf_cfg_err *err)
{
	struct rpmaf__cfg_diag d;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	rpmaf__cfg_diag_init(&d, path ? path : "<null>", overrides, err);
	if (!path) {
		struct rpmaf__cfg_pos none = {0, 0, -1};

		return rpmaf__cfg_diag_fail(&d, RPMAF_E_INVAL, none, NULL, "no file name");
	}
	if ((ret = wl_read(&d, path, &buf, &len)))
		return ret;
	ret = wl_load_buffer(path, buf, len, overrides, n_overrides, wl_ptr, err);
	free(buf);
	return ret;
}

/* see workload.h */
void
wl_delete(struct workload **wl_ptr)
{
	if (!wl_ptr || !*wl_ptr)
		return;
	free((*wl_ptr)->region);
	free(*wl_ptr);
	*wl_ptr = NULL;
}

/* see workload.h */
uint64_t
wl_max_size(const struct workload *wl, unsigned mask)
{
	uint64_t max = 0;

	for (int k = 0; k < WL_NKINDS; k++)
		if ((mask & (1u << k)) && wl->weight[k] && wl->size[k].hi > max)
			max = wl->size[k].hi;
	return max;
}
