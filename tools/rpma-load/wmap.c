/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wmap.c -- the table-driven mapper of a document tree: key paths, unknown
 * and missing keys, and the scalar types a workload file uses.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpmaf.h"
#include "scalar.h"
#include "wmap.h"

#define WMAP_EXPECTED_MAX 512
#define WMAP_NAME_MAX	  64
#define WMAP_KEYS_MAX	  32
#define NS_PER_MS	  1000000ull

/* see wmap.h */
void
wmap_init(struct wmap *m, struct rpmaf__cfg_diag *d)
{
	m->d = d;
	m->plen = 0;
	m->path[0] = '\0';
}

/* wmap_clamp -- keep the path length within the buffer after an snprintf of n bytes */
static void
wmap_clamp(struct wmap *m, int n)
{
	m->plen += n > 0 ? (size_t)n : 0;
	if (m->plen >= sizeof(m->path))
		m->plen = sizeof(m->path) - 1;
}

/* see wmap.h */
size_t
wmap_push(struct wmap *m, const char *name, size_t len)
{
	size_t old = m->plen;
	char shown[80];

	wmap_clamp(m, snprintf(m->path + m->plen, sizeof(m->path) - m->plen, "%s%s",
			       m->plen ? "." : "",
			       rpmaf__cfg_diag_key(shown, sizeof(shown), name, len)));
	return old;
}

/* see wmap.h */
size_t
wmap_push_index(struct wmap *m, size_t i)
{
	size_t old = m->plen;

	wmap_clamp(m, snprintf(m->path + m->plen, sizeof(m->path) - m->plen, "[%zu]", i));
	return old;
}

/* see wmap.h */
void
wmap_pop(struct wmap *m, size_t old)
{
	m->plen = old;
	m->path[old] = '\0';
}

/* see wmap.h */
int
wmap_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *what,
	  const char *expected)
{
	return rpmaf__cfg_diag_fail(m->d, RPMAF_E_CONFIG, node->pos, m->path, "%s (%s)", what,
				    expected);
}

/* see wmap.h */
int
wmap_type_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *expected)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind == RPMAF__CFG_SEQ)
		return wmap_fail(m, node, "found a list", expected);
	if (node->kind == RPMAF__CFG_MAP)
		return wmap_fail(m, node, "found a mapping", expected);
	if (rpmaf__cfg_node_is_null(node))
		return wmap_fail(m, node, "no value", expected);
	snprintf(what, sizeof(what), "found %s%s", node->plain ? "" : "the quoted string ",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return wmap_fail(m, node, what, expected);
}

/* wmap_range_fail -- a value of the right type beyond its range */
static int
wmap_range_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *expected)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	snprintf(what, sizeof(what), "%s is out of range",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return wmap_fail(m, node, what, expected);
}

/* wmap_word_fail -- an unknown word where one of names was expected, with a suggestion */
static int
wmap_word_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *what,
	       const char *const *names, const char *expected)
{
	const char *near = rpmaf__cfg_suggest(node->value, node->len, names);
	char full[WMAP_EXPECTED_MAX + 64];

	if (near == NULL)
		return wmap_fail(m, node, what, expected);
	snprintf(full, sizeof(full), "did you mean %s? %s", near, expected);
	return wmap_fail(m, node, what, full);
}

/* wmap_unknown -- a key the table does not have: the known ones listed */
static int
wmap_unknown(struct wmap *m, const struct wmap_key *keys, const struct rpmaf__cfg_node *knode)
{
	const char *names[WMAP_KEYS_MAX];
	char expected[WMAP_EXPECTED_MAX];
	size_t n = 0, o;

	o = (size_t)snprintf(expected, sizeof(expected), "one of ");
	for (; keys[n].name && n + 1 < WMAP_KEYS_MAX; n++) {
		names[n] = keys[n].name;
		if (o < sizeof(expected))
			o += (size_t)snprintf(expected + o, sizeof(expected) - o, "%s%s",
					      n ? ", " : "", names[n]);
	}
	names[n] = NULL;
	return wmap_word_fail(m, knode, "unknown key", names, expected);
}

/* wmap_missing -- the first required key the mapping node lacks */
static int
wmap_missing(struct wmap *m, const struct wmap_key *keys, const struct rpmaf__cfg_node *node)
{
	for (const struct wmap_key *k = keys; k->name; k++) {
		size_t old;
		int ret;

		if (!k->required || rpmaf__cfg_map_find(node, k->name, strlen(k->name)))
			continue;
		old = wmap_push(m, k->name, strlen(k->name));
		ret = wmap_fail(m, node, "missing", k->expected);
		wmap_pop(m, old);
		return ret;
	}
	return 0;
}

/* see wmap.h */
int
wmap_section(struct wmap *m, const struct wmap_key *keys, const struct rpmaf__cfg_node *node,
	     void *obj)
{
	if (node->kind != RPMAF__CFG_MAP)
		return wmap_type_fail(m, node, "a mapping of keys");
	for (size_t i = 0; i + 1 < node->n; i += 2) {
		const struct rpmaf__cfg_node *k = node->items[i];
		const struct wmap_key *key = keys;
		size_t old = wmap_push(m, k->value, k->len);
		int ret;

		while (key->name &&
		       (strlen(key->name) != k->len || memcmp(key->name, k->value, k->len)))
			key++;
		if (key->name == NULL)
			return wmap_unknown(m, keys, k);
		if ((ret = key->fn(m, node->items[i + 1], obj)))
			return ret;
		wmap_pop(m, old);
	}
	return wmap_missing(m, keys, node);
}

/* see wmap.h */
int
wmap_uint(struct wmap *m, const struct rpmaf__cfg_node *node, bool sizes, uint64_t min,
	  uint64_t max, const char *expected, uint64_t *v)
{
	enum rpmaf__cfg_scalar_res res;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return wmap_type_fail(m, node, expected);
	res = sizes ? rpmaf__cfg_scalar_size(node->value, node->len, v)
		    : rpmaf__cfg_scalar_uint(node->value, node->len, v);
	if (res == RPMAF__CFG_SCALAR_SYNTAX)
		return wmap_type_fail(m, node, expected);
	if (res == RPMAF__CFG_SCALAR_RANGE || *v < min || *v > max)
		return wmap_range_fail(m, node, expected);
	return 0;
}

/* see wmap.h */
int
wmap_float(struct wmap *m, const struct rpmaf__cfg_node *node, double min, double max,
	   const char *expected, double *v)
{
	enum rpmaf__cfg_scalar_res res;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return wmap_type_fail(m, node, expected);
	res = rpmaf__cfg_scalar_float(node->value, node->len, v);
	if (res == RPMAF__CFG_SCALAR_SYNTAX)
		return wmap_type_fail(m, node, expected);
	if (res == RPMAF__CFG_SCALAR_RANGE || *v < min || *v > max)
		return wmap_range_fail(m, node, expected);
	return 0;
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
wmap_duration(struct wmap *m, const struct rpmaf__cfg_node *node, uint64_t *ns)
{
	static const char expected[] = "a time from 1ms to 24h: a number and ns, us, ms, s, m or h";
	size_t n = 0;
	uint64_t unit;
	double v;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return wmap_type_fail(m, node, expected);
	while (n < node->len &&
	       ((node->value[n] >= '0' && node->value[n] <= '9') || node->value[n] == '.'))
		n++;
	unit = wmap_unit(node->value + n, node->len - n);
	if (n == 0 || unit == 0 ||
	    rpmaf__cfg_scalar_float(node->value, n, &v) != RPMAF__CFG_SCALAR_OK)
		return wmap_type_fail(m, node, expected);
	if (v * (double)unit < (double)NS_PER_MS || v * (double)unit > 86400e9)
		return wmap_range_fail(m, node, expected);
	*ns = (uint64_t)(v * (double)unit);
	return 0;
}

/* see wmap.h */
int
wmap_word(struct wmap *m, const struct rpmaf__cfg_node *node, const char *const *names,
	  const char *expected, int *idx)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return wmap_type_fail(m, node, expected);
	if ((*idx = rpmaf__cfg_scalar_enum(node->value, node->len, names)) >= 0)
		return 0;
	snprintf(what, sizeof(what), "unknown value %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return wmap_word_fail(m, node, what, names, expected);
}

/* see wmap.h */
int
wmap_name(struct wmap *m, const struct rpmaf__cfg_node *node, const char *expected, char **s)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return wmap_type_fail(m, node, expected);
	if (node->len > WMAP_NAME_MAX || !rpmaf__cfg_scalar_name_ok(node->value, node->len)) {
		snprintf(what, sizeof(what), "%s is not valid",
			 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
		return wmap_fail(m, node, what, expected);
	}
	if (!(*s = strndup(node->value, node->len)))
		return rpmaf__cfg_diag_nomem(m->d);
	return 0;
}
