/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * map.c -- the mapper: walks the document in order and the key table beside
 * it, and reports the first key or value that does not fit with its path
 * ("regions[1].backing.file") and what was expected there.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"
#include "scalar.h"
#include "schema.h"

#define EXPECTED_MAX 512

struct map_ctx {
	struct rpmaf__cfg_diag *d;
	char path[RPMAF__CFG_PATH_MAX];
	size_t plen;
};

static int map_value(struct map_ctx *m, const struct rpmaf__cfg_key *key,
		     const struct rpmaf__cfg_node *node, void *base);

/* map_push -- append ".name" (or "name" at the top) to the path; returns the old length */
static size_t
map_push(struct map_ctx *m, const char *name, size_t len)
{
	size_t old = m->plen;
	char shown[80];
	int n = snprintf(m->path + m->plen, sizeof(m->path) - m->plen, "%s%s", m->plen ? "." : "",
			 rpmaf__cfg_diag_key(shown, sizeof(shown), name, len));

	m->plen += n > 0 ? (size_t)n : 0;
	if (m->plen >= sizeof(m->path))
		m->plen = sizeof(m->path) - 1;
	return old;
}

/* map_push_index -- append "[i]" to the path; returns the old length */
static size_t
map_push_index(struct map_ctx *m, size_t i)
{
	size_t old = m->plen;
	int n = snprintf(m->path + m->plen, sizeof(m->path) - m->plen, "[%zu]", i);

	m->plen += n > 0 ? (size_t)n : 0;
	if (m->plen >= sizeof(m->path))
		m->plen = sizeof(m->path) - 1;
	return old;
}

/* map_pop -- back to a path length from map_push*() */
static void
map_pop(struct map_ctx *m, size_t old)
{
	m->plen = old;
	m->path[old] = '\0';
}

/* map_fail -- an RPMAF_E_CONFIG error at node for the current path */
static int
map_fail(struct map_ctx *m, const struct rpmaf__cfg_node *node, const char *what,
	 const char *expected)
{
	return rpmaf__cfg_diag_fail(m->d, RPMAF_E_CONFIG, node->pos, m->path, "%s (%s)", what,
				    expected);
}

/* map_type_fail -- node is not of the kind key needs */
static int
map_type_fail(struct map_ctx *m, const struct rpmaf__cfg_key *key,
	      const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	rpmaf__cfg_key_expected(key, expected, sizeof(expected));
	if (node->kind == RPMAF__CFG_SEQ)
		return map_fail(m, node, "found a list", expected);
	if (node->kind == RPMAF__CFG_MAP)
		return map_fail(m, node, "found a mapping", expected);
	if (rpmaf__cfg_node_is_null(node))
		return map_fail(m, node, "no value", expected);
	snprintf(what, sizeof(what), "found %s%s", node->plain ? "" : "the quoted string ",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return map_fail(m, node, what, expected);
}

/* map_range_fail -- a value of the right type beyond the range of key */
static int
map_range_fail(struct map_ctx *m, const struct rpmaf__cfg_key *key,
	       const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	rpmaf__cfg_key_expected(key, expected, sizeof(expected));
	snprintf(what, sizeof(what), "%s is out of range",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return map_fail(m, node, what, expected);
}

/* map_word_fail -- an unknown word where one of names was expected, with a suggestion */
static int
map_word_fail(struct map_ctx *m, const struct rpmaf__cfg_node *node, const char *what,
	      const char *const *names, const char *expected)
{
	const char *near = rpmaf__cfg_suggest(node->value, node->len, names);
	char full[EXPECTED_MAX + 64];

	if (near == NULL)
		return map_fail(m, node, what, expected);
	snprintf(full, sizeof(full), "did you mean %s? %s", near, expected);
	return map_fail(m, node, what, full);
}

/* map_align_fail -- a size that is not a multiple of what key needs */
static int
map_align_fail(struct map_ctx *m, const struct rpmaf__cfg_key *key,
	       const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];
	char align[32];

	snprintf(what, sizeof(what), "%s is not a multiple of %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len),
		 rpmaf__cfg_size_str(key->align, align, sizeof(align)));
	return map_fail(m, node, what, rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
}

/* map_uint -- an integer key into a uint32_t or uint64_t field */
static int
map_uint(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 void *field)
{
	uint64_t v = 0;
	enum rpmaf__cfg_scalar_res res;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return map_type_fail(m, key, node);
	if (key->type == RPMAF__CFG_T_U32_AUTO && node->len == 4 &&
	    !memcmp(node->value, "auto", 4)) {
		*(uint32_t *)field = RPMAF__CFG_AUTO;
		return 0;
	}
	if (key->type == RPMAF__CFG_T_SIZE)
		res = rpmaf__cfg_scalar_size(node->value, node->len, &v);
	else
		res = rpmaf__cfg_scalar_uint(node->value, node->len, &v);
	if (res == RPMAF__CFG_SCALAR_SYNTAX)
		return map_type_fail(m, key, node);
	if (res == RPMAF__CFG_SCALAR_RANGE || v < key->min || v > key->max)
		return map_range_fail(m, key, node);
	if (key->type == RPMAF__CFG_T_SIZE && key->align && v % key->align)
		return map_align_fail(m, key, node);
	if (key->type == RPMAF__CFG_T_SIZE)
		*(uint64_t *)field = v;
	else
		*(uint32_t *)field = (uint32_t)v;
	return 0;
}

/* map_float -- a number key into a double field */
static int
map_float(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	  double *field)
{
	enum rpmaf__cfg_scalar_res res;
	double v = 0;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return map_type_fail(m, key, node);
	res = rpmaf__cfg_scalar_float(node->value, node->len, &v);
	if (res == RPMAF__CFG_SCALAR_SYNTAX)
		return map_type_fail(m, key, node);
	if (res == RPMAF__CFG_SCALAR_RANGE || v < key->fmin || v > key->fmax)
		return map_range_fail(m, key, node);
	*field = v;
	return 0;
}

/* map_bool -- a boolean key into a bool field */
static int
map_bool(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 bool *field)
{
	if (node->kind != RPMAF__CFG_SCALAR || !node->plain ||
	    rpmaf__cfg_scalar_bool(node->value, node->len, field) != RPMAF__CFG_SCALAR_OK)
		return map_type_fail(m, key, node);
	return 0;
}

/* map_word -- one of key->names: its index in *idx */
static int
map_word(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 int *idx)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return map_type_fail(m, key, node);
	*idx = rpmaf__cfg_scalar_enum(node->value, node->len, key->names);
	if (*idx >= 0)
		return 0;
	snprintf(what, sizeof(what), "unknown value %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return map_word_fail(m, node, what, key->names,
			     rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
}

/* map_enum -- an enum key into an enum field */
static int
map_enum(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 int *field)
{
	int idx;
	int ret = map_word(m, key, node, &idx);

	if (ret == 0)
		*field = idx;
	return ret;
}

/* map_flags -- a list of names into a bit mask */
static int
map_flags(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	  unsigned *field)
{
	char expected[EXPECTED_MAX];
	unsigned bits = 0;

	if (node->kind != RPMAF__CFG_SEQ)
		return map_type_fail(m, key, node);
	if (node->n == 0)
		return map_fail(m, node, "an empty list",
				rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
	for (size_t i = 0; i < node->n; i++) {
		size_t old = map_push_index(m, i);
		int idx;
		int ret = map_word(m, key, node->items[i], &idx);

		if (ret == 0 && (bits & (1u << idx)))
			ret = map_fail(m, node->items[i], "appears twice", "each value once");
		if (ret)
			return ret;
		bits |= 1u << idx;
		map_pop(m, old);
	}
	*field = bits;
	return 0;
}

/* map_string_ok -- whether a string of key's type may be the len bytes at s */
static bool
map_string_ok(const struct rpmaf__cfg_key *key, const char *s, size_t len)
{
	if (len < key->min || len > key->max || !rpmaf__cfg_scalar_path_ok(s, len))
		return false;
	if (key->type == RPMAF__CFG_T_NAME)
		return rpmaf__cfg_scalar_name_ok(s, len);
	if (key->type == RPMAF__CFG_T_HOST)
		return rpmaf__cfg_scalar_host_ok(s, len);
	return true;
}

/* map_string -- a name, host or path into a newly allocated char * field */
static int
map_string(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	   char **field)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];
	char *s;

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return map_type_fail(m, key, node);
	if (!map_string_ok(key, node->value, node->len)) {
		snprintf(what, sizeof(what), "%s is not valid",
			 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
		return map_fail(m, node, what,
				rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
	}
	s = malloc(node->len + 1);
	if (s == NULL)
		return rpmaf__cfg_diag_nomem(m->d);
	memcpy(s, node->value, node->len + 1);
	*field = s;
	return 0;
}

/* map_cpus -- a list of distinct CPU numbers into an allocated array and its count */
static int
map_cpus(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 void *base)
{
	const struct rpmaf__cfg_key cpu = {
	    .name = "cpu", .type = RPMAF__CFG_T_U32, .min = key->min, .max = key->max};
	uint32_t **cpus = (uint32_t **)((char *)base + key->offset);
	uint32_t *count = (uint32_t *)((char *)base + key->count_offset);

	if (node->kind != RPMAF__CFG_SEQ || node->n == 0)
		return node->kind == RPMAF__CFG_SEQ
			   ? map_fail(m, node, "an empty list", "CPU numbers, one per worker")
			   : map_type_fail(m, key, node);
	if (node->n > 256)
		return map_fail(m, node, "more CPUs than workers can be", "at most 256");
	*cpus = calloc(node->n, sizeof(**cpus));
	if (*cpus == NULL)
		return rpmaf__cfg_diag_nomem(m->d);
	for (size_t i = 0; i < node->n; i++, (*count)++) {
		size_t old = map_push_index(m, i);
		int ret = map_uint(m, &cpu, node->items[i], &(*cpus)[i]);

		for (size_t j = 0; ret == 0 && j < i; j++)
			if ((*cpus)[j] == (*cpus)[i])
				ret = map_fail(m, node->items[i], "CPU appears twice",
					       "each CPU once");
		if (ret)
			return ret;
		map_pop(m, old);
	}
	return 0;
}

/* map_missing -- the first required key of keys that the mapping node lacks */
static int
map_missing(struct map_ctx *m, const struct rpmaf__cfg_key *keys,
	    const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];

	for (const struct rpmaf__cfg_key *k = keys; k->name; k++) {
		size_t old;
		int ret;

		if (!k->required || rpmaf__cfg_map_find(node, k->name, strlen(k->name)))
			continue;
		old = map_push(m, k->name, strlen(k->name));
		ret = map_fail(m, node, "missing",
			       rpmaf__cfg_key_expected(k, expected, sizeof(expected)));
		map_pop(m, old);
		return ret;
	}
	return 0;
}

/* map_unknown -- a key that keys do not have, with the nearest one suggested */
static int
map_unknown(struct map_ctx *m, const struct rpmaf__cfg_key *keys,
	    const struct rpmaf__cfg_node *knode)
{
	const char *names[32];
	char expected[EXPECTED_MAX];
	size_t o = 0;

	rpmaf__cfg_key_names(keys, names, sizeof(names) / sizeof(names[0]));
	o += (size_t)snprintf(expected, sizeof(expected), "one of ");
	for (size_t i = 0; names[i] && o < sizeof(expected); i++)
		o += (size_t)snprintf(expected + o, sizeof(expected) - o, "%s%s", i ? ", " : "",
				      names[i]);
	return map_word_fail(m, knode, "unknown key", names, expected);
}

/* map_section -- a mapping of the keys of key into base */
static int
map_section(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	    void *base)
{
	if (node->kind != RPMAF__CFG_MAP)
		return map_type_fail(m, key, node);
	for (size_t i = 0; i + 1 < node->n; i += 2) {
		const struct rpmaf__cfg_node *k = node->items[i];
		const struct rpmaf__cfg_key *child = key->keys;
		size_t old = map_push(m, k->value, k->len);
		int ret;

		while (child->name && (strlen(child->name) != k->len ||
				       memcmp(child->name, k->value, k->len) != 0))
			child++;
		if (child->name == NULL)
			return map_unknown(m, key->keys, k);
		if ((ret = map_value(m, child, node->items[i + 1], base)))
			return ret;
		map_pop(m, old);
	}
	return map_missing(m, key->keys, node);
}

/* map_list -- a list of mappings into a newly allocated array of elements */
static int
map_list(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	 void *base)
{
	const struct rpmaf__cfg_key elem = {.name = key->name,
					    .type = RPMAF__CFG_T_SECTION,
					    .keys = key->keys,
					    .count_offset = RPMAF__CFG_NONE};
	char **array = (char **)((char *)base + key->offset);
	uint32_t *count = (uint32_t *)((char *)base + key->count_offset);
	char what[64];
	char expected[32];

	if (node->kind != RPMAF__CFG_SEQ)
		return map_type_fail(m, key, node);
	if (node->n > key->max) {
		snprintf(what, sizeof(what), "%zu entries", node->n);
		snprintf(expected, sizeof(expected), "at most %u", (unsigned)key->max);
		return map_fail(m, node, what, expected);
	}
	if (node->n == 0)
		return 0;
	*array = calloc(node->n, key->elem_size);
	if (*array == NULL)
		return rpmaf__cfg_diag_nomem(m->d);
	for (size_t i = 0; i < node->n; i++) {
		size_t old = map_push_index(m, i);
		int ret;

		*count = (uint32_t)i + 1; /* counted before it is filled: freed if it fails */
		key->init(*array + i * key->elem_size);
		if ((ret = map_section(m, &elem, node->items[i], *array + i * key->elem_size)))
			return ret;
		map_pop(m, old);
	}
	return 0;
}

/* map_backing -- "anonymous", or a mapping of the backing keys (a file) */
static int
map_backing(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	    void *base)
{
	const struct rpmaf__cfg_key file = {.name = key->name,
					    .type = RPMAF__CFG_T_SECTION,
					    .keys = key->keys,
					    .count_offset = RPMAF__CFG_NONE};
	int *field = (int *)((char *)base + key->offset);
	int idx;
	int ret;

	if (node->kind == RPMAF__CFG_MAP) {
		*field = RPMAF_BACKING_FILE;
		return map_section(m, &file, node, base);
	}
	if ((ret = map_word(m, key, node, &idx)))
		return ret;
	*field = RPMAF_BACKING_ANONYMOUS;
	return 0;
}

/* map_value -- the value node of key into its field of base */
static int
map_value(struct map_ctx *m, const struct rpmaf__cfg_key *key, const struct rpmaf__cfg_node *node,
	  void *base)
{
	void *field = (char *)base + key->offset;

	switch (key->type) {
	case RPMAF__CFG_T_SECTION:
		if (key->count_offset != RPMAF__CFG_NONE)
			*(bool *)((char *)field + key->count_offset) = true;
		return map_section(m, key, node, field);
	case RPMAF__CFG_T_LIST:
		return map_list(m, key, node, base);
	case RPMAF__CFG_T_U32:
	case RPMAF__CFG_T_U32_AUTO:
	case RPMAF__CFG_T_SIZE:
		return map_uint(m, key, node, field);
	case RPMAF__CFG_T_BOOL:
		return map_bool(m, key, node, field);
	case RPMAF__CFG_T_ENUM:
		return map_enum(m, key, node, field);
	case RPMAF__CFG_T_FLAGS:
		return map_flags(m, key, node, field);
	case RPMAF__CFG_T_FLOAT:
		return map_float(m, key, node, field);
	case RPMAF__CFG_T_NAME:
	case RPMAF__CFG_T_HOST:
	case RPMAF__CFG_T_PATH:
		return map_string(m, key, node, field);
	case RPMAF__CFG_T_CPUS:
		return map_cpus(m, key, node, base);
	case RPMAF__CFG_T_BACKING:
		return map_backing(m, key, node, base);
	}
	return 0;
}

/* see map.h */
int
rpmaf__cfg_map(struct rpmaf__cfg_diag *d, const struct rpmaf__cfg_node *root, struct rpmaf_cfg *cfg)
{
	struct map_ctx m = {.d = d, .plen = 0};
	char expected[EXPECTED_MAX];

	m.path[0] = '\0';
	if (rpmaf__cfg_node_is_null(root))
		return rpmaf__cfg_diag_fail(
		    d, RPMAF_E_PARSE, root->pos, NULL, "empty document (%s)",
		    rpmaf__cfg_key_expected(&rpmaf__cfg_schema, expected, sizeof(expected)));
	return map_section(&m, &rpmaf__cfg_schema, root, cfg);
}
