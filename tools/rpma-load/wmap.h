/* SPDX-License-Identifier: BSD-3-Clause */
/* Copyright 2026, the librpma authors */

/*
 * wmap.h -- a small table-driven mapper of a YAML document tree (the tree of
 * config/doc.h, so that the text checks, the bounds, duplicate keys, aliases
 * and --set overrides are those of the configuration loader) onto a struct
 * of the caller's. Each key of a table names a function that maps its value;
 * the key path ("mix[1].weight"), its messages and the scalar types a
 * workload shares with the configuration are config/keypath.h's, linked from
 * librpmaf's own objects; here are the table walk and the workload's own
 * types (a duration, a region name).
 *
 * ASSUMPTIONS
 * The key path lives on the stack of one load; nothing here is shared
 * between threads.
 */

#ifndef RPMA_LOAD_WMAP_H
#define RPMA_LOAD_WMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc.h"
#include "keypath.h"

struct wmap_key;

/* what maps the value node of a key into obj; 0 or a negative code (the message in m->d) */
typedef int (*wmap_fn)(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, void *obj);

/* one key of a mapping; a table ends with a NULL name */
struct wmap_key {
	const char *name;
	wmap_fn fn;
	bool required;
	const char *expected; /* what its value may be, for messages */
};

/*
 * wmap_section -- map the mapping node with keys into obj: every key known,
 * every required key present
 * RETURN VALUE: 0; RPMAF_E_CONFIG (or what a key's function returns).
 */
int wmap_section(struct rpmaf__cfg_keypath *m, const struct wmap_key *keys,
		 const struct rpmaf__cfg_node *node, void *obj);

/*
 * wmap_duration -- a number and a unit (ns, us, ms, s, m, h): "5s", "1.5s",
 * "500ms", in nanoseconds, from 1 ms to 1 day
 * RETURN VALUE: 0; RPMAF_E_CONFIG.
 */
int wmap_duration(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node, uint64_t *ns);

/*
 * wmap_name -- a name (letters, digits, '_', '-', '.'; 1 to 64 bytes),
 * newly allocated into *s (the caller frees it)
 * RETURN VALUE: 0; RPMAF_E_CONFIG; RPMAF_E_NOMEM.
 */
int wmap_name(struct rpmaf__cfg_keypath *m, const struct rpmaf__cfg_node *node,
	      const char *expected, char **s);

#endif /* RPMA_LOAD_WMAP_H */
