/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wmap.h -- a small table-driven mapper of a YAML document tree (the tree of
 * config/doc.h, so that the text checks, the bounds, duplicate keys, aliases
 * and --set overrides are those of the configuration loader) onto a struct
 * of the caller's. Each key of a table names a function that maps its value;
 * the mapper keeps the key path ("mix[1].weight") for the messages of
 * config/diag.h: FILE:LINE:COLUMN: key.path: what is wrong (what was expected).
 *
 * ASSUMPTIONS
 * A struct wmap lives on the stack of one load; nothing here is shared
 * between threads.
 */

#ifndef RPMA_LOAD_WMAP_H
#define RPMA_LOAD_WMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "doc.h"

struct wmap {
	struct rpmaf__cfg_diag *d;
	char path[RPMAF__CFG_PATH_MAX];
	size_t plen;
};

struct wmap_key;

/* what maps the value node of a key into obj; 0 or a negative code (the message in m->d) */
typedef int (*wmap_fn)(struct wmap *m, const struct rpmaf__cfg_node *node, void *obj);

/* one key of a mapping; a table ends with a NULL name */
struct wmap_key {
	const char *name;
	wmap_fn fn;
	bool required;
	const char *expected; /* what its value may be, for messages */
};

/* wmap_init -- a mapper that reports into d */
void wmap_init(struct wmap *m, struct rpmaf__cfg_diag *d);

/*
 * wmap_section -- map the mapping node with keys into obj: every key known,
 * every required key present
 * RETURN VALUE: 0; RPMAF_E_CONFIG (or what a key's function returns).
 */
int wmap_section(struct wmap *m, const struct wmap_key *keys, const struct rpmaf__cfg_node *node,
		 void *obj);

/* wmap_push -- append ".name" to the key path; returns the old length for wmap_pop() */
size_t wmap_push(struct wmap *m, const char *name, size_t len);

/* wmap_push_index -- append "[i]" to the key path; returns the old length */
size_t wmap_push_index(struct wmap *m, size_t i);

/* wmap_pop -- back to a length from wmap_push*() */
void wmap_pop(struct wmap *m, size_t old);

/*
 * wmap_fail -- an RPMAF_E_CONFIG error at node for the current path:
 * "what (expected)". Returns RPMAF_E_CONFIG.
 */
int wmap_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *what,
	      const char *expected);

/*
 * wmap_type_fail -- node is not what was expected: says what it is (a list,
 * a mapping, no value, the text found). Returns RPMAF_E_CONFIG.
 */
int wmap_type_fail(struct wmap *m, const struct rpmaf__cfg_node *node, const char *expected);

/*
 * wmap_uint -- a plain decimal integer from min to max; with sizes true, an
 * optional K/M/G/T suffix (powers of 1024)
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int wmap_uint(struct wmap *m, const struct rpmaf__cfg_node *node, bool sizes, uint64_t min,
	      uint64_t max, const char *expected, uint64_t *v);

/*
 * wmap_float -- a plain decimal number from min to max
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int wmap_float(struct wmap *m, const struct rpmaf__cfg_node *node, double min, double max,
	       const char *expected, double *v);

/*
 * wmap_duration -- a number and a unit (ns, us, ms, s, m, h): "5s", "1.5s",
 * "500ms", in nanoseconds, from 1 ms to 1 day
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int wmap_duration(struct wmap *m, const struct rpmaf__cfg_node *node, uint64_t *ns);

/*
 * wmap_word -- one of the NULL-terminated names (a misspelt one gets a
 * suggestion); its index in *idx
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int wmap_word(struct wmap *m, const struct rpmaf__cfg_node *node, const char *const *names,
	      const char *expected, int *idx);

/*
 * wmap_name -- a name (letters, digits, '_', '-', '.'; 1 to 64 bytes),
 * newly allocated into *s (the caller frees it)
 * RETURN VALUE: 0; RPMAF_E_CONFIG; RPMAF_E_NOMEM.
 */
int wmap_name(struct wmap *m, const struct rpmaf__cfg_node *node, const char *expected, char **s);

#endif /* RPMA_LOAD_WMAP_H */
