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

#include "keypath.h"
#include "map.h"
#include "scalar.h"
#include "schema.h"

#define EXPECTED_MAX 512

static int map_value(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
		     const struct rpmaf__cfg_node *node, void *base);

/* map_type_fail -- node is not of the kind key needs */
static int
map_type_fail(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	      const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];

	return rpmaf__cfg_keypath_type_fail(
	    m, node, rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
}

/* map_align_fail -- a size that is not a multiple of what key needs */
static int
map_align_fail(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	       const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];
	char align[32];

	snprintf(what, sizeof(what), "%s is not a multiple of %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len),
		 rpmaf__cfg_size_str(key->align, align, sizeof(align)));
	return rpmaf__cfg_keypath_fail(m, node, what,
				       rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
}

/* map_uint -- an integer key into a uint32_t or uint64_t field */
static int
map_uint(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, void *field)
{
	char expected[EXPECTED_MAX];
	uint64_t v = 0;
	int ret;

	if (key->type == RPMAF__CFG_T_U32_AUTO && node->kind == RPMAF__CFG_SCALAR && node->plain &&
	    node->len == 4 && !memcmp(node->value, "auto", 4)) {
		*(uint32_t *)field = RPMAF__CFG_AUTO;
		return 0;
	}
	if ((ret = rpmaf__cfg_keypath_uint(
		 m, node, key->type == RPMAF__CFG_T_SIZE, key->min, key->max,
		 rpmaf__cfg_key_expected(key, expected, sizeof(expected)), &v)))
		return ret;
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
map_float(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	  const struct rpmaf__cfg_node *node, double *field)
{
	char expected[EXPECTED_MAX];
	double v = 0;
	int ret =
	    rpmaf__cfg_keypath_float(m, node, key->fmin, key->fmax,
				     rpmaf__cfg_key_expected(key, expected, sizeof(expected)), &v);

	if (ret == 0)
		*field = v;
	return ret;
}

/* map_bool -- a boolean key into a bool field */
static int
map_bool(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, bool *field)
{
	if (node->kind != RPMAF__CFG_SCALAR || !node->plain ||
	    rpmaf__cfg_scalar_bool(node->value, node->len, field) != RPMAF__CFG_SCALAR_OK)
		return map_type_fail(m, key, node);
	return 0;
}

/* map_word -- one of key->names: its index in *idx */
static int
map_word(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, int *idx)
{
	char expected[EXPECTED_MAX];

	return rpmaf__cfg_keypath_word(
	    m, node, key->names, rpmaf__cfg_key_expected(key, expected, sizeof(expected)), idx);
}

/* map_enum -- an enum key into an enum field */
static int
map_enum(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, int *field)
{
	int idx;
	int ret = map_word(m, key, node, &idx);

	if (ret == 0)
		*field = idx;
	return ret;
}

/* map_flags -- a list of names into a bit mask */
static int
map_flags(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	  const struct rpmaf__cfg_node *node, unsigned *field)
{
	char expected[EXPECTED_MAX];
	unsigned bits = 0;

	if (node->kind != RPMAF__CFG_SEQ)
		return map_type_fail(m, key, node);
	if (node->n == 0)
		return rpmaf__cfg_keypath_fail(
		    m, node, "an empty list",
		    rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
	for (size_t i = 0; i < node->n; i++) {
		size_t old = rpmaf__cfg_keypath_push_index(m, i);
		int idx;
		int ret = map_word(m, key, node->items[i], &idx);

		if (ret == 0 && (bits & (1u << idx)))
			ret = rpmaf__cfg_keypath_fail(m, node->items[i], "appears twice",
						      "each value once");
		if (ret)
			return ret;
		bits |= 1u << idx;
		rpmaf__cfg_keypath_pop(m, old);
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
map_string(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	   const struct rpmaf__cfg_node *node, char **field)
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
		return rpmaf__cfg_keypath_fail(
		    m, node, what, rpmaf__cfg_key_expected(key, expected, sizeof(expected)));
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
map_cpus(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, void *base)
{
	const struct rpmaf__cfg_key cpu = {
	    .name = "cpu", .type = RPMAF__CFG_T_U32, .min = key->min, .max = key->max};
	uint32_t **cpus = (uint32_t **)((char *)base + key->offset);
	uint32_t *count = (uint32_t *)((char *)base + key->count_offset);

	if (node->kind != RPMAF__CFG_SEQ || node->n == 0)
		return node->kind == RPMAF__CFG_SEQ
			   ? rpmaf__cfg_keypath_fail(m, node, "an empty list",
						     "CPU numbers, one per worker")
			   : map_type_fail(m, key, node);
	if (node->n > 256)
		return rpmaf__cfg_keypath_fail(m, node, "more CPUs than workers can be",
					       "at most 256");
	*cpus = calloc(node->n, sizeof(**cpus));
	if (*cpus == NULL)
		return rpmaf__cfg_diag_nomem(m->d);
	for (size_t i = 0; i < node->n; i++, (*count)++) {
		size_t old = rpmaf__cfg_keypath_push_index(m, i);
		int ret = map_uint(m, &cpu, node->items[i], &(*cpus)[i]);

		for (size_t j = 0; ret == 0 && j < i; j++)
			if ((*cpus)[j] == (*cpus)[i])
				ret = rpmaf__cfg_keypath_fail(m, node->items[i],
							      "CPU appears twice", "each CPU once");
		if (ret)
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	return 0;
}

/* map_missing -- the first required key of keys that the mapping node lacks */
static int
map_missing(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *keys,
	    const struct rpmaf__cfg_node *node)
{
	char expected[EXPECTED_MAX];

	for (const struct rpmaf__cfg_key *k = keys; k->name; k++)
		if (k->required && !rpmaf__cfg_map_find(node, k->name, strlen(k->name)))
			return rpmaf__cfg_keypath_missing(
			    m, node, k->name,
			    rpmaf__cfg_key_expected(k, expected, sizeof(expected)));
	return 0;
}

/* map_unknown -- a key that keys do not have, with the nearest one suggested */
static int
map_unknown(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *keys,
	    const struct rpmaf__cfg_node *knode)
{
	const char *names[32];

	rpmaf__cfg_key_names(keys, names, sizeof(names) / sizeof(names[0]));
	return rpmaf__cfg_keypath_unknown(m, knode, names);
}

/* map_section -- a mapping of the keys of key into base */
static int
map_section(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	    const struct rpmaf__cfg_node *node, void *base)
{
	if (node->kind != RPMAF__CFG_MAP)
		return map_type_fail(m, key, node);
	for (size_t i = 0; i + 1 < node->n; i += 2) {
		const struct rpmaf__cfg_node *k = node->items[i];
		const struct rpmaf__cfg_key *child = key->keys;
		size_t old = rpmaf__cfg_keypath_push(m, k->value, k->len);
		int ret;

		while (child->name && (strlen(child->name) != k->len ||
				       memcmp(child->name, k->value, k->len) != 0))
			child++;
		if (child->name == NULL)
			return map_unknown(m, key->keys, k);
		if ((ret = map_value(m, child, node->items[i + 1], base)))
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	return map_missing(m, key->keys, node);
}

/* map_list -- a list of mappings into a newly allocated array of elements */
static int
map_list(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	 const struct rpmaf__cfg_node *node, void *base)
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
		return rpmaf__cfg_keypath_fail(m, node, what, expected);
	}
	if (node->n == 0)
		return 0;
	*array = calloc(node->n, key->elem_size);
	if (*array == NULL)
		return rpmaf__cfg_diag_nomem(m->d);
	for (size_t i = 0; i < node->n; i++) {
		size_t old = rpmaf__cfg_keypath_push_index(m, i);
		int ret;

		*count = (uint32_t)i + 1; /* counted before it is filled: freed if it fails */
		key->init(*array + i * key->elem_size);
		if ((ret = map_section(m, &elem, node->items[i], *array + i * key->elem_size)))
			return ret;
		rpmaf__cfg_keypath_pop(m, old);
	}
	return 0;
}

/* map_backing -- "anonymous", or a mapping of the backing keys (a file) */
static int
map_backing(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	    const struct rpmaf__cfg_node *node, void *base)
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
map_value(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_key *key,
	  const struct rpmaf__cfg_node *node, void *base)
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
	struct rpmaf__cfg_keypath m;
	char expected[EXPECTED_MAX];

	rpmaf__cfg_keypath_init(&m, d);
	if (rpmaf__cfg_node_is_null(root))
		return rpmaf__cfg_diag_fail(
		    d, RPMAF_E_PARSE, root->pos, NULL, "empty document (%s)",
		    rpmaf__cfg_key_expected(&rpmaf__cfg_schema, expected, sizeof(expected)));
	return map_section(&m, &rpmaf__cfg_schema, root, cfg);
}
