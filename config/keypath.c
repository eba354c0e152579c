/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * keypath.c -- the key path of a mapping and its messages (see keypath.h):
 * one copy for the configuration's mapper and rpma-load's workload files.
 */

#include <stdio.h>
#include <string.h>

#include "keypath.h"
#include "scalar.h"

#define KEYPATH_EXPECTED_MAX 512

/* see keypath.h */
void
rpmaf__cfg_keypath_init(struct rpmaf__cfg_keypath *kp, struct rpmaf__cfg_diag *d)
{
	kp->d = d;
	kp->plen = 0;
	kp->path[0] = '\0';
}

/* keypath_grow -- keep the length within the buffer after an snprintf of n bytes onto the path */
static void
keypath_grow(struct rpmaf__cfg_keypath *kp, int n)
{
	kp->plen += n > 0 ? (size_t)n : 0;
	if (kp->plen >= sizeof(kp->path))
		kp->plen = sizeof(kp->path) - 1;
}

/* see keypath.h */
size_t
rpmaf__cfg_keypath_push(struct rpmaf__cfg_keypath *kp, const char *name, size_t len)
{
	size_t old = kp->plen;
	char shown[80];

	keypath_grow(kp, snprintf(kp->path + kp->plen, sizeof(kp->path) - kp->plen, "%s%s",
				  kp->plen ? "." : "",
				  rpmaf__cfg_diag_key(shown, sizeof(shown), name, len)));
	return old;
}

/* see keypath.h */
size_t
rpmaf__cfg_keypath_push_index(struct rpmaf__cfg_keypath *kp, size_t i)
{
	size_t old = kp->plen;

	keypath_grow(kp, snprintf(kp->path + kp->plen, sizeof(kp->path) - kp->plen, "[%zu]", i));
	return old;
}

/* see keypath.h */
void
rpmaf__cfg_keypath_pop(struct rpmaf__cfg_keypath *kp, size_t old)
{
	kp->plen = old;
	kp->path[old] = '\0';
}

/* see keypath.h */
int
rpmaf__cfg_keypath_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			const char *what, const char *expected)
{
	return rpmaf__cfg_diag_fail(kp->d, RPMAF_E_CONFIG, node->pos, kp->path, "%s (%s)", what,
				    expected);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_type_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			     const char *expected)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind == RPMAF__CFG_SEQ)
		return rpmaf__cfg_keypath_fail(kp, node, "found a list", expected);
	if (node->kind == RPMAF__CFG_MAP)
		return rpmaf__cfg_keypath_fail(kp, node, "found a mapping", expected);
	if (rpmaf__cfg_node_is_null(node))
		return rpmaf__cfg_keypath_fail(kp, node, "no value", expected);
	snprintf(what, sizeof(what), "found %s%s", node->plain ? "" : "the quoted string ",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return rpmaf__cfg_keypath_fail(kp, node, what, expected);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_range_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			      const char *expected)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	snprintf(what, sizeof(what), "%s is out of range",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return rpmaf__cfg_keypath_fail(kp, node, what, expected);
}

/* keypath_word_fail -- an unknown word where one of names was expected: the nearest suggested */
static int
keypath_word_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
		  const char *what, const char *const *names, const char *expected)
{
	const char *near = rpmaf__cfg_suggest(node->value, node->len, names);
	char full[KEYPATH_EXPECTED_MAX + 64];

	if (near == NULL)
		return rpmaf__cfg_keypath_fail(kp, node, what, expected);
	snprintf(full, sizeof(full), "did you mean %s? %s", near, expected);
	return rpmaf__cfg_keypath_fail(kp, node, what, full);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_unknown(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *knode,
			   const char *const *names)
{
	char expected[KEYPATH_EXPECTED_MAX];
	size_t o = (size_t)snprintf(expected, sizeof(expected), "one of ");

	for (size_t i = 0; names[i] && o < sizeof(expected); i++)
		o += (size_t)snprintf(expected + o, sizeof(expected) - o, "%s%s", i ? ", " : "",
				      names[i]);
	return keypath_word_fail(kp, knode, "unknown key", names, expected);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_missing(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			   const char *name, const char *expected)
{
	size_t old = rpmaf__cfg_keypath_push(kp, name, strlen(name));
	int ret = rpmaf__cfg_keypath_fail(kp, node, "missing", expected);

	rpmaf__cfg_keypath_pop(kp, old);
	return ret;
}

/*
 * keypath_number -- the verdict on a plain scalar read as a number (res):
 * not a number is a type error, one beyond what it may be (in_range false)
 * a range error; integers and floats are judged alike
 */
static int
keypath_number(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
	       enum rpmaf__cfg_scalar_res res, bool in_range, const char *expected)
{
	if (res == RPMAF__CFG_SCALAR_SYNTAX)
		return rpmaf__cfg_keypath_type_fail(kp, node, expected);
	if (res == RPMAF__CFG_SCALAR_RANGE || !in_range)
		return rpmaf__cfg_keypath_range_fail(kp, node, expected);
	return 0;
}

/* see keypath.h */
int
rpmaf__cfg_keypath_uint(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			bool sizes, uint64_t min, uint64_t max, const char *expected, uint64_t *v)
{
	enum rpmaf__cfg_scalar_res res;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return rpmaf__cfg_keypath_type_fail(kp, node, expected);
	res = sizes ? rpmaf__cfg_scalar_size(node->value, node->len, v)
		    : rpmaf__cfg_scalar_uint(node->value, node->len, v);
	return keypath_number(kp, node, res, res == RPMAF__CFG_SCALAR_OK && !(*v < min || *v > max),
			      expected);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_float(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			 double min, double max, const char *expected, double *v)
{
	enum rpmaf__cfg_scalar_res res;

	if (node->kind != RPMAF__CFG_SCALAR || !node->plain)
		return rpmaf__cfg_keypath_type_fail(kp, node, expected);
	res = rpmaf__cfg_scalar_float(node->value, node->len, v);
	return keypath_number(kp, node, res, res == RPMAF__CFG_SCALAR_OK && !(*v < min || *v > max),
			      expected);
}

/* see keypath.h */
int
rpmaf__cfg_keypath_word(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			const char *const *names, const char *expected, int *idx)
{
	char what[RPMAF__CFG_PATH_MAX];
	char quoted[96];

	if (node->kind != RPMAF__CFG_SCALAR || rpmaf__cfg_node_is_null(node))
		return rpmaf__cfg_keypath_type_fail(kp, node, expected);
	if ((*idx = rpmaf__cfg_scalar_enum(node->value, node->len, names)) >= 0)
		return 0;
	snprintf(what, sizeof(what), "unknown value %s",
		 rpmaf__cfg_quote(quoted, sizeof(quoted), node->value, node->len));
	return keypath_word_fail(kp, node, what, names, expected);
}
