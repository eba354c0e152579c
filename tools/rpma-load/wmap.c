/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wmap.c -- the table-driven mapper of a document tree: unknown and missing
 * keys against a table, and the scalar types only a workload file uses (the
 * key path and the shared types are config/keypath.c's).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "scalar.h"
#include "wmap.h"

#define WMAP_NAME_MAX 64
#define WMAP_KEYS_MAX 32
#define NS_PER_MS     1000000ull

/* wmap_unknown -- a key the table does not have: the known ones listed */
static int
wmap_unknown(struct rpmaf__cfg_keypath *m, const struct wmap_key *keys,
	     const struct rpmaf__cfg_node *knode)
{
	const char *names[WMAP_KEYS_MAX];
	size_t n = 0;

	for (; keys[n].name && n + 1 < WMAP_KEYS_MAX; n++)
		names[n] = keys[n].name;
	names[n] = NULL;
	return rpmaf__cfg_keypath_unknown(m, knode, names);
}

/* wmap_missing -- the first required key the mapping node lacks */
static int
wmap_missing(struct rpmaf__cfg_keypath *m, const struct wmap_key *keys,
	     const struct rpmaf__cfg_node *node)
{
	for (const struct wmap_key *k = keys; k->name; k++)
		if (k->required && !rpmaf__cfg_map_find(node, k->name, strlen(k->name)))
			return rpmaf__cfg_keypath_missing(m, node, k->name, k->expected);
	return 0;
}

/* see wmap.h */
int
wmap_section(struct rpmaf__cfg_keypath *m, const struct wmap_key *keys,
	     const struct rpmaf__cfg_node *node, void *obj)
{
	if (node->kind != RPMAF__CFG_MAP)
		return rpmaf__cfg_keypath_type_fail(m, node, "a mapping of keys");
	for (size_t i = 0; i + 1 < node->n; i += 2) {
		const struct rpmaf__cfg_node *k = node->items[i];
		const struct wmap_key *key = keys;
		size_t old = rpmaf__cfg_keypath_push(m, k->value, k->len);
		int ret;

		while (key->name &&
		       (strlen(key->name) != k->len || memcmp(key->name, k->value, k->len)))
			key++;
		if (key->name == NULL)
			return wmap_unknown(m, keys, k);
		if ((ret = key->fn(m, node->items[i + 1], obj)))
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	return wmap_missing(m, keys, node);
}

/* wmap_unit -- nanoseconds in one of the unit of len bytes at s; 0 when unknown */
static uint64_t
wmap_unit(const char *s, size_t len)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {{"ns", 1},
		     {"us", 1000},
		     {"ms", NS_PER_MS},
		     {"s", 1000 * NS_PER_MS},
		     {"m", 60000 * NS_PER_MS},
		     {"h", 3600000 * NS_PER_MS}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len && !memcmp(units[i].name, s, len))
			return units[i].ns;
	return 0;
}

/* see wmap.h */
int
wmap_duration(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, uint64_t *ns)
{
	static const char expected[] = "a time from 1ms to 24h: a number and ns, us, ms, s, m or h";
	size_t n = 0;
	uint64_t unit;
	double v;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return rpmaf__cfg_keypath_type_fail(m, node, expected);
	while (n < node->len &&
	       ((node->value[n] >= '0' && node->value[n] <= '9') || node->value[n] == '.'))
		n++;
	unit = wmap_unit(node->value + n, node->len - n);
	if (n == 0 || unit == 0 ||
	    rpmaf__cfg_scalar_float(node->value, n, &v) != RPMAF__CFG_SCALAR_OK)
		return rpmaf__cfg_keypath_type_fail(m, node, expected);
	if (v * (double)unit < (double)NS_PER_MS || v * (double)unit > 86400e9)
		return rpmaf__cfg_keypath_range_fail(m, node, expected);
	*ns = (uint64_t)(v * (double)unit);
	return 0;
}

/* see wmap.h */
int
wmap_name(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, const char *expected,
	  char **s)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return rpmaf__cfg_keypath_type_fail(m, node, expected);
	if (node->len > WMAP_NAME_MAX || !rpmaf__cfg_scalar_name_ok(node->value, node->len)) {
		snprintf(what, sizeof(what), "%s is not valid",
			 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
		return rpmaf__cfg_keypath_fail(m, node, what, expected);
	}
	if (!(*s = strndup(node->value, node->len)))
		return rpmaf__cfg_diag_nomem(m->d);
	return 0;
}
