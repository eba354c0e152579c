/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * keypath.h -- the key path of a mapping in progress ("regions[1].backing.file")
 * and the messages of what does not fit at it, in the form of diag.h:
 * FILE:LINE:COLUMN: key.path: what is wrong (what was expected). The
 * configuration's mapper (map.c) and the workload files of rpma-load both
 * walk a document tree of doc.h with it, so that their messages read alike.
 *
 * ASSUMPTIONS
 * A struct rpmaf__cfg_keypath lives on the stack of one load; nothing here is
 * shared between threads. expected is what a value may be, for the "(...)"
 * of a message.
 */

#ifndef RPMAF_CFG_KEYPATH_H
#define RPMAF_CFG_KEYPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "doc.h"

struct rpmaf__cfg_keypath {
	struct rpmaf__cfg_diag *d; /* where a failure is reported */
	char path[RPMAF__CFG_PATH_MAX];
	size_t plen;
};

/* rpmaf__cfg_keypath_init -- an empty path that reports into d */
void rpmaf__cfg_keypath_init(struct rpmaf__cfg_keypath *kp, struct rpmaf__cfg_diag *d);

/*
 * rpmaf__cfg_keypath_push -- append ".name" ("name" at the top) to the path;
 * returns the old length for rpmaf__cfg_keypath_pop()
 */
size_t rpmaf__cfg_keypath_push(struct rpmaf__cfg_keypath *kp, const char *name, size_t len);

/* rpmaf__cfg_keypath_push_index -- append "[i]" to the path; returns the old length */
size_t rpmaf__cfg_keypath_push_index(struct rpmaf__cfg_keypath *kp, size_t i);

/* rpmaf__cfg_keypath_pop -- back to a length from rpmaf__cfg_keypath_push*() */
void rpmaf__cfg_keypath_pop(struct rpmaf__cfg_keypath *kp, size_t old);

/*
 * rpmaf__cfg_keypath_fail -- an RPMAF_E_CONFIG error at node for the current
 * path: "what (expected)". Returns RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			    const char *what, const char *expected);

/*
 * rpmaf__cfg_keypath_type_fail -- node is not what was expected: says what it
 * is (a list, a mapping, no value, the text found). Returns RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_type_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
				 const char *expected);

/*
 * rpmaf__cfg_keypath_range_fail -- node holds a value of the right type
 * beyond its range: says which. Returns RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_range_fail(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
				  const char *expected);

/*
 * rpmaf__cfg_keypath_unknown -- knode is a key not among the NULL-terminated
 * names: the names listed, the nearest one suggested. Returns RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_unknown(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *knode,
			       const char *const *names);

/*
 * rpmaf__cfg_keypath_missing -- the mapping node lacks the required key name
 * (reported at the path of that key). Returns RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_missing(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			       const char *name, const char *expected);

/*
 * rpmaf__cfg_keypath_uint -- a plain decimal integer from min to max; with
 * sizes true, an optional K/M/G/T suffix (powers of 1024)
 * RETURN VALUE: 0 and *v set; RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_uint(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			    bool sizes, uint64_t min, uint64_t max, const char *expected,
			    uint64_t *v);

/*
 * rpmaf__cfg_keypath_float -- a plain decimal number from min to max
 * RETURN VALUE: 0 and *v set; RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_float(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			     double min, double max, const char *expected, double *v);

/*
 * rpmaf__cfg_keypath_word -- one of the NULL-terminated names (a misspelt one
 * gets a suggestion); its index in *idx
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int rpmaf__cfg_keypath_word(struct rpmaf__cfg_keypath *kp, const struct rpmaf__cfg_node *node,
			    const char *const *names, const char *expected, int *idx);

#endif /* RPMAF_CFG_KEYPATH_H */
